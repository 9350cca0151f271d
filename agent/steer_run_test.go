package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func note(text string) session.Custom {
	return session.Custom{CustomType: "advisor", Content: []llm.Block{llm.Text(text)}, Display: true, InContext: true}
}

// TestSteerRunJoinsTheRunningRun: a run-scoped steer sent while a tool
// runs is delivered at that step's boundary, after the tool's result, and
// the run goes on in the same turn.
func TestSteerRunJoinsTheRunningRun(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo one"}}]
      - text: Done.
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	queued := false
	on(a, agent.EventToolStart, func(agent.Event) { queued = a.SteerRun(note("CORRECTION-in-run"), false) })
	if err := a.Prompt(context.Background(), "echo one"); err != nil {
		t.Fatal(err)
	}
	if !queued {
		t.Fatal("SteerRun during a run reported false")
	}
	inOrder(t, "second request", e.body(t, 1), `"tool_use_id":"call_1"`, "CORRECTION-in-run")
	turns := 0
	for _, ev := range r.all() {
		if ev.Type == agent.EventTurnStart {
			turns++
		}
	}
	if turns != 1 {
		t.Errorf("%d turns, want 1: the steer joins the run, it starts no turn", turns)
	}
}

// TestSteerRunNeverReachesALaterRun: while idle SteerRun queues nothing;
// a steer queued after the run's last boundary (here at turn_end) is
// dropped when the run ends, interrupt included, so the next run neither
// carries it nor has its calls skipped.
func TestSteerRunNeverReachesALaterRun(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: First answer.
      - tool_calls: [{id: call_2, name: bash, arguments: {command: "echo two"}}]
      - text: Second answer.
`)
	a := e.agent(t, e.options())
	if a.SteerRun(note("IDLE-steer"), true) {
		t.Error("SteerRun while idle reported true")
	}
	late := false
	on(a, agent.EventTurnEnd, func(agent.Event) { late = a.SteerRun(note("LATE-steer"), true) })
	if err := a.Prompt(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if !late {
		t.Error("SteerRun at turn_end, with the run still going, reported false")
	}
	if n := a.State().QueuedSteers; n != 0 {
		t.Errorf("%d steers still queued after the run, want 0", n)
	}
	if err := a.Prompt(context.Background(), "second"); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if body := e.body(t, i); strings.Contains(body, "IDLE-steer") || strings.Contains(body, "LATE-steer") {
			t.Errorf("request %d carries a steer of no run of its own", i+1)
		}
	}
	if res := toolResults(t, e.sess); len(res) != 1 || res[0].IsError {
		t.Errorf("the second run's call was not run cleanly: %+v", res)
	}
}

// TestSteerRunLeavesTheHookWait: a run's own interrupting steer queued
// while the boundary's hooks wait does not cut their wait short (they are
// what waits for it and for the others of that boundary, as a roster's
// reviews), so two steers queued in one wait reach the same request; a
// user's interrupting steer still cuts the wait.
func TestSteerRunLeavesTheHookWait(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo one"}}]
      - tool_calls: [{id: call_2, name: bash, arguments: {command: "echo two"}}]
      - text: Done.
`)
	var a *agent.Agent
	var causes []error
	hook := agent.HookFunc(func(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
		switch b.Step {
		case 1:
			// Two reviews' corrections, one after the other in one wait.
			a.SteerRun(note("FIRST-correction"), true)
			a.SteerRun(note("SECOND-correction"), true)
		case 2:
			a.Steer("USER-steer", true)
		default:
			return nil
		}
		causes = append(causes, context.Cause(ctx))
		if b.Step == 2 {
			<-ctx.Done() // the user's steer ends the wait
			causes[len(causes)-1] = context.Cause(ctx)
		}
		return nil
	})
	opts := e.options()
	opts.Hooks = []agent.Hook{hook}
	a = e.agent(t, opts)
	if err := a.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if len(causes) != 2 {
		t.Fatalf("the hook waited at %d boundaries, want 2", len(causes))
	}
	if causes[0] != nil {
		t.Errorf("the run's own steers cut the hook wait: %v", causes[0])
	}
	if !errors.Is(causes[1], agent.ErrSteerInterrupt) {
		t.Errorf("the user's steer left the hook wait (cause %v), want it cut", causes[1])
	}
	inOrder(t, "second request", e.body(t, 1), `"tool_use_id":"call_1"`, "FIRST-correction", "SECOND-correction")
	inOrder(t, "third request", e.body(t, 2), `"tool_use_id":"call_2"`, "USER-steer")
}
