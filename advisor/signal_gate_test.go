package advisor

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// signalDetector finds nothing, but signals every assistant message that
// says LOOK: a reason for the model to look, never a note.
type signalDetector struct {
	failDetector
	pending []string
}

func (d *signalDetector) Observe(entries []session.Entry) []Advice {
	for _, e := range entries {
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant && strings.Contains(m.Message.Text(), "LOOK") {
			d.pending = append(d.pending, "check-off: `git commit --no-verify`")
		}
	}
	return d.failDetector.Observe(entries)
}

func (d *signalDetector) Signals() []string {
	s := d.pending
	d.pending = nil
	return s
}

// A gated runtime reviews with the model at a step that has a signal and
// no finding, and the update says what the rules saw; quiet steps stay
// unreviewed. Without the gate, and for the detector alone, a signal is
// nothing: it never reaches the agent by itself.
func TestSignalOpensTheGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, m := startBlockingWith(t, host, func(o *Options) { o.Detector = &signalDetector{}; o.Gate = true })
		defer r.Stop()
		r.Notify(host.step("STEP-quiet"))
		synctest.Wait()
		if s := r.Status(); s.Reviews != 0 {
			t.Fatalf("the gate let a quiet step through: %+v", s)
		}
		r.Notify(host.step("STEP-LOOK"))
		req := <-m.calls
		m.replies <- fakeReply{text: "ok"}
		text := lastUserText(req)
		for _, want := range []string{"STEP-quiet", "STEP-LOOK", "### Signals", "check-off: `git commit --no-verify`"} {
			if !strings.Contains(text, want) {
				t.Errorf("the gated update lacks %q:\n%s", want, text)
			}
		}
		if strings.Contains(text, "### Detector findings") {
			t.Errorf("an update with only a signal claims findings:\n%s", text)
		}
		r.Notify(host.step("STEP-quiet-again"))
		synctest.Wait()
		if s := r.Status(); s.Reviews != 1 {
			t.Errorf("reviews %d after a quiet step, want the one the signal opened", s.Reviews)
		}
	})
}

func TestSignalAloneIsNoNote(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, err := New(Options{Host: host, Detector: &signalDetector{}})
		if err != nil {
			t.Fatal(err)
		}
		r.Start(t.Context())
		defer r.Stop()
		r.Notify(host.step("STEP-LOOK"))
		synctest.Wait()
		host.mu.Lock()
		defer host.mu.Unlock()
		if len(host.steers)+len(host.asides) != 0 {
			t.Errorf("a signal reached the agent: steers %v, asides %v", host.steers, host.asides)
		}
	})
}
