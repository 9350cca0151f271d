package advisor

import (
	"strings"
	"testing"
	"testing/synctest"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// failDetector raises a concern for every assistant message saying FAIL.
type failDetector struct{ resets int }

func (d *failDetector) Observe(entries []session.Entry) []Advice {
	var out []Advice
	for _, e := range entries {
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant && strings.Contains(m.Message.Text(), "FAIL") {
			out = append(out, Advice{Note: "The same command failed again; read its error before rerunning it.", Severity: SeverityConcern})
		}
	}
	return out
}

func (d *failDetector) Reset() { d.resets++ }

func TestDetectorAlone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, err := New(Options{Host: host, Detector: &failDetector{}})
		if err != nil {
			t.Fatal(err)
		}
		r.Start(t.Context())
		defer r.Stop()
		r.Notify(host.step("ok so far"))
		r.Notify(host.step("FAIL once"))
		synctest.Wait()
		r.Notify(host.step("FAIL twice"))
		synctest.Wait()
		host.mu.Lock()
		steers := len(host.steers)
		host.mu.Unlock()
		if steers != 1 {
			t.Errorf("%d steers, want 1: the repeat of the same note is dropped by the guard", steers)
		}
		if s := r.Status(); s.Reviews < 2 || s.Backlog != 0 || s.Usage.Total() != 0 {
			t.Errorf("status %+v: want reviews, no backlog and no tokens", s)
		}
	})
}

func TestDetectorGatesTheModel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		r, m := startBlockingWith(t, host, func(o *Options) { o.Detector = &failDetector{}; o.Gate = true })
		defer r.Stop()
		r.Notify(host.step("STEP-quiet-1"))
		r.Notify(host.step("STEP-quiet-2"))
		synctest.Wait()
		if s := r.Status(); s.Reviews != 0 || s.Backlog != 0 {
			t.Fatalf("the gate let a quiet step through, or left a backlog: %+v", s)
		}
		r.Notify(host.step("STEP-FAIL"))
		req := <-m.calls
		m.replies <- fakeReply{text: "ok"}
		text := lastUserText(req)
		for _, want := range []string{"STEP-quiet-1", "STEP-FAIL", "### Detector findings", "[concern] The same command failed again"} {
			if !strings.Contains(text, want) {
				t.Errorf("gated update lacks %q:\n%s", want, text)
			}
		}
	})
}

func TestDetectorHintsWithoutGate(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		host := &fakeHost{}
		d := &failDetector{}
		r, m := startBlockingWith(t, host, func(o *Options) { o.Detector = d })
		defer r.Stop()
		r.Notify(host.step("STEP-quiet"))
		req := <-m.calls
		m.replies <- fakeReply{text: "ok"}
		if strings.Contains(lastUserText(req), "Detector findings") {
			t.Errorf("a quiet update carries detector findings")
		}
		r.Notify(host.step("STEP-FAIL ```` with backticks"))
		req = <-m.calls
		m.replies <- fakeReply{text: "ok"}
		if !strings.Contains(lastUserText(req), "### Detector findings") {
			t.Errorf("the update lacks the detector's finding")
		}
		r.Notify(Event{Kind: EventHistoryRewritten})
		synctest.Wait()
		if d.resets != 1 {
			t.Errorf("detector reset %d times after a rewrite, want 1", d.resets)
		}
	})
}
