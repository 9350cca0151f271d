package advisorhost_test

import (
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
)

// BenchmarkBlockerDelivery measures how soon an advisor's note reaches the
// primary's model when the primary is in a request that takes 5 s (a
// fakellm delay) and the note is ready 0.3 s into it: from Host.Steer to
// fakellm receiving a request that carries the note. A blocker aborts the
// request and sends it again with the note; a concern waits for the step
// boundary, after the 5 s reply. One iteration is one such turn; run with
// -benchtime=3x.
func BenchmarkBlockerDelivery(b *testing.B) {
	for _, sev := range []advisor.Severity{advisor.SeverityBlocker, advisor.SeverityConcern} {
		b.Run(string(sev), func(b *testing.B) {
			var total time.Duration
			for range b.N {
				total += blockerLatency(b, sev)
			}
			b.ReportMetric(total.Seconds()*1000/float64(b.N), "ms-ready-to-request")
		})
	}
}

// blockerLatency runs one turn and returns the time from the note being
// ready to the first request that carries it.
func blockerLatency(b *testing.B, sev advisor.Severity) time.Duration {
	b.StopTimer()
	w := newWorld(b, `
rules:
  - steps:
      - text: I will now rewrite the parser from scratch.
        delay: 5s
      - text: OK, I will not.
`)
	ready := make(chan time.Time, 1)
	var timer *time.Timer
	first := true
	w.ag.Subscribe(func(ev agent.Event) {
		if ev.Type != agent.EventStepStart || !first {
			return
		}
		first = false
		timer = time.AfterFunc(300*time.Millisecond, func() {
			at := time.Now()
			if err := w.host.Steer(b.Context(), advisor.Advice{Note: "NOTE-READY", Severity: sev}); err != nil {
				b.Error(err)
			}
			ready <- at
		})
	})
	b.StartTimer()
	if err := w.ag.Prompt(b.Context(), "make the parser faster"); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	at := <-ready
	timer.Stop()
	for _, r := range w.srv.Requests() {
		if strings.Contains(string(r.Body), "NOTE-READY") {
			return r.Time.Sub(at)
		}
	}
	b.Fatal("no request carried the note")
	return 0
}
