package eval

import (
	"context"
	"iter"

	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// Reviewer reviews one run.
//
// Review is given the run's steps, in order, and returns its findings.
// It may stop ranging over steps early; it must not keep steps after it
// returns. It should return promptly with ctx's error when ctx is done.
// A Reviewer may be called for several runs, one after another; it must
// not carry anything from one run to the next.
type Reviewer interface {
	Review(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, error)
}

// RulesReviewer reviews with the zero-token detectors of package rules.
type RulesReviewer struct {
	// Settings tunes the detectors; zero fields take their defaults.
	Settings rules.Settings
}

// Review runs a fresh rules engine over the steps.
func (r RulesReviewer) Review(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, error) {
	e := rules.New(r.Settings)
	var out []rules.Finding
	for st := range steps {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		out = append(out, e.Observe(st)...)
	}
	return out, nil
}
