package rules

import "testing"

func TestLoop(t *testing.T) {
	r := func(p string) st { return do(sh("cat "+p, "content of "+p, false)) }
	idle := say("I will continue with the next step now.")
	runCases(t, "no-progress-loop", []detectorCase{
		{"a cycle of reads with nothing new", []st{r("a"), r("b"), r("c"), r("d"), r("a"), r("b"), r("c"), r("d")}, []int{8}},
		{"new results break the streak", []st{r("a"), r("b"), r("c"), r("a"), r("b"), r("e"), r("a"), r("b")}, nil},
		{"the same reply again and again", []st{idle, idle, idle, idle, idle}, []int{5}},
		{"another detector's episode wins", []st{
			do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)),
		}, nil},
	})
}
