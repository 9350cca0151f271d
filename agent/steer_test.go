package agent_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
)

func TestInterruptingSteerKillsSleep(t *testing.T) {
	e := newWorkspace(t)
	started := fifo(t, e.dir, "started")
	e.serve(t, fmt.Sprintf(`
rules:
  - steps:
      - tool_calls:
          - {id: call_1, name: bash, arguments: {command: "echo go > %s; sleep 3600"}}
          - {id: call_2, name: bash, arguments: {command: "echo never"}}
      - text: Changing course.
`, started))
	a := e.agent(t, e.options())
	r := record(t, a)
	toolEnd := make(chan time.Time, 2)
	a.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventToolEnd && !ev.Skipped {
			toolEnd <- time.Now()
		}
	})
	done := prompt(t, a, "sleep please")
	awaitWriter(t, started, done) // bash is past the echo: sleep 3600 runs

	// The sleep outlives the test by far: its end at all is the steer's
	// doing (an event, not a wall-clock bound, which failed by chance
	// under -race on a loaded machine).
	steered := time.Now()
	a.Steer("stop sleeping and list the files", true)
	ended := <-toolEnd
	t.Logf("sleep 3600 ended %v after the interrupting steer", ended.Sub(steered))
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// The killed call says why; the second was skipped.
	results := toolResults(t, e.sess)
	if len(results) != 2 {
		t.Fatalf("got %d tool results, want 2", len(results))
	}
	if txt := resultText(results[0]); !results[0].IsError || !strings.Contains(txt, "steering message") {
		t.Errorf("interrupted result: %q", txt)
	}
	if txt := resultText(results[1]); !strings.Contains(txt, "not run") {
		t.Errorf("skipped result: %q", txt)
	}
	var ends []agent.Event
	for _, ev := range r.all() {
		if ev.Type == agent.EventToolEnd {
			ends = append(ends, ev)
		}
	}
	if !ends[0].Interrupted || ends[0].Reason != agent.InterruptSteer || !ends[1].Skipped {
		t.Errorf("tool_end events: %+v", ends)
	}
	want := []string{
		"turn_start", "step_start", "message_end", "tool_start", "tool_end", "tool_end", "step_end",
		"steer_delivered", "step_start", "message_delta", "message_end", "step_end", "turn_end", "idle",
	}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// The steer is in the next request, after both tool results.
	inOrder(t, "second request", e.body(t, 1),
		`"tool_use_id":"call_1"`, `"tool_use_id":"call_2"`, "stop sleeping and list the files")
}

func TestSteerWaitsForTools(t *testing.T) {
	e := newWorkspace(t)
	started, gate := fifo(t, e.dir, "started"), fifo(t, e.dir, "gate")
	e.serve(t, fmt.Sprintf(`
rules:
  - steps:
      - tool_calls:
          - {id: call_1, name: bash, arguments: {command: "echo go > %s; cat %s"}}
          - {id: call_2, name: bash, arguments: {command: "echo second-ran"}}
      - text: Noted.
`, started, gate))
	a := e.agent(t, e.options())
	r := record(t, a)
	done := prompt(t, a, "wait for the gate")
	awaitWriter(t, started, done)
	a.Steer("also check the tests", false)
	if st := a.State(); st.QueuedSteers != 1 {
		t.Errorf("queued steers: %d, want 1", st.QueuedSteers)
	}
	release(t, gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	results := toolResults(t, e.sess)
	if len(results) != 2 || results[0].IsError || !strings.Contains(resultText(results[0]), "released") ||
		!strings.Contains(resultText(results[1]), "second-ran") {
		t.Fatalf("tool results: %+v", results)
	}
	types := r.types()
	if i := indexOf(types, "steer_delivered"); i < 0 || types[i-1] != "step_end" {
		t.Errorf("steer not delivered at the boundary: %v", types)
	}
	if ev := r.first(t, agent.EventSteerDelivered); ev.Interrupt || ev.Entry == nil {
		t.Errorf("steer_delivered: %+v", ev)
	}
	inOrder(t, "second request", e.body(t, 1),
		`"tool_use_id":"call_1"`, `"tool_use_id":"call_2"`, "also check the tests")
}

func TestSteerAtLastStepContinuesTurn(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: All done.
      - text: Fine, adding tests too.
`)
	a := e.agent(t, e.options())
	on(a, agent.EventMessageDelta, func(agent.Event) { a.Steer("add tests too", false) })
	if err := a.Prompt(t.Context(), "do it"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "second request", e.body(t, 1), "All done.", "add tests too")
	if st := a.State(); st.Turn != 1 || st.Step != 2 {
		t.Errorf("state: %+v, want one turn of two steps", st)
	}
}
