package advisor

import (
	"context"
	"strings"
	"testing"
)

// withholdHost is a fakeHost that also shows withheld notes.
type withholdHost struct {
	*fakeHost
	withheld []Advice
}

func (h *withholdHost) Withhold(_ context.Context, n Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.withheld = append(h.withheld, n)
	return nil
}

// Issue 17 item 2: with Options.Withhold every note the guard lets
// through, of any severity and with the run idle (where a concern would
// resume it), goes to Withhold and nowhere else; the advisor is told so,
// the guard still drops a repeat, and the counters say what happened.
func TestRuntimeWithholdKeepsNotesFromTheAgent(t *testing.T) {
	srv, m := fakeServer(t, `
rules:
  - steps:
      - tool_calls:
          - name: advise
            arguments: {note: "Run the tests before committing.", severity: concern}
      - tool_calls:
          - name: advise
            arguments: {note: "Rename tmp to buffer for clarity.", severity: nit}
      - tool_calls:
          - name: advise
            arguments: {note: "Run the tests before committing.", severity: concern}
      - text: Sent.
`)
	host := &withholdHost{fakeHost: &fakeHost{}}
	h := startRuntime(t, m, func(o *Options) {
		o.Host = host
		o.Withhold = true
	})
	h.host = host.fakeHost
	for i, step := range []string{"committing now", "renamed things", "committing again"} {
		h.r.Notify(host.step(step))
		h.r.Notify(Event{Kind: EventRunEnded})
		h.waitFor(step, func(s Status) bool { return s.Reviews == i+1 })
	}

	host.mu.Lock()
	defer host.mu.Unlock()
	if len(host.steers)+len(host.asides)+len(host.cards)+host.resumes != 0 {
		t.Errorf("the agent was reached: steers %v, asides %v, cards %v, %d resumes", host.steers, host.asides, host.cards, host.resumes)
	}
	if len(host.withheld) != 2 || host.withheld[0].Severity != SeverityConcern || host.withheld[1].Severity != SeverityNit {
		t.Errorf("withheld %+v, want the concern then the nit", host.withheld)
	}
	if st := h.r.Status(); st.Withheld != 2 || st.Delivered != 0 {
		t.Errorf("status %+v, want 2 withheld and none delivered", st)
	}
	reqs := srv.Requests()
	// Reviews end with an advise call the runtime took; the third's is
	// dropped, so it goes on to its closing text.
	if len(reqs) != 4 {
		t.Fatalf("%d advisor requests, want 4", len(reqs))
	}
	if body := string(reqs[1].Body); !strings.Contains(body, "withheld from the agent") || !strings.Contains(body, withheldReason) {
		t.Errorf("the advisor was not told its note was withheld:\n%.2000s", body)
	}
	if body := string(reqs[3].Body); !strings.Contains(body, "Dropped, not delivered") {
		t.Errorf("the repeated note was not dropped by the guard:\n%.2000s", body)
	}
}

// Without Withhold the counters say the notes were delivered; a host
// that cannot show withheld notes still gets none of them.
func TestRuntimeWithholdCounters(t *testing.T) {
	script := `
rules:
  - steps:
      - tool_calls:
          - name: advise
            arguments: {note: "Run the tests before committing.", severity: concern}
`
	for _, withhold := range []bool{false, true} {
		_, m := fakeServer(t, script)
		h := startRuntime(t, m, func(o *Options) { o.Withhold = withhold })
		h.r.Notify(h.host.step("committing now"))
		h.waitFor("the review", func(s Status) bool { return s.Reviews == 1 })
		st := h.r.Status()
		h.host.mu.Lock()
		steers := len(h.host.steers)
		h.host.mu.Unlock()
		switch {
		case withhold && (st.Withheld != 1 || st.Delivered != 0 || steers != 0):
			t.Errorf("withheld: status %+v, %d steers; want 1 withheld, none delivered", st, steers)
		case !withhold && (st.Withheld != 0 || st.Delivered != 1 || steers != 1):
			t.Errorf("delivered: status %+v, %d steers; want 1 delivered", st, steers)
		}
	}
}
