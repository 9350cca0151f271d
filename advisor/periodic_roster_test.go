package advisor

import (
	"errors"
	"strings"
	"testing"
	"testing/synctest"
)

// Three periodic advisors of a roster review the same run through one
// RosterGuard of one note per step: the first correction is steered and
// names its advisor, the same point from another is held back as a
// duplicate, a third's different point is held back by the cap; a
// blocker would be exempt but a periodic correction is a concern. At the
// next step the slot is free again. Each advisor's log lines and
// warnings name it.
func TestPeriodicRosterGuard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewRosterGuard(1)
		var xs []*pt
		for _, name := range []string{"tests", "scope", "style"} {
			x := periodic(t, PeriodicOptions{EveryToolCalls: 1, Name: name, Roster: g})
			defer x.p.Stop()
			xs = append(xs, x)
		}
		for _, x := range xs {
			x.runStarted("r1", TriggerUser)
			x.call("c1")
		}
		forks := []forkCall{xs[0].fork(), xs[1].fork(), xs[2].fork()}
		xs[0].answer(forks[0], "CORRECTION\nRead check.yml: the key timout is misspelt.")
		xs[1].answer(forks[1], "CORRECTION\nread check.yml — the key timout is misspelt")
		xs[2].answer(forks[2], "CORRECTION\nThe task never asked for a refactor of main.go.")
		s := xs[0].host.steerCalls()
		if len(s) != 1 || s[0].note.Advisor != "tests" {
			t.Fatalf("tests steered %+v, want one note named tests", s)
		}
		if s := xs[1].host.steerCalls(); len(s) != 0 {
			t.Errorf("scope steered the same point again: %+v", s)
		}
		if s := xs[2].host.steerCalls(); len(s) != 0 {
			t.Errorf("style steered over the roster's cap: %+v", s)
		}
		xs[0].logged("advisor tests: steered active run")
		xs[1].logged("advisor scope: correction held back (it repeats a note of another advisor of this session")
		xs[2].logged("advisor style: correction held back (the advisors of this session already gave the agent 1 note")
		if st := xs[2].p.Status(); st.Held != 1 || st.Reviews != 1 || st.Last != OutcomeHeld {
			t.Errorf("style's status %+v, want one settled review held back", st)
		}

		// The agent's next step frees the slot: style says it again and
		// it goes through.
		g.NewStep()
		xs[2].call("c2")
		xs[2].answer(xs[2].fork(), "CORRECTION\nThe task never asked for a refactor of main.go.")
		if s := xs[2].host.steerCalls(); len(s) != 1 || s[0].note.Advisor != "style" {
			t.Errorf("style after a new step steered %+v, want its note", s)
		}

		// A failure's warning names the advisor.
		xs[1].call("c3")
		xs[1].fail(xs[1].fork(), errors.New("boom"))
		if w := xs[1].warns(); len(w) != 1 || !strings.HasPrefix(w[0], "advisor scope: review failed: boom") {
			t.Errorf("scope's warnings %q, want one naming it", w)
		}
	})
}

// A held-back note gives its slot back when the steer does not land: a
// correction for a run that ended takes none of the roster's slots.
func TestPeriodicRosterReleasesUndelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewRosterGuard(1)
		x := periodic(t, PeriodicOptions{EveryToolCalls: 1, Name: "tests", Roster: g})
		defer x.p.Stop()
		x.host.result = SteerResult{Outcome: SteerRunEnded}
		x.runStarted("r1", TriggerUser)
		x.call("c1")
		x.answer(x.fork(), "CORRECTION\nRead check.yml.")
		if d := g.reserve(Advice{Note: "Something else entirely.", Severity: SeverityConcern}); !d.Deliver {
			t.Errorf("an undelivered correction kept the slot: %s", d.Reason)
		}
	})
}
