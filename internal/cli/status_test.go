package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestStatusAndAttachedSessions: vigil status reports an attachment and
// no live sidecar; the session vigil keeps for a watched agent's
// session is listed, and --resume refuses it.
func TestStatusAndAttachedSessions(t *testing.T) {
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
	if out, errOut, err := vigil("attach", "claude-code", "--command", filepath.Join(root, "bin", "vigil")); err != nil {
		t.Fatalf("attach: %v\n%s%s", err, out, errOut)
	}
	out, errOut, err := vigil("status", "--json")
	if err != nil {
		t.Fatalf("status: %v\n%s", err, errOut)
	}
	var rep struct {
		Attached []struct {
			Agent, Scope string
			Attached     bool
			Events       []string
			Binaries     []string
		}
		Sidecars []json.RawMessage
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	found := false
	for _, a := range rep.Attached {
		if a.Agent == "claude-code" && a.Scope == "project" {
			found = a.Attached && len(a.Events) == 7 && len(a.Binaries) == 1 && strings.HasSuffix(a.Binaries[0], "(missing)")
		} else if a.Attached {
			t.Errorf("%s %s reported attached", a.Agent, a.Scope)
		}
	}
	if !found || len(rep.Sidecars) != 0 {
		t.Fatalf("status = %s", out)
	}
	if text, _, err := vigil("status"); err != nil || !strings.Contains(text, "attached: 7 hooks") || !strings.Contains(text, "No live sidecars.") {
		t.Fatalf("status text: %v\n%s", err, text)
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
	_, errOut, err = vigil("-p", "hi", "-m", "anthropic/claude-sonnet-4-5", "--resume", "claude-code-abc-123")
	if err == nil || !strings.Contains(errOut, "another agent's session") {
		t.Fatalf("--resume of an attached session: %v\n%s", err, errOut)
	}
}
