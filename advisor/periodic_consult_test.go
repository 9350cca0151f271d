package advisor

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// textRecorder is a Recorder that keeps the texts it is given.
type textRecorder struct{ texts []string }

func (r *textRecorder) Record(m llm.Message, _ llm.Usage) { r.texts = append(r.texts, m.Text()) }

// A periodic consult is a fork like a review: it waits for the review in
// flight, forks with the question in its prompt, and answers escaped; no
// review starts while it runs and the review counters are left alone.
func TestPeriodicConsultIsAFork(t *testing.T) {
	rec := &textRecorder{}
	bubble(t, PeriodicOptions{EveryToolCalls: 1, Recorder: rec}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		x.call("c1")
		review := x.fork() // a review in flight
		res := consultAsync(x.t.Context(), x.p, "Should I <force> push?")
		synctest.Wait()
		select {
		case got := <-res:
			t.Fatalf("consult returned %+v during a review", got)
		default:
		}
		x.answer(review, "NO_CHANGE")
		c := x.fork()
		if !strings.HasPrefix(c.prompt, ConsultHeading) || !strings.Contains(c.prompt, "<question>\nShould I &lt;force&gt; push?\n</question>") {
			t.Errorf("consult prompt %q", c.prompt)
		}
		x.call("c2") // due again, but a consult is in flight
		x.noFork("during a consult")
		x.answer(c, "No: rebase & push.")
		got := <-res
		if got.err != nil || got.answer != "No: rebase &amp; push." {
			t.Fatalf("consult = %+v", got)
		}
		st := x.p.Status()
		if st.Reviews != 1 || st.Consults != 1 || st.ConsultUsage.CacheRead != 20000 || st.Usage.CacheRead != 40000 || st.ToolCalls != 1 {
			t.Errorf("status %+v", st)
		}
		if len(rec.texts) != 4 || !strings.HasPrefix(rec.texts[2], ConsultHeading) || rec.texts[3] != "No: rebase & push." {
			t.Errorf("recorded %q", rec.texts)
		}
		x.call("c3") // the next settlement queues the review that came due
		x.answer(x.fork(), "NO_CHANGE")
	})
}

// A periodic consult has a timeout and a per-run cap.
func TestPeriodicConsultLimits(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 5, ConsultTimeout: 5 * time.Second, ConsultMaxPerRun: 1}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		_, err := x.p.Consult(x.t.Context(), "Is anyone there?") // the fork is never answered
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timeoutSeconds") {
			t.Fatalf("unanswered consult: %v", err)
		}
		if _, err := x.p.Consult(x.t.Context(), "Again?"); !errors.Is(err, ErrConsultLimit) {
			t.Fatalf("second consult of the run: %v", err)
		}
		x.runEnded("r1")
		x.runStarted("r2", TriggerUser)
		res := consultAsync(x.t.Context(), x.p, "New run?")
		x.answer(x.fork(), "Yes.")
		if got := <-res; got.err != nil || got.answer != "Yes." {
			t.Fatalf("consult of the next run = %+v", got)
		}
		if st := x.p.Status(); st.Consults != 1 || st.ConsultFailures != 1 || st.ConsultsRefused != 1 {
			t.Errorf("status %+v", st)
		}
	})
	bubble(t, PeriodicOptions{EveryToolCalls: 5, Withhold: true}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		if _, err := x.p.Consult(x.t.Context(), "Anyone?"); !errors.Is(err, ErrConsultWithheld) {
			t.Errorf("consult with corrections withheld: %v", err)
		}
		x.noFork("for a withheld consult")
	})
}
