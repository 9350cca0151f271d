package rules

import (
	"fmt"
	"testing"
)

func TestEmptyProbes(t *testing.T) {
	probes := func(n int) []st {
		out := make([]st, 0, n)
		for i := range n {
			out = append(out, do(sh(fmt.Sprintf("curl -s https://registry.example/v2/repositories/guess%d/ | grep -o name", i), "", false)))
		}
		return out
	}
	found := do(sh("curl -s https://registry.example/v2/repositories/real/ | grep -o name", "name", false))
	runCases(t, "empty-probes", []detectorCase{
		{"six guesses that find nothing", probes(6), []int{6}},
		{"five are not yet", probes(5), nil},
		{"one that finds something ends the row", append(append(probes(3), found), probes(3)...), nil},
		{"silent programs do not count", []st{
			do(sh("mkdir -p a", "", false)), do(sh("mkdir -p b", "", false)), do(sh("mkdir -p c", "", false)),
			do(sh("mkdir -p d", "", false)), do(sh("mkdir -p e", "", false)), do(sh("mkdir -p f", "", false)),
		}, nil},
	})
}
