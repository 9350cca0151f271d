package agent_test

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

func TestHookInjectionLandsInNextRequest(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo one"}}]
      - text: Done.
      - text: Checked the advisory.
`)
	var infos []agent.BoundaryInfo
	hook := agent.HookFunc(func(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
		infos = append(infos, b)
		switch b.Step {
		case 1:
			return []agent.Injection{{Text: "hook says: mind the tests"}}
		case 2:
			return []agent.Injection{{Custom: &session.Custom{
				CustomType: "advisor", Content: []llm.Block{llm.Text("<advisory>re-run them</advisory>")}, Display: true, InContext: true,
			}}}
		}
		return nil
	})
	opts := e.options()
	opts.Hooks = []agent.Hook{hook}
	a := e.agent(t, opts)
	r := record(t, a)
	if err := a.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "second request", e.body(t, 1), `"tool_use_id":"call_1"`, "hook says: mind the tests")
	// At the last step, a model-visible injection continues the turn.
	inOrder(t, "third request", e.body(t, 2), "Done.", "re-run them")
	if len(infos) != 3 || infos[0].Final || !infos[1].Final || len(infos[0].Entries) != 2 || infos[0].Session != e.sess {
		t.Errorf("boundary infos: %+v", infos)
	}
	want := []string{
		"turn_start", "step_start", "message_end", "tool_start", "tool_end", "step_end", "injection_delivered",
		"step_start", "message_delta", "message_end", "step_end", "injection_delivered",
		"step_start", "message_delta", "message_end", "step_end", "turn_end", "idle",
	}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}

// TestBlockingHookIsCutOff runs over HTTP with a short BoundaryTimeout:
// the hook waits on a channel nobody closes.
func TestBlockingHookIsCutOff(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: Done.
`)
	never := make(chan struct{})
	var cause error
	opts := e.options()
	opts.BoundaryTimeout = 20 * time.Millisecond
	opts.Hooks = []agent.Hook{agent.HookFunc(func(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
		select {
		case <-never:
		case <-ctx.Done():
			cause = context.Cause(ctx)
		}
		return nil
	})}
	a := e.agent(t, opts)
	if err := a.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(cause, context.DeadlineExceeded) {
		t.Errorf("hook context ended with %v, want the deadline", cause)
	}
}

// TestBoundaryWaitIsBounded checks the default bound in a synctest bubble,
// with an in-process model: the hook is released after exactly 30s of
// fake time, and an interrupting steer releases it at once.
func TestBoundaryWaitIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &scripted{replies: []func(llm.Request) []llm.Event{
			callReply("c1", "echo", map[string]string{"text": "x"}),
			textReply("first done"),
			textReply("steered"),
		}}
		type wait struct {
			took  time.Duration
			cause error
		}
		waits := make(chan wait, 3)
		blocked := make(chan struct{}, 3)
		hook := agent.HookFunc(func(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
			start := time.Now()
			blocked <- struct{}{}
			<-ctx.Done()
			waits <- wait{time.Since(start), context.Cause(ctx)}
			return nil
		})
		a, err := agent.New(agent.Options{Model: model, Session: memSession(t), Tools: []tools.Tool{echoTool{}}, Hooks: []agent.Hook{hook}})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- a.Prompt(context.Background(), "go") }()

		// Step 1's boundary: nobody steers, the bound cuts it off.
		<-blocked
		if w := <-waits; w.took != agent.DefaultBoundaryTimeout || !errors.Is(w.cause, context.DeadlineExceeded) {
			t.Errorf("first boundary waited %v (%v), want %v", w.took, w.cause, agent.DefaultBoundaryTimeout)
		}
		// Step 2's boundary: an interrupting steer ends the wait at once
		// and continues the turn.
		<-blocked
		a.Steer("change of plan", true)
		if w := <-waits; w.took != 0 || !errors.Is(w.cause, agent.ErrSteerInterrupt) {
			t.Errorf("steered boundary waited %v (%v), want 0 and the steer", w.took, w.cause)
		}
		<-blocked
		if w := <-waits; w.took != agent.DefaultBoundaryTimeout {
			t.Errorf("third boundary waited %v", w.took)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if st := a.State(); st.Step != 3 {
			t.Errorf("steps: %d, want 3", st.Step)
		}
	})
}
