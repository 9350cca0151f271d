package llm_test

import (
	"context"
	"errors"
	"iter"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// scripted is a model whose calls play back one outcome each.
type scripted struct {
	outcomes []outcome
	calls    int
	started  []time.Time
}

type outcome struct {
	events []llm.Event
	err    error
}

func (s *scripted) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	o := s.outcomes[min(s.calls, len(s.outcomes)-1)]
	s.calls++
	s.started = append(s.started, time.Now())
	return seq(o.events, o.err)
}

var okReply = []llm.Event{{Type: llm.EventTextDelta, Text: "ok"}, {Type: llm.EventStop, StopReason: llm.StopEndTurn}}

func TestRetryHonoursRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &scripted{outcomes: []outcome{
			{err: &llm.Error{Kind: llm.RateLimited, Status: 429, RetryAfter: 7 * time.Second}},
			{err: &llm.Error{Kind: llm.Overloaded, Status: 529}},
			{events: okReply},
		}}
		start := time.Now()
		resp, err := llm.Accumulate(llm.WithRetry(m, llm.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: time.Minute}).Stream(context.Background(), llm.Request{}))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Message.Text() != "ok" || m.calls != 3 {
			t.Fatalf("text %q after %d calls", resp.Message.Text(), m.calls)
		}
		if got := m.started[1].Sub(start); got != 7*time.Second {
			t.Errorf("second attempt after %v, want the 7s retry-after", got)
		}
		// Second backoff: BaseDelay<<1 = 2s plus at most a quarter of jitter.
		if got := m.started[2].Sub(m.started[1]); got < 2*time.Second || got > 2500*time.Millisecond {
			t.Errorf("third attempt after %v, want 2s..2.5s", got)
		}
	})
}

func TestRetryGivesUp(t *testing.T) {
	tests := []struct {
		name      string
		outcomes  []outcome
		wantCalls int
		wantKind  llm.ErrorKind
	}{
		{"bad request is final", []outcome{{err: &llm.Error{Kind: llm.BadRequest, Status: 400}}}, 1, llm.BadRequest},
		{"auth is final", []outcome{{err: &llm.Error{Kind: llm.Auth, Status: 401}}}, 1, llm.Auth},
		{"attempts run out", []outcome{{err: &llm.Error{Kind: llm.Server, Status: 500}}}, 3, llm.Server},
		{"retry-after beyond the cap", []outcome{{err: &llm.Error{Kind: llm.RateLimited, RetryAfter: time.Hour}}}, 1, llm.RateLimited},
		{"partial reply is not retried", []outcome{{events: okReply[:1], err: &llm.Error{Kind: llm.Truncated}}}, 1, llm.Truncated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				m := &scripted{outcomes: tt.outcomes}
				_, err := llm.Accumulate(llm.WithRetry(m, llm.RetryPolicy{MaxAttempts: 3, BaseDelay: time.Second, MaxDelay: time.Minute}).Stream(context.Background(), llm.Request{}))
				if !errors.Is(err, tt.wantKind) {
					t.Errorf("err = %v, want %s", err, tt.wantKind)
				}
				if m.calls != tt.wantCalls {
					t.Errorf("calls = %d, want %d", m.calls, tt.wantCalls)
				}
			})
		})
	}
}

func TestRetryStopsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := &scripted{outcomes: []outcome{{err: &llm.Error{Kind: llm.Overloaded}}}}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		go func() {
			_, err := llm.Accumulate(llm.WithRetry(m, llm.DefaultRetryPolicy).Stream(ctx, llm.Request{}))
			done <- err
		}()
		synctest.Wait() // the first call failed and the backoff timer is waiting
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want context.Canceled", err)
		}
		if m.calls != 1 {
			t.Errorf("calls = %d, want 1", m.calls)
		}
	})
}
