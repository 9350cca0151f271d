package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/locate"
	"github.com/vigil-dev/vigil/session"
)

// reviewProject runs `vigil review` with no arguments in work, with home
// as HOME and vigil's agent folder under it.
func reviewProject(t *testing.T, home, work string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := vigilCommand(filepath.Join(home, ".vigil", "agent"), work, "review")
	// The test's own environment must not move the agents' folders.
	cmd.Env = append(cmd.Env, "HOME="+home, "NO_COLOR=", "CLAUDE_CONFIG_DIR=", "CODEX_HOME=", "PI_CODING_AGENT_DIR=")
	return runCommand(t, cmd)
}

// copyWithCwd writes the transcript src to dst (making its folder) with
// the working folder it recorded, from, replaced by to, and dates it at.
func copyWithCwd(t *testing.T, src, dst, from, to string, at time.Time) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(data, []byte(from)) {
		t.Fatalf("%s does not record %s", src, from)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, bytes.ReplaceAll(data, []byte(from), []byte(to)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dst, at, at); err != nil {
		t.Fatal(err)
	}
}

// TestReviewFindsProjectSessions: `vigil review` with no arguments, in a
// project, finds its Claude Code session under HOME's ~/.claude/projects
// and its vigil session, says what it found, and reviews them newest
// first; a session of another project is left alone.
func TestReviewFindsProjectSessions(t *testing.T) {
	home := t.TempDir()
	work := filepath.Join(home, "src", "my.proj")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	claude := filepath.Join(home, ".claude", "projects", locate.ClaudeSlug(work), "e263d154.jsonl")
	copyWithCwd(t, filepath.Join("..", "..", "transcript", "testdata", "claude-code", "recording.jsonl"), claude, "/tmp/rec/cc/work", work, old)
	other := filepath.Join(home, ".claude", "projects", locate.ClaudeSlug("/elsewhere"), "x.jsonl")
	copyWithCwd(t, filepath.Join("..", "..", "transcript", "testdata", "claude-code", "recording.jsonl"), other, "/tmp/rec/cc/work", "/elsewhere", old)
	own := filepath.Join(home, ".vigil", "agent", "sessions", session.Slug(work), "2026-12-01T10-00-00.000Z_93c0855a973a6a29.jsonl")
	copyWithCwd(t, filepath.Join("sample", "offcourse.jsonl"), own, "/tmp/vigil-devset/offcourse_skips_failing_test/work", work, old.Add(time.Hour))

	out, errOut, code := reviewProject(t, home, work)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if want := "vigil: 2 sessions of this project: 1 vigil, 1 Claude Code\n"; !strings.Contains(errOut, want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut)
	}
	i, j := strings.Index(out, own+": vigil,"), strings.Index(out, claude+": claude-code,")
	if i < 0 || j < 0 || i > j {
		t.Errorf("want the vigil session (newer), then the Claude Code one:\n%s", out)
	}
	if strings.Contains(out, other) {
		t.Errorf("reviewed another project's session:\n%s", out)
	}
}
