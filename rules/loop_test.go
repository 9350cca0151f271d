package rules

import (
	"fmt"
	"testing"
)

func TestLoop(t *testing.T) {
	r := func(p string) st { return do(sh("cat "+p, "content of "+p, false)) }
	run := func(p string) st { return do(sh("python "+p+".py", "output of "+p, false)) }
	idle := say("I will continue with the next step now.")
	runCases(t, "no-progress-loop", []detectorCase{
		{"a cycle of reads retraced in order", []st{r("a"), r("b"), r("c"), r("d"), r("a"), r("b"), r("c"), r("d")}, []int{7}},
		{"the same reads in another order", []st{r("a"), r("b"), r("c"), r("d"), r("b"), r("a"), r("d"), r("c")}, []int{8}},
		{"two steps retraced, then something new", []st{r("a"), r("b"), r("c"), r("a"), r("b"), r("e"), r("f")}, nil},
		{"new results break the streak", []st{r("a"), r("b"), r("c"), r("a"), r("b"), r("e"), r("a"), r("b")}, nil},
		{"the same step again and again", []st{r("x"), idle, r("a"), r("a"), r("a"), r("a")}, nil}, // polling-finished's
		{"the same reply again and again", []st{idle, idle, idle, idle, idle}, []int{5}},
		{"two steps in turn", []st{run("a"), run("b"), run("a"), run("b"), run("a")}, []int{5}},
		{"another detector's episode wins", []st{
			do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)),
		}, nil},
	})
}

// TestLoopRetraced checks retracing with other settings and a window that
// has moved on.
func TestLoopRetraced(t *testing.T) {
	r := func(p string) st { return do(sh("cat "+p, "content of "+p, false)) }
	cycle := []st{r("a"), r("b"), r("c"), r("a"), r("b"), r("c")}
	for _, c := range []struct {
		name string
		s    Settings
		pre  int // new steps before the cycle
		want []int
	}{
		{"LoopSteps 3: two steps retraced", Settings{LoopSteps: 3}, 0, []int{5}},
		{"LoopSteps 2: never fewer than two", Settings{LoopSteps: 2}, 0, []int{5}},
		{"LoopSteps 6: five steps, too many for this cycle", Settings{LoopSteps: 6}, 0, nil},
		{"after the window has moved", Settings{Window: 8}, 20, []int{26}},
	} {
		var steps []st
		for i := range c.pre {
			steps = append(steps, r(fmt.Sprint("new", i)))
		}
		steps = append(steps, cycle...)
		var ends []int
		for _, f := range only(review(c.s, steps...), "no-progress-loop") {
			ends = append(ends, f.EndStep)
		}
		if fmt.Sprint(ends) != fmt.Sprint(c.want) {
			t.Errorf("%s: reported at steps %v, want %v", c.name, ends, c.want)
		}
	}
}
