package advisor

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
)

// With a Detector, a signal in the agent's new entries pulls a periodic
// review forward, long before its trigger, and the review's prompt says
// what the rules saw; a quiet step does not, the history before the start
// pulls nothing, and the review's settling ends the pull (issue 29).
func TestPeriodicPulledForwardBySignal(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		x := unstarted(t, PeriodicOptions{EveryToolCalls: 100, Detector: &signalDetector{}})
		_ = x.host.step("LOOK at this old step") // before the start: priming only
		x.p.Start(context.Background())
		defer x.p.Stop()
		x.runStarted("r1", TriggerUser)
		_ = x.host.step("STEP-quiet")
		x.call("c1")
		x.noFork("after a quiet step, 1 of 100 calls")
		_ = x.host.step("STEP-LOOK")
		x.call("c2")
		c := x.fork()
		if !strings.Contains(c.prompt, "### What the rules saw") || !strings.Contains(c.prompt, "check-off: `git commit --no-verify`") {
			t.Errorf("the review's prompt lacks what the rules saw:\n%s", c.prompt)
		}
		x.answer(c, "NO_CHANGE")
		x.logged("a review is due now")
		_ = x.host.step("STEP-quiet-again")
		x.call("c3")
		x.noFork("after the pulled review settled, on a quiet step")
		if st := x.p.Status(); st.Reviews != 1 || st.Due {
			t.Errorf("status %+v, want one review and none due", st)
		}
	})
}
