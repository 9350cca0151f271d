package advisorhost_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
)

// fakeBacklog stands in for Runtime.WaitBacklogBelow: its backlog is 1
// until done is closed.
type fakeBacklog struct {
	done  chan struct{}
	calls []int
}

func (f *fakeBacklog) wait(ctx context.Context, n int) error {
	f.calls = append(f.calls, n)
	select {
	case <-f.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func asideText(t *testing.T, inj []agent.Injection) string {
	t.Helper()
	if len(inj) != 1 || inj[0].Custom == nil || len(inj[0].Custom.Content) == 0 {
		t.Fatalf("injections %+v, want one aside", inj)
	}
	return inj[0].Custom.Content[0].Text
}

func TestHookWaitsForTheReview(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := advisorhost.New(nil, nil)
		defer h.Close()
		fb := &fakeBacklog{done: make(chan struct{})}
		h.SetSync(1, 30*time.Second, fb.wait)
		got := make(chan []agent.Injection, 1)
		go func() { got <- h.Hook().Boundary(t.Context(), agent.BoundaryInfo{}) }()
		synctest.Wait()
		select {
		case inj := <-got:
			t.Fatalf("hook returned %v before the review completed", inj)
		default:
		}
		// The review delivers an aside, then completes.
		start := time.Now()
		if err := h.Aside(t.Context(), advisor.Advice{Note: "NOTE-during-wait", Severity: advisor.SeverityConcern}); err != nil {
			t.Fatal(err)
		}
		close(fb.done)
		inj := <-got
		if d := time.Since(start); d != 0 {
			t.Errorf("hook returned %v after the review completed, want at once", d)
		}
		if txt := asideText(t, inj); !strings.Contains(txt, "NOTE-during-wait") {
			t.Errorf("aside %q lacks the note delivered during the wait", txt)
		}
		if len(fb.calls) != 1 || fb.calls[0] != 1 {
			t.Errorf("wait calls %v, want [1]", fb.calls)
		}
	})
}

func TestHookWaitTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := advisorhost.New(nil, nil)
		defer h.Close()
		fb := &fakeBacklog{done: make(chan struct{})}
		h.SetSync(3, 30*time.Second, fb.wait)
		if err := h.Aside(t.Context(), advisor.Advice{Note: "NOTE-before", Severity: advisor.SeverityConcern}); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		inj := h.Hook().Boundary(t.Context(), agent.BoundaryInfo{})
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("hook waited %v, want the 30s timeout", d)
		}
		if txt := asideText(t, inj); !strings.Contains(txt, "NOTE-before") {
			t.Errorf("aside %q", txt)
		}

		// The boundary's own ctx (a user abort) ends the wait sooner.
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Second)
		defer cancel()
		start = time.Now()
		if inj := h.Hook().Boundary(ctx, agent.BoundaryInfo{}); inj != nil {
			t.Errorf("injections %v, want none", inj)
		}
		if d := time.Since(start); d != 2*time.Second {
			t.Errorf("hook waited %v, want 2s", d)
		}
	})
}

func TestHookSyncOff(t *testing.T) {
	h := advisorhost.New(nil, nil)
	defer h.Close()
	fb := &fakeBacklog{done: make(chan struct{})}
	h.SetSync(0, 30*time.Second, fb.wait)
	if inj := h.Hook().Boundary(t.Context(), agent.BoundaryInfo{}); inj != nil {
		t.Errorf("injections %v", inj)
	}
	if len(fb.calls) != 0 {
		t.Errorf("threshold 0 called wait %v", fb.calls)
	}
}
