package llm

import (
	"context"
	"errors"
	"iter"
	"math/rand/v2"
	"time"
)

// RetryPolicy says how often and how patiently to retry a failed call.
type RetryPolicy struct {
	// MaxAttempts counts the first try; 1 means no retries.
	MaxAttempts int
	// BaseDelay is the first backoff; each retry doubles it, with jitter.
	BaseDelay time.Duration
	// MaxDelay caps the backoff and any retry-after the provider asks for;
	// a longer retry-after ends the retries instead.
	MaxDelay time.Duration
}

// DefaultRetryPolicy is four attempts with backoff from one second, waiting
// at most a minute between them.
var DefaultRetryPolicy = RetryPolicy{MaxAttempts: 4, BaseDelay: time.Second, MaxDelay: time.Minute}

// WithRetry wraps m so that a call failing with a retryable [ErrorKind]
// (rate limited, overloaded, server, transport, truncated) before it
// yielded any event is tried again after a backoff, honouring the
// provider's retry-after. A call that already yielded events is never
// retried: the caller has seen part of a reply. 4xx errors other than 429
// are never retried.
func WithRetry(m Model, p RetryPolicy) Model {
	if p.MaxAttempts < 1 {
		p.MaxAttempts = 1
	}
	return &retrying{model: m, policy: p}
}

type retrying struct {
	model  Model
	policy RetryPolicy
}

func (r *retrying) Stream(ctx context.Context, req Request) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for attempt := 1; ; attempt++ {
			var failed error
			yielded := false
			for ev, err := range r.model.Stream(ctx, req) {
				if err != nil {
					failed = err
					break
				}
				yielded = true
				if !yield(ev, nil) {
					return
				}
			}
			if failed == nil {
				return
			}
			wait, ok := r.backoff(attempt, failed)
			if yielded || !ok {
				yield(Event{}, failed)
				return
			}
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				yield(Event{}, ctx.Err())
				return
			case <-t.C:
			}
		}
	}
}

// backoff returns how long to wait before attempt+1, or false when the
// error is final.
func (r *retrying) backoff(attempt int, err error) (time.Duration, bool) {
	var e *Error
	if attempt >= r.policy.MaxAttempts || !errors.As(err, &e) || !e.Kind.Retryable() {
		return 0, false
	}
	if e.RetryAfter > 0 {
		if r.policy.MaxDelay > 0 && e.RetryAfter > r.policy.MaxDelay {
			return 0, false
		}
		return e.RetryAfter, true
	}
	d := r.policy.BaseDelay << (attempt - 1)
	if r.policy.MaxDelay > 0 && (d > r.policy.MaxDelay || d <= 0) {
		d = r.policy.MaxDelay
	}
	// Up to a quarter of jitter, so many clients do not retry in step;
	// MaxDelay still caps the total.
	if d > 0 {
		d += rand.N(d/4 + 1)
		if r.policy.MaxDelay > 0 {
			d = min(d, r.policy.MaxDelay)
		}
	}
	return d, true
}
