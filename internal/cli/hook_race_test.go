package cli_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// raceHooks runs n `vigil hook claude-code` processes at once, each with
// a first PostToolUse of session id, as Claude Code does for a step with
// parallel tool calls, and waits for them all.
func raceHooks(t *testing.T, s *attachedSetup, id string, n int) {
	t.Helper()
	ev, _ := json.Marshal(map[string]any{
		"session_id": id, "hook_event_name": "PostToolUse", "cwd": s.work,
		"transcript_path": filepath.Join(s.root, id+".jsonl"), "tool_name": "Bash",
	})
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(s.vigil, "hook", "claude-code")
			cmd.Dir, cmd.Env, cmd.Stdin = s.work, s.env, bytes.NewReader(ev)
			if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
				errs[i] = fmt.Errorf("hook %d: %v, printed %q", i, err, out)
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// liveSidecars are the registry records of the sidecars that serve.
func (s *attachedSetup) liveSidecars(t *testing.T) []map[string]any {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(s.runDir, "*.json"))
	var out []map[string]any
	for _, m := range matches {
		var info map[string]any
		if b, err := os.ReadFile(m); err == nil && json.Unmarshal(b, &info) == nil && info["pid"] != nil {
			out = append(out, info)
		}
	}
	return out
}

// sidecarLogs is what the sidecars logged (not hook.log).
func (s *attachedSetup) sidecarLogs() string {
	var b strings.Builder
	matches, _ := filepath.Glob(filepath.Join(s.runDir, "*.log"))
	for _, m := range matches {
		if filepath.Base(m) != "hook.log" && filepath.Base(m) != "hookd.log" {
			data, _ := os.ReadFile(m)
			b.Write(data)
		}
	}
	return b.String()
}

// TestConcurrentFirstHooksOneSidecar is item 2 of issue 28: five first
// hooks of one new session at once each started a sidecar, and every
// one created vigil's session files before it took the session's lock:
// some failed on the advisor transcript another had just created
// ("cannot advise: ... file exists"), and one of those could be the
// one that won the lock; duplicate session files were left, which made
// every later sidecar of the session fail ("several files have this
// id"). Now a sidecar takes the lock first: one advises, one set of
// files, and no sidecar says it cannot advise.
func TestConcurrentFirstHooksOneSidecar(t *testing.T) {
	s := newAttached(t, "rules:\n  - name: quiet\n    model: adv\n    repeat: true\n    steps: [{text: \"nothing to add\"}]\n")
	raceHooks(t, s, "race-1", 5)
	logs := s.sidecarLogs()
	live := s.liveSidecars(t)
	if len(live) != 1 {
		t.Fatalf("%d sidecars serve, want 1: %v\nlogs:\n%s", len(live), live, logs)
	}
	if r, _ := live[0]["reviewer"].(string); r != "fake/adv" {
		t.Errorf("the sidecar that serves reviews with %q, want fake/adv\nlogs:\n%s", r, logs)
	}
	if strings.Contains(logs, "cannot advise") {
		t.Errorf("a sidecar could not advise:\n%s", logs)
	}
	files, _ := filepath.Glob(filepath.Join(s.agentDir, "sessions", "*", "*.jsonl"))
	if len(files) != 1 {
		t.Errorf("session files %v, want one", files)
	}
	advisors, _ := filepath.Glob(filepath.Join(s.agentDir, "sessions", "*", "*", "__advisor.jsonl"))
	if len(advisors) != 1 {
		t.Errorf("advisor transcripts %v, want one", advisors)
	}
	if got, _ := live[0]["vigil_session"].(string); len(files) == 1 && got != files[0] {
		t.Errorf("the sidecar records in %s, want %s", got, files[0])
	}
}

// TestDuplicateSessionFilesStillAdvised: a session whose folder holds
// two files with its id (left by the race above, before the fix) is
// found: the sidecar picks the one with content (the oldest among
// equals), says so in its log, and advises.
func TestDuplicateSessionFilesStillAdvised(t *testing.T) {
	s := newAttached(t, "rules:\n  - name: quiet\n    model: adv\n    repeat: true\n    steps: [{text: \"nothing to add\"}]\n")
	m := session.NewManager(filepath.Join(s.agentDir, "sessions"), session.Options{})
	// The first sidecar's file, with an entry; a racing one's, empty.
	first, err := m.Attached(s.work, "claude-code", "dup-1", filepath.Join(s.root, "dup-1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Append(&session.Custom{CustomType: "note", Details: json.RawMessage(`{"n":1}`)}); err != nil {
		t.Fatal(err)
	}
	first.Close()
	kept := first.File()
	dup := filepath.Join(filepath.Dir(kept), "2000-01-01T00-00-00-000Z_claude-code-dup-1.jsonl")
	head, _ := os.ReadFile(kept)
	if err := os.WriteFile(dup, head[:bytes.IndexByte(head, '\n')+1], 0o600); err != nil {
		t.Fatal(err)
	}

	raceHooks(t, s, "dup-1", 1)
	logs := s.sidecarLogs()
	live := s.liveSidecars(t)
	if len(live) != 1 {
		t.Fatalf("%d sidecars serve, want 1\nlogs:\n%s", len(live), logs)
	}
	if r, _ := live[0]["reviewer"].(string); r != "fake/adv" {
		t.Errorf("the sidecar reviews with %q, want fake/adv\nlogs:\n%s", r, logs)
	}
	if got, _ := live[0]["vigil_session"].(string); got != kept {
		t.Errorf("the sidecar records in %s, want %s (the one with content)", got, kept)
	}
	if !strings.Contains(logs, kept) || !strings.Contains(logs, dup) || !strings.Contains(logs, "several") {
		t.Errorf("the log does not say which of the two files it took:\n%s", logs)
	}
}
