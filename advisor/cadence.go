package advisor

import (
	"fmt"
	"strconv"
	"strings"
)

// Cadence is how often a runtime reviews the agent's steps with its model.
// The zero value reviews every step. Whatever the cadence, a step with a
// detector finding or signal is reviewed at once, and a run's last steps
// are reviewed when it ends, so nothing is left unreviewed at the end of a
// turn.
type Cadence struct {
	// Every reviews every Every-th step, with the updates of the steps
	// skipped in between in that one review; 0 and 1 review every step.
	Every int
	// Final reviews only when a run ends (the agent's final answer), with
	// the run's updates in one review.
	Final bool
}

// ParseCadence reads a cadence as settings write it: "every" (or ""),
// "final", or a whole number N ≥ 1 for every N-th step.
func ParseCadence(s string) (Cadence, error) {
	switch s = strings.TrimSpace(s); s {
	case "", "every":
		return Cadence{}, nil
	case "final":
		return Cadence{Final: true}, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return Cadence{}, fmt.Errorf("cadence %q: want every, final, or a whole number of steps ≥ 1", s)
	}
	return Cadence{Every: n}, nil
}

// String writes c as [ParseCadence] reads it.
func (c Cadence) String() string {
	switch {
	case c.Final:
		return "final"
	case c.Every > 1:
		return strconv.Itoa(c.Every)
	}
	return "every"
}

// cadenceWaits reports whether the review of the pending steps waits for
// a later step, by the cadence: not when the detectors found or signalled
// something, when a review is to be continued, or when a run ended.
func (r *Runtime) cadenceWaits() bool {
	c := r.opts.Cadence
	if !c.Final && c.Every <= 1 || r.continuing || r.runEnded || len(r.hints) > 0 || len(r.signals) > 0 {
		return false
	}
	return c.Final || r.sinceReview < c.Every
}
