package advisor

import (
	"testing"
	"time"
)

// The tests of this file and periodic_review_test.go are the acceptance
// checklist of the periodic mode (openclaw-advisor.md §3.2), item by
// item; each test's comment names its item.

// §3.2 item 1: with everyToolCalls N, the N-th counted call makes a
// review due; once every call is settled it forks exactly once, and the
// counter resets.
func TestPeriodicToolCallTrigger(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 3}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		x.call("c1")
		x.call("c2")
		x.noFork("after two calls of three")
		x.call("c3")
		c := x.fork()
		if st := x.p.Status(); !st.InFlight || st.ToolCalls != 3 {
			t.Errorf("status during the review: %+v", st)
		}
		x.answer(c, "NO_CHANGE")
		x.noFork("a second time for the same calls")
		if st := x.p.Status(); st.ToolCalls != 0 || st.Reviews != 1 || st.Due {
			t.Errorf("status after the review: %+v, want the counter reset", st)
		}
		// The next interval needs three calls again.
		x.call("c4")
		x.call("c5")
		x.noFork("after two calls of the second interval")
		x.call("c6")
		x.answer(x.fork(), "NO_CHANGE")
	})
}

// §3.2 item 1, across runs: counters carry from one run of the session
// to the next.
func TestPeriodicCountsAcrossRuns(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 3}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		x.call("c1")
		x.call("c2")
		x.runEnded("r1")
		x.runStarted("r2", "")
		x.call("c3")
		x.answer(x.fork(), "NO_CHANGE")
	})
}

// Issue 17 item 3: a run the user resumed is the user's work, counted and
// reviewed like a prompted one, and its counters carry from the run it
// resumed; the advisor's own resume is not.
func TestPeriodicCountsTheUsersResume(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 2}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		x.call("c1")
		x.runEnded("r1")
		x.runStarted("r2", TriggerAdvisor)
		x.call("c2")
		x.noFork("after a call of the advisor's own resume")
		x.runEnded("r2")
		x.runStarted("r3", TriggerResume)
		x.call("c3")
		x.answer(x.fork(), "NO_CHANGE")
		if st := x.p.Status(); st.Reviews != 1 {
			t.Errorf("status %+v, want one review", st)
		}
	})
}

// §3.2 item 2: with everyToolCalls 0 and everyMinutes M, enough
// accumulated run time makes a review due; time between runs does not
// count. The fork is the host's, on the session's own model: the options
// have no model to override it with.
func TestPeriodicMinutesTrigger(t *testing.T) {
	bubble(t, PeriodicOptions{EveryMinutes: 1}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		x.started(agentCall("c1"))
		time.Sleep(40 * time.Second)
		x.settled(agentCall("c1"))
		x.runEnded("r1")
		time.Sleep(10 * time.Minute) // idle: not run time
		x.runStarted("r2", TriggerUser)
		x.started(agentCall("c2"))
		time.Sleep(15 * time.Second)
		x.settled(agentCall("c2"))
		x.noFork("after 55s of run time")
		x.started(agentCall("c3"))
		time.Sleep(10 * time.Second)
		x.settled(agentCall("c3"))
		c := x.fork()
		if st := x.p.Status(); st.RunTime != 65*time.Second {
			t.Errorf("run time at the review %v, want 65s (40s + 25s)", st.RunTime)
		}
		x.answer(c, "NO_CHANGE")
		if st := x.p.Status(); st.RunTime != 0 {
			t.Errorf("run time after the review %v, want 0", st.RunTime)
		}
	})
}

// §3.2 item 3: runs the user did not start (a heartbeat, a cron job, a
// memory flush, an overflow, the advisor's own resume) and runs with no
// name never count or review.
func TestPeriodicIgnoresRunsNotTheUsers(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1, EveryMinutes: 1}, func(x *pt) {
		for i, trigger := range []string{"heartbeat", "cron", "memory", "overflow", TriggerAdvisor} {
			run := string(rune('a' + i))
			x.runStarted(run, trigger)
			x.started(agentCall(run))
			time.Sleep(2 * time.Minute)
			x.settled(agentCall(run))
			x.runEnded(run)
		}
		x.runStarted("", TriggerUser)
		x.call("unnamed")
		x.noFork("in a run that is not the user's")
		if st := x.p.Status(); st.ToolCalls != 0 || st.RunTime != 0 || st.Due {
			t.Errorf("status %+v, want nothing counted", st)
		}
	})
}

