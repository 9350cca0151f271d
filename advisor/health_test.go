package advisor

import (
	"context"
	"strings"
	"testing"
	"time"
)

// A provider's short block (a 429 with Retry-After under quotaLatchAfter)
// is waited out and the review retried, without dropping the backlog; a
// long one latches: health says quota exhausted until when, the agent
// does not wait for the advisor, and the user is warned.
func TestRuntimeQuota(t *testing.T) {
	t.Run("short block is waited out", func(t *testing.T) {
		_, m := fakeServer(t, `
rules:
  - steps:
      - fault: {status: 429, retry_after: 1s, message: slow down}
      - text: Reviewed.
`)
		h := startRuntime(t, m, nil)
		h.r.Notify(h.host.step("ran the tests"))
		h.waitFor("the retried review", func(s Status) bool { return s.Reviews == 1 })
		st := h.r.Status()
		if st.Failures != 1 || st.Dropped != 0 || st.Health != HealthRunning || st.HealthDetail != "" {
			t.Errorf("status %+v, want one failure, nothing dropped, running", st)
		}
	})
	t.Run("long block latches", func(t *testing.T) {
		_, m := fakeServer(t, `
rules:
  - steps:
      - fault: {status: 429, retry_after: 3600s, message: "daily quota exhausted"}
`)
		h := startRuntime(t, m, nil)
		h.r.Notify(h.host.step("ran the tests"))
		var warning string
		select {
		case warning = <-h.warn:
		case <-time.After(bound):
			t.Fatal("no warning of the exhausted quota")
		}
		if !strings.Contains(warning, "quota is exhausted for 1h0m0s") || !strings.Contains(warning, "the agent does not wait for it") {
			t.Errorf("warning %q", warning)
		}
		st := h.r.Status()
		if st.Health != HealthQuota || time.Until(st.Until) < 50*time.Minute || !strings.Contains(st.HealthDetail, "daily quota exhausted") {
			t.Errorf("status %+v, want quota exhausted for about an hour", st)
		}
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		if err := h.r.WaitBacklogBelow(ctx, 1); err != nil {
			t.Errorf("the agent waits for a latched advisor: %v", err)
		}
		h.r.Stop() // ends the wait
		if st := h.r.Status(); st.Health != HealthStopped {
			t.Errorf("after Stop: %s", st.Health)
		}
	})
}
