package hookwire

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpawnMissingCwd: an event whose cwd is missing, or is a file,
// gets an error that names the cwd and says what is wrong with it, not
// one that blames the vigil binary (which is there).
func TestSpawnMissingCwd(t *testing.T) {
	root := t.TempDir()
	vigil := filepath.Join(root, "vigil")
	if err := os.WriteFile(vigil, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "file")
	os.WriteFile(file, nil, 0o600)
	for _, tc := range []struct{ cwd, want string }{
		{filepath.Join(root, "gone"), "does not exist"},
		{file, "not a folder"},
	} {
		spawn := SidecarSpawner(vigil, Dir(root), AgentClaudeCode, nil)
		tp := filepath.Join(root, "t.jsonl")
		err := spawn(context.Background(), Key{Agent: AgentClaudeCode, Session: "s1"}, Input{SessionID: "s1", HookEventName: EventPostToolUse, Cwd: tc.cwd, TranscriptPath: &tp})
		if err == nil {
			t.Fatalf("cwd %s: no error", tc.cwd)
		}
		msg := err.Error()
		if !strings.Contains(msg, "cwd "+tc.cwd) || !strings.Contains(msg, tc.want) {
			t.Errorf("cwd %s: error %q, want it to name the hook's cwd and say it %s", tc.cwd, msg, tc.want)
		}
		if strings.Contains(msg, "fork/exec") {
			t.Errorf("cwd %s: error %q blames the binary", tc.cwd, msg)
		}
	}
}
