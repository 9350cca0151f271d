package rules_test

import (
	"fmt"

	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// A gated advisor takes the steps one at a time as the agent runs, and
// wakes the model where a step has a finding or a signal.
func ExampleEngine_LastSignals() {
	e := rules.New(rules.DefaultSettings())
	run := []transcript.Step{
		bashStep(1, "go test ./...", "--- FAIL: TestParse (0.00s)\nFAIL\tparser\t0.012s", true),
		bashStep(2, "go test ./... || true", "--- FAIL: TestParse (0.00s)\nFAIL\tparser\t0.012s", false),
		bashStep(3, "git commit --no-verify -m 'parser done'", "[main 4f2a9c1] parser done", false),
	}
	for _, st := range run {
		findings := e.Observe(st)
		for _, s := range e.LastSignals() {
			fmt.Println(s)
		}
		_ = findings // a gate wakes the model on these too
	}
	// Output:
	// step 2 check-off: `|| true` in `go test ./... || true` after `go test ./...` failed at step 1
	// step 2 repeat-failure: `go test ./... || true` failed the same way as at step 1
	// step 3 check-off: `--no-verify` in `git commit --no-verify -m 'parser done'`
}
