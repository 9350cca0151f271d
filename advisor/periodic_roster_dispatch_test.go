package advisor

import (
	"testing"
	"testing/synctest"
)

// The reviews a roster queues at one boundary dispatch as one: when one
// member has already forked, a member whose goroutine reaches dispatch
// only after the agent's next call started forks too (its host's fork ends
// at the settled point) instead of standing down, so both corrections
// reach the same request. Without the shared decision the late member
// stood down and its correction came a step later
// (TestClaudeCodeAttachedPeriodicRoster failed 4 in 10 under -race on it).
func TestPeriodicRosterDispatchesABoundaryTogether(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		g := NewRosterGuard(2)
		tests := periodic(t, PeriodicOptions{EveryToolCalls: 1, Name: "tests", Roster: g})
		defer tests.p.Stop()
		scope := periodic(t, PeriodicOptions{EveryToolCalls: 1, Name: "scope", Roster: g})
		defer scope.p.Stop()
		r := &PeriodicRoster{Members: []*Periodic{tests.p, scope.p}, Guard: g}

		hold, release := make(chan struct{}), make(chan struct{})
		scope.p.beforeDispatch = func() {
			hold <- struct{}{}
			<-release
		}
		r.Notify(Event{Kind: EventRunStarted, Run: "r1", Trigger: TriggerUser})
		r.Notify(Event{Kind: EventToolStarted, Call: agentCall("c1")})
		r.Notify(Event{Kind: EventToolSettled, Call: agentCall("c1")})
		<-hold          // scope's review is queued; its dispatch waits
		synctest.Wait() // tests' has dispatched: its fork waits for an answer
		r.Notify(Event{Kind: EventToolStarted, Call: agentCall("c2")})
		scope.p.beforeDispatch = nil
		release <- struct{}{}

		tests.answer(tests.fork(), "CORRECTION\nFIX-TESTS read check.c:12.")
		scope.answer(scope.fork(), "CORRECTION\nFIX-SCOPE leave the other files alone.")
		for _, x := range []*pt{tests, scope} {
			if s := x.host.steerCalls(); len(s) != 1 || s[0].run != "r1" {
				t.Errorf("%s steered %+v, want its correction into r1", x.p.opts.Name, s)
			}
		}
		if st := scope.p.Status(); st.StoodDown != 0 || st.Steered != 1 {
			t.Errorf("scope's status %+v, want it steered, not stood down", st)
		}

		// A boundary whose first dispatch finds a call started since
		// stands down for every member: both stay due and fork after
		// that call's result.
		r.Notify(Event{Kind: EventToolSettled, Call: agentCall("c2")})
		synctest.Wait()
		hold2, release2 := make(chan struct{}), make(chan struct{})
		tests.p.beforeDispatch = func() { hold2 <- struct{}{}; <-release2 }
		scope.p.beforeDispatch = func() { hold2 <- struct{}{}; <-release2 }
		r.Notify(Event{Kind: EventToolStarted, Call: agentCall("c3")})
		r.Notify(Event{Kind: EventToolSettled, Call: agentCall("c3")})
		<-hold2
		<-hold2
		r.Notify(Event{Kind: EventToolStarted, Call: agentCall("c4")})
		tests.p.beforeDispatch, scope.p.beforeDispatch = nil, nil
		release2 <- struct{}{}
		release2 <- struct{}{}
		tests.noFork("over a call that started after the review was queued")
		scope.noFork("over a call that started after the review was queued")
		r.Notify(Event{Kind: EventToolSettled, Call: agentCall("c4")})
		tests.answer(tests.fork(), "NO_CHANGE")
		scope.answer(scope.fork(), "NO_CHANGE")
		for _, x := range []*pt{tests, scope} {
			if st := x.p.Status(); st.StoodDown != 1 || st.NoChange != 1 {
				t.Errorf("%s's status %+v, want one stand-down, then a review", x.p.opts.Name, st)
			}
		}
	})
}
