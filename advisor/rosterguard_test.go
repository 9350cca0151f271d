package advisor

import (
	"strings"
	"testing"
)

// Two advisors of a roster review the same steps through one
// RosterGuard: the second cannot repeat the first's point, the agent gets
// one note per step from both (a blocker still goes through), the notes
// name their advisor, and a new step frees the slot.
func TestRosterGuardSpansAdvisors(t *testing.T) {
	_, ma := fakeServer(t, `
rules:
  - steps:
      - tool_calls: [{name: advise, arguments: {note: "The migration has no test; add one.", severity: concern}}]
`)
	srvB, mb := fakeServer(t, `
rules:
  - steps:
      - tool_calls: [{name: advise, arguments: {note: "the migration has no test, add one", severity: concern}}]
      - tool_calls:
          - {name: advise, arguments: {note: "The rollback script drops the users table.", severity: concern}}
          - {name: advise, arguments: {note: "Stop: the deploy targets production, not staging.", severity: blocker}}
      - tool_calls: [{name: advise, arguments: {note: "The rollback script drops the users table.", severity: concern}}]
      - text: Done.
`)
	g := NewRosterGuard(1)
	a := startRuntime(t, ma, func(o *Options) { o.Name, o.Roster = "tests", g })
	b := startRuntime(t, mb, func(o *Options) { o.Name, o.Roster = "safety", g })
	b.host = a.host // one agent watched by both
	b.r.opts.Host = a.host

	a.r.Notify(a.host.step("wrote the migration"))
	a.waitFor("the first advisor's review", func(s Status) bool { return s.Reviews == 1 })
	b.r.Notify(Event{Kind: EventStepEnded, Cursor: len(a.host.entries)})
	b.waitFor("the second advisor's review", func(s Status) bool { return s.Reviews == 1 })

	a.host.mu.Lock()
	steers := append([]Advice(nil), a.host.steers...)
	a.host.mu.Unlock()
	if len(steers) != 2 || steers[0].Advisor != "tests" || steers[1].Advisor != "safety" || steers[1].Severity != SeverityBlocker {
		t.Fatalf("steers %+v, want the first advisor's concern and the second's blocker", steers)
	}
	if got := FormatAdvisories(steers[1:]); !strings.HasPrefix(got, `<advisory advisor="safety" severity="blocker"`) {
		t.Errorf("the blocker renders as %q", got)
	}

	// The agent's next step frees the slot.
	g.NewStep()
	b.r.Notify(b.hostStep(a.host, "fixed the deploy target"))
	b.waitFor("the second advisor's next review", func(s Status) bool { return s.Reviews == 2 })
	// (its first review ended with the held and the blocker's results: it
	// reads them in this one's requests)
	var results []string
	for _, r := range srvB.Requests() {
		results = append(results, string(r.Body))
	}
	joined := strings.Join(results, "\n")
	for _, w := range []string{"a note of another advisor of this session", "already gave the agent 1 note since its last step"} {
		if !strings.Contains(joined, w) {
			t.Errorf("the second advisor was not told %q", w)
		}
	}
	a.host.mu.Lock()
	defer a.host.mu.Unlock()
	// (as an aside or a steer, as the immune turns route it)
	got := append(append([]Advice(nil), a.host.steers[2:]...), a.host.asides...)
	if len(got) != 1 || got[0].Note != "The rollback script drops the users table." || got[0].Advisor != "safety" {
		t.Errorf("after a new step: delivered %+v, want the second advisor's refused concern", got)
	}
}

// hostStep appends a step to host and returns its event.
func (h *harness) hostStep(host *fakeHost, text string) Event { return host.step(text) }
