package advisorhost_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fakellm"
)

// noteMidReply runs a prompt on a world over script, delivers a note
// with deliver at the agent's first message_delta, and returns the
// requests fakellm got and how many the agent aborted.
func noteMidReply(t *testing.T, script string, deliver func(ctx context.Context, h *advisorhost.Host) error) ([]fakellm.Request, int) {
	t.Helper()
	w := newWorld(t, script)
	var once sync.Once
	aborts := 0 // the subscriber runs on Prompt's goroutine
	w.ag.Subscribe(func(ev agent.Event) {
		switch ev.Type {
		case agent.EventMessageDelta:
			once.Do(func() {
				if err := deliver(t.Context(), w.host); err != nil {
					t.Error(err)
				}
			})
		case agent.EventRequestAborted:
			aborts++
		}
	})
	if err := w.ag.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	return w.srv.Requests(), aborts
}

// Host.Steer aborts the request in flight for a blocker only.
func TestSteerAbortsTheRequestForABlockerOnly(t *testing.T) {
	t.Run("blocker", func(t *testing.T) {
		reqs, aborts := noteMidReply(t, `
rules:
  - steps:
      - text: I will now delete the tests so that the build passes
        chunk: 8
        fault: {stall: true, cut_after: 4}
      - text: I will fix the test instead.
`, func(ctx context.Context, h *advisorhost.Host) error {
			return h.Steer(ctx, advisor.Advice{Note: "THE-NOTE", Severity: advisor.SeverityBlocker})
		})
		if aborts != 1 || len(reqs) != 2 {
			t.Fatalf("%d aborts, %d requests; want 1 and 2", aborts, len(reqs))
		}
		second := string(reqs[1].Body)
		if !strings.Contains(second, `severity=\"blocker\"`) || !strings.Contains(second, "THE-NOTE") || strings.Contains(second, "delete the tests") {
			t.Errorf("second request:\n%s", second)
		}
	})
	// A concern, and a blocker sent as an aside (as the interrupt
	// cooldown routes one), leave the request alone: the reply is kept
	// whole and the note comes at the boundary.
	for name, deliver := range map[string]func(ctx context.Context, h *advisorhost.Host) error{
		"concern": func(ctx context.Context, h *advisorhost.Host) error {
			return h.Steer(ctx, advisor.Advice{Note: "THE-NOTE", Severity: advisor.SeverityConcern})
		},
		"aside": func(ctx context.Context, h *advisorhost.Host) error {
			return h.Aside(ctx, advisor.Advice{Note: "THE-NOTE", Severity: advisor.SeverityBlocker})
		},
	} {
		t.Run(name, func(t *testing.T) {
			reqs, aborts := noteMidReply(t, `
rules:
  - steps:
      - text: Running the whole suite once more before I look.
        chunk: 4
        tool_calls: [{id: call_1, name: bash, arguments: {command: "echo ran"}}]
      - text: OK.
`, deliver)
			if aborts != 0 || len(reqs) != 2 {
				t.Fatalf("%d aborts, %d requests; want 0 and 2", aborts, len(reqs))
			}
			second := string(reqs[1].Body)
			for _, want := range []string{"Running the whole suite once more before I look.", `"tool_use_id":"call_1"`, "THE-NOTE"} {
				if !strings.Contains(second, want) {
					t.Errorf("second request lacks %q:\n%s", want, second)
				}
			}
			// A concern interrupts the step (its call is skipped); an
			// aside does not (the call runs).
			if skipped := strings.Contains(second, "not run"); skipped != (name == "concern") {
				t.Errorf("call skipped: %v, want %v", skipped, name == "concern")
			}
		})
	}
}
