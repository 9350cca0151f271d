package agent_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestAbortDuringStalledStream(t *testing.T) {
	// The reply sends its first text delta, then nothing.
	e := newEnv(t, `
rules:
  - steps:
      - text: Thinking about it for a long while
        chunk: 8
        fault: {stall: true, cut_after: 4}
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	on(a, agent.EventMessageDelta, func(agent.Event) { a.Abort() })
	start := time.Now()
	err := a.Prompt(t.Context(), "go")
	if !errors.Is(err, agent.ErrAborted) {
		t.Fatalf("Prompt: %v, want ErrAborted", err)
	}
	t.Logf("Prompt returned %v after the stream started", time.Since(start))

	want := []string{"turn_start", "step_start", "message_delta", "message_end", "step_end", "aborted", "turn_end", "idle"}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	path, _ := e.sess.Path(e.sess.Leaf())
	if len(path) != 3 {
		t.Fatalf("session has %d entries, want prompt, partial reply, marker", len(path))
	}
	partial := path[1].Body.(*session.Message)
	if partial.StopReason != agent.StopAborted || !strings.HasPrefix("Thinking about it for a long while", partial.Message.Text()) || partial.Message.Text() == "" {
		t.Errorf("partial reply: %+v", partial)
	}
	assertMarker(t, path[2])
	if ev := r.first(t, agent.EventTurnEnd); !errors.Is(ev.Err, agent.ErrAborted) {
		t.Errorf("turn_end: %+v", ev)
	}
	if st := a.State(); !st.Aborted || st.Running {
		t.Errorf("state: %+v", st)
	}
}

func TestAbortDuringTool(t *testing.T) {
	e := newWorkspace(t)
	started := fifo(t, e.dir, "started")
	e.serve(t, fmt.Sprintf(`
rules:
  - steps:
      - tool_calls:
          - {id: call_1, name: bash, arguments: {command: "echo go > %s; sleep 30"}}
          - {id: call_2, name: bash, arguments: {command: "echo never"}}
`, started))
	a := e.agent(t, e.options())
	r := record(t, a)
	done := prompt(t, a, "sleep")
	awaitWriter(t, started, done)
	a.Abort()
	if err := <-done; !errors.Is(err, agent.ErrAborted) {
		t.Fatalf("Prompt: %v, want ErrAborted", err)
	}
	want := []string{"turn_start", "step_start", "message_end", "tool_start", "tool_end", "tool_end", "step_end", "aborted", "turn_end", "idle"}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	results := toolResults(t, e.sess)
	// The killed command's result says the interruption once.
	if len(results) != 2 || !strings.HasSuffix(resultText(results[0]), "\n[interrupted by user; the command's process group was killed]") ||
		strings.Count(resultText(results[0]), "interrupted") != 1 || !strings.Contains(resultText(results[1]), "not run") {
		t.Fatalf("tool results: %+v", results)
	}
	path, _ := e.sess.Path(e.sess.Leaf())
	assertMarker(t, path[len(path)-1])
	if n := len(e.srv.Requests()); n != 1 {
		t.Errorf("the model got %d requests, want 1", n)
	}

	// The next prompt sends the marker to the model, and the run goes on.
	e.serve(t, `
rules:
  - steps:
      - text: OK, stopped.
`)
	a2 := e.agent(t, e.options())
	if err := a2.Prompt(t.Context(), "what happened?"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "next request", e.body(t, 0), `"tool_use_id":"call_2"`, "[Interrupted by user]", "what happened?")
}

func assertMarker(t *testing.T, en session.Entry) {
	t.Helper()
	c, ok := en.Body.(*session.Custom)
	if !ok || c.CustomType != agent.CustomAborted || !c.Display || !c.InContext ||
		(llm.Message{Content: c.Content}).Text() != "[Interrupted by user]" {
		t.Errorf("last entry is %+v, want the abort marker", en.Body)
	}
}
