package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestAttachedSessions: the session vigil keeps for a watched agent's
// session is listed, and --resume refuses it (vigil status is
// testdata/script/status.txtar).
func TestAttachedSessions(t *testing.T) {
	root := t.TempDir()
	agentDir := filepath.Join(root, "home", ".vigil", "agent")
	work := filepath.Join(root, "work")
	for _, d := range []string{agentDir, filepath.Join(work, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	run, err := os.MkdirTemp("", "vst")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(run)
	vigil := func(args ...string) (string, string, error) {
		cmd := vigilCommand(agentDir, work, args...)
		cmd.Env = append(cmd.Env, "HOME="+filepath.Join(root, "home"), "VIGIL_RUNTIME_DIR="+filepath.Join(run, "r"))
		var out, errb strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		return out.String(), errb.String(), err
	}
	m := session.NewManager(filepath.Join(agentDir, "sessions"), session.Options{})
	s, err := m.Attached(work, "claude-code", "abc-123", "/home/ann/.claude/projects/x/abc-123.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// The same agent session maps to the same file.
	again, err := m.Attached(work, "claude-code", "abc-123", "/elsewhere.jsonl")
	if err != nil || again.File() != s.File() {
		t.Fatalf("second Attached: %v, %s vs %s", err, again.File(), s.File())
	}
	again.Close()
	list, _, err := vigil("sessions", "--json")
	if err != nil || !strings.Contains(list, "claude-code-abc-123") {
		t.Fatalf("sessions: %v\n%s", err, list)
	}
	_, errOut, err := vigil("-p", "hi", "-m", "anthropic/claude-sonnet-4-5", "--resume", "claude-code-abc-123")
	if err == nil || !strings.Contains(errOut, "another agent's session") {
		t.Fatalf("--resume of an attached session: %v\n%s", err, errOut)
	}
}
