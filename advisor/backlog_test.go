package advisor

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"
)

// waitAsync runs WaitBacklogBelow on a goroutine and returns its result.
func waitAsync(ctx context.Context, r *Runtime, n int) <-chan error {
	c := make(chan error, 1)
	go func() { c <- r.WaitBacklogBelow(ctx, n) }()
	return c
}

func TestWaitBacklogBelow(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, m, host := startBlocking(t)
		defer r.Stop()

		if err := r.WaitBacklogBelow(t.Context(), 1); err != nil {
			t.Fatalf("empty backlog: %v", err)
		}
		r.Notify(host.step("step one"))
		if b := r.Status().Backlog; b != 1 {
			t.Errorf("backlog after one step = %d, want 1", b)
		}
		if err := r.WaitBacklogBelow(t.Context(), 0); err != nil {
			t.Errorf("threshold 0 waited: %v", err)
		}
		if err := r.WaitBacklogBelow(t.Context(), 2); err != nil {
			t.Errorf("backlog 1 below 2: %v", err)
		}
		below1 := waitAsync(t.Context(), r, 1)
		<-m.calls // step one is in review
		r.Notify(host.step("step two"))
		below2 := waitAsync(t.Context(), r, 2)
		synctest.Wait()
		if b := r.Status().Backlog; b != 2 {
			t.Errorf("backlog with one step in review and one queued = %d, want 2", b)
		}
		select {
		case err := <-below1:
			t.Fatalf("returned (%v) with a step in review", err)
		case err := <-below2:
			t.Fatalf("below 2 returned (%v) at backlog 2", err)
		default:
		}

		m.replies <- fakeReply{text: "ok"} // step one reviewed
		<-m.calls                          // step two in review
		if err := <-below2; err != nil {
			t.Errorf("below 2 after the first review: %v", err)
		}
		synctest.Wait()
		select {
		case err := <-below1:
			t.Fatalf("below 1 returned (%v) with step two in review", err)
		default:
		}
		m.replies <- fakeReply{text: "ok"}
		if err := <-below1; err != nil {
			t.Errorf("below 1 after both reviews: %v", err)
		}
		if s := r.Status(); s.Backlog != 0 || s.Reviews != 2 {
			t.Errorf("status %+v", s)
		}
	})
}

func TestWaitBacklogBelowTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, m, host := startBlocking(t)
		defer r.Stop()
		r.Notify(host.step("step one"))
		<-m.calls
		ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
		defer cancel()
		start := time.Now()
		if err := r.WaitBacklogBelow(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("err = %v, want the deadline", err)
		}
		if d := time.Since(start); d != 30*time.Second {
			t.Errorf("waited %v, want 30s", d)
		}
		m.replies <- fakeReply{text: "ok"}
	})
}

func TestWaitBacklogBelowDroppedAndStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newBlockingModel()
		host := &fakeHost{}
		r, err := New(Options{Model: m, Host: host, OnWarning: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		// Not started: nothing will review, so no waiting.
		r.Notify(host.step("step one"))
		if err := r.WaitBacklogBelow(t.Context(), 1); !errors.Is(err, ErrStopped) {
			t.Errorf("before Start: %v, want ErrStopped", err)
		}
		r.Start(t.Context())
		done := waitAsync(t.Context(), r, 1)
		for range MaxConsecutiveFailures {
			<-m.calls
			m.replies <- fakeReply{err: errors.New("500")}
		}
		if err := <-done; err != nil {
			t.Errorf("after the drop: %v", err)
		}
		r.Notify(host.step("step two"))
		<-m.calls
		done = waitAsync(t.Context(), r, 1)
		r.Stop()
		if err := <-done; !errors.Is(err, ErrStopped) {
			t.Errorf("after Stop: %v, want ErrStopped", err)
		}
	})
}

// startBlocking starts a runtime over a model that blocks until the test
// replies and a fake host; the caller stops it.
func startBlocking(t *testing.T) (*Runtime, *blockingModel, *fakeHost) {
	t.Helper()
	m := newBlockingModel()
	host := &fakeHost{}
	r, err := New(Options{Model: m, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	r.Start(t.Context())
	return r, m, host
}