// §3.2 item 4: with both triggers 0 the runtime warns once and schedules
// nothing.
func TestPeriodicBothTriggersOff(t *testing.T) {
	bubble(t, PeriodicOptions{}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		for range 20 {
			x.call("c")
		}
		x.noFork("with both triggers off")
		if w := x.warns(); len(w) != 1 || w[0] != "advisor: both everyToolCalls and everyMinutes are 0, so no periodic review will run; set either above 0" {
			t.Errorf("warnings %q, want exactly one", w)
		}
		if st := x.p.Status(); !st.Off || st.ToolCalls != 0 {
			t.Errorf("status %+v", st)
		}
	})
}

// §3.2 item 11: no fork while a call runs (a native command item in
// progress); the fork comes at its completion.
func TestPeriodicWaitsForRunningCall(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		cmd := CallKey{Source: "native", ID: "item-1"}
		x.started(cmd)
		x.noFork("while the command runs")
		x.settled(cmd)
		x.answer(x.fork(), "NO_CHANGE")
	})
}

// §3.2 item 12 (fails without its fix): a call that owns nested calls
// settles only when it records its own output; a child finishing while
// it is open does not trigger the fork.
func TestPeriodicNestedCallSettlesWithItsOwnOutput(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		outer := CallKey{Source: "code", ID: "exec-1"}
		x.started(outer)
		child1 := CallKey{Source: "native", ID: "cmd-1"}
		x.started(child1, outer)
		x.settled(child1, outer)
		x.noFork("when the first child finished, with the outer call open")
		child2 := CallKey{Source: "native", ID: "cmd-2"}
		x.started(child2, outer)
		x.settled(child2, outer)
		x.noFork("when the second child finished, with the outer call open")
		x.settled(outer)
		x.answer(x.fork(), "NO_CHANGE")
		if n := x.p.Status().Reviews; n != 1 {
			t.Errorf("%d reviews, want 1: the outer call is one call", n)
		}
	})
}

// §3.2 item 13 (fails without its fix): a raw call and a native child
// with the same ID settle separately; completing one leaves the other
// pending, in either order.
func TestPeriodicSharedIDSettlesSeparately(t *testing.T) {
	raw := CallKey{Source: "raw", ID: "call_7"}
	native := CallKey{Source: "native", ID: "call_7"}
	t.Run("child first", func(t *testing.T) {
		bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
			x.runStarted("r1", TriggerUser)
			x.started(raw)
			x.started(native, raw)
			x.settled(native, raw)
			x.noFork("with the raw call still running")
			x.settled(raw)
			x.answer(x.fork(), "NO_CHANGE")
		})
	})
	t.Run("raw first", func(t *testing.T) {
		bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
			x.runStarted("r1", TriggerUser)
			x.started(raw)
			x.started(native, raw)
			x.settled(raw)
			x.noFork("with the native child still running")
			x.settled(native, raw)
			x.answer(x.fork(), "NO_CHANGE")
		})
	})
}

// §3.2 item 14 (fails without its fix): a review queued before another
// call starts stands down at dispatch, does not fork, stays due, and
// forks after that call's result.
func TestPeriodicDispatchRecheck(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		// Hold the runtime's goroutine between queueing and dispatch.
		hold, release := make(chan struct{}), make(chan struct{})
		x.p.beforeDispatch = func() {
			hold <- struct{}{}
			<-release
		}
		x.runStarted("r1", TriggerUser)
		x.started(agentCall("c1"))
		x.p.Notify(Event{Kind: EventToolSettled, Call: agentCall("c1")})
		<-hold // the review is queued; dispatch waits
		x.p.Notify(Event{Kind: EventToolStarted, Call: agentCall("c2")})
		x.p.beforeDispatch = nil
		release <- struct{}{}
		x.noFork("over a call that started after the review was queued")
		x.logged("review stood down")
		if st := x.p.Status(); !st.Due || st.StoodDown != 1 || st.Reviews != 0 {
			t.Errorf("status after standing down: %+v, want still due", st)
		}
		x.settled(agentCall("c2"))
		x.answer(x.fork(), "NO_CHANGE")
		if st := x.p.Status(); st.Reviews != 1 || st.ToolCalls != 0 {
			t.Errorf("status after the review: %+v", st)
		}
	})
}

// §3.2 item 15: one review in flight per session; due conditions met
// during it start no other.
func TestPeriodicOneReviewInFlight(t *testing.T) {
	bubble(t, PeriodicOptions{EveryToolCalls: 1}, func(x *pt) {
		x.runStarted("r1", TriggerUser)
		x.call("c1")
		c := x.fork()
		x.call("c2")
		x.call("c3")
		x.noFork("while a review is in flight")
		x.answer(c, "NO_CHANGE")
		x.noFork("for the calls made during the review, which it settled")
		x.call("c4")
		x.answer(x.fork(), "NO_CHANGE")
	})
}
