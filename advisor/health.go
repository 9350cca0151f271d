package advisor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// Health says whether an advisor is supervising, and if not why.
type Health string

// The states of an advisor's health.
const (
	// HealthRunning: it reviews the agent's steps.
	HealthRunning Health = "running"
	// HealthPaused: the user interrupted the agent; advice waits as cards
	// until the user goes on.
	HealthPaused Health = "paused"
	// HealthQuota: the provider's quota is exhausted; reviews wait until
	// Status.Until.
	HealthQuota Health = "quota exhausted"
	// HealthError: its last review attempt failed (Status.HealthDetail
	// says how); the next step tries again.
	HealthError Health = "error"
	// HealthStopped: the runtime is not running.
	HealthStopped Health = "stopped"
)

// quotaLatchAfter is the longest block of the provider's (a 429 with a
// Retry-After) that the advisor waits out and retries; a longer one is a
// quota window: the advisor latches, releases the agent from any wait for
// it, and reviews again once the window has passed.
const quotaLatchAfter = 2 * time.Minute

// quotaWait reports how long the provider asked to wait when err is a
// rate limit that said so.
func quotaWait(err error) (time.Duration, bool) {
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.RateLimited || e.RetryAfter <= 0 {
		return 0, false
	}
	return e.RetryAfter, true
}

// healthLocked is the runtime's health now. r.mu is held.
func (r *Runtime) healthLocked(now time.Time) (Health, string, time.Time) {
	switch {
	case !r.started || r.stopped:
		return HealthStopped, "", time.Time{}
	case now.Before(r.quotaUntil):
		return HealthQuota, r.healthDetail, r.quotaUntil
	case r.healthDetail != "":
		return HealthError, r.healthDetail, time.Time{}
	case r.latch.Stopped():
		return HealthPaused, "the user interrupted the agent", time.Time{}
	}
	return HealthRunning, "", time.Time{}
}

// quota handles a review the provider refused for its rate limit with a
// wait, which does not count toward the backlog's drop: a short one is
// waited out; a long one (a quota window) latches until it has passed: the
// agent is released from waiting for the advisor and the user is warned.
// Then the review is tried again, with the steps that came meanwhile
// (true), unless the runtime stopped.
func (r *Runtime) quota(ctx context.Context, err error, wait time.Duration) bool {
	until := time.Now().Add(wait)
	r.mu.Lock()
	r.quotaUntil, r.healthDetail = until, err.Error()
	long := wait > quotaLatchAfter
	if long {
		r.quotaLatched = true
		r.broadcastLocked() // release the agent's waits for the backlog
	}
	r.mu.Unlock()
	if long {
		msg := fmt.Sprintf("advisor: the model provider's quota is exhausted for %s (until %s; %v); the advisor waits and reviews again then, and the agent does not wait for it meanwhile",
			wait.Round(time.Second), until.Format("15:04"), err)
		r.warn(msg)
	} else {
		r.logf("advisor: rate limited; retrying in %s", wait.Round(time.Millisecond))
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	r.mu.Lock()
	r.quotaLatched = false
	r.quotaUntil = time.Time{}
	r.mu.Unlock()
	return ctx.Err() == nil // then the review is tried again
}
