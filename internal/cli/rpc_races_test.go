package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/cli"
)

// An abort sent right behind its prompt must still stop the turn.
func TestRPCAbortRightAfterPrompt(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - text: "slow answer"
        delay: 20s
`)
	p := startVigil(t, agentDir, work)
	if _, err := p.stdin.Write([]byte(`{"type":"prompt","id":"1","message":"go"}` + "\n" + `{"type":"abort","id":"a"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	perr := p.waitFor("prompt_error", isType("prompt_error"))
	if !strings.Contains(fmt.Sprint(perr["error"]), "interrupted") {
		t.Errorf("prompt_error = %v, want an interrupt", perr)
	}
	p.finish()
}

// A prompt sent as soon as idle is seen is accepted, every time.
func TestRPCPromptOnIdleIsAccepted(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - repeat: true
    steps:
      - text: "ok"
`)
	p := startVigil(t, agentDir, work)
	for i := range 30 {
		id := fmt.Sprint(i)
		p.send(map[string]any{"type": "prompt", "id": id, "message": "go"})
		r := p.waitFor("reply", func(m map[string]any) bool { return m["id"] == id && m["type"] == "response" })
		if r["success"] != true {
			t.Fatalf("prompt %d sent on idle was refused: %v", i, r["error"])
		}
		p.waitFor("idle", isType("idle"))
	}
	p.finish()
}

// Commands that replace the session or the agent are refused while a turn
// runs, and the turn can still be aborted.
func TestRPCSessionCommandsWaitForIdle(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "sleep 30"}}]
      - text: "finished"
`)
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "go"})
	p.waitFor("tool_start", isType("tool_start"))
	for _, cmd := range []string{"/new", "/fork", "/model fake/m", "/branch x", "/compact"} {
		id := "c " + cmd
		p.send(map[string]any{"type": "command", "id": id, "command": cmd})
		r := p.waitFor(cmd+" reply", func(m map[string]any) bool { return m["id"] == id })
		if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "turn is running") {
			t.Errorf("%s during a turn = %v, want it refused", cmd, r)
		}
	}
	p.send(map[string]any{"type": "abort", "id": "a"})
	perr := p.waitFor("prompt_error", isType("prompt_error"))
	if !strings.Contains(fmt.Sprint(perr["error"]), "interrupted") {
		t.Errorf("prompt_error = %v", perr)
	}
	p.finish()
}

// /compact runs in the background: an abort is answered at once.
func TestRPCCompactDoesNotBlockCommands(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: summary
    match: ["summar"]
    steps:
      - text: "SUMMARY"
        delay: 20s
  - name: main
    repeat: true
    steps:
      - text: "an answer"
`)
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "hello"})
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "command", "id": "c", "command": "/compact"})
	p.waitFor("compaction_start", isType("compaction_start"))
	p.send(map[string]any{"type": "get_state", "id": "s"})
	p.waitFor("get_state reply", func(m map[string]any) bool { return m["id"] == "s" })
	p.send(map[string]any{"type": "abort", "id": "a"})
	r := p.waitFor("compact reply", func(m map[string]any) bool { return m["id"] == "c" })
	if r["success"] != false {
		t.Errorf("aborted compaction replied %v, want a failure", r)
	}
	p.finish()
}

// Cancelling the context (SIGINT, SIGTERM) ends RPC mode even while stdin
// stays open.
func TestRPCEndsOnCancelWithStdinOpen(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - repeat: true
    steps:
      - text: "ok"
`)
	t.Setenv("VIGIL_AGENT_DIR", agentDir)
	t.Setenv("HOME", filepath.Dir(agentDir))
	wd, _ := os.Getwd()
	if err := os.Chdir(work); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chdir(wd) })
	stdin, keepOpen := io.Pipe()
	defer keepOpen.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var out bytes.Buffer
	go func() {
		done <- cli.Run(ctx, []string{"--mode", "rpc", "-m", "fake/m"}, stdin, &out, io.Discard)
	}()
	cancel()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "canceled") {
			t.Errorf("Run = %v, want it to end with the cancellation", err)
		}
	case <-time.After(waitBound):
		t.Fatal("RPC mode still running after its context was cancelled")
	}
}

// A failed prompt in print mode must not print an older answer as its own.
func TestPrintModeFailureDoesNotPrintOldAnswer(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - text: "ANSWER-TO-FIRST-QUESTION"
      - fault: {status: 400, message: bad request}
`)
	runV := func(args ...string) (string, error) {
		out, err := vigilCommand(agentDir, work, append([]string{"-m", "fake/m"}, args...)...).Output()
		return string(out), err
	}
	if out, err := runV("-p", "first"); err != nil || !strings.Contains(out, "ANSWER-TO-FIRST-QUESTION") {
		t.Fatalf("first run: %v %q", err, out)
	}
	out, err := runV("-c", "-p", "second")
	if err == nil {
		t.Error("second run succeeded against a 400")
	}
	if strings.Contains(out, "ANSWER-TO-FIRST-QUESTION") {
		t.Errorf("a failed prompt printed the previous answer: %q", out)
	}
}
