package eval

import (
	"context"
	"iter"
	"strings"

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

// A SignalReviewer is a Reviewer that also reports signals: the steps
// where something may be going wrong, which wake a gated advisor
// (package rules documents them). Evaluate scores the signals of a
// reviewer that implements it; ReviewSignals takes the place of Review
// and is called under the same contract.
type SignalReviewer interface {
	Reviewer
	ReviewSignals(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, []rules.Signal, error)
}

// RulesReviewer reviews with the zero-token detectors of package rules.
type RulesReviewer struct {
	// Settings tunes the detectors; zero fields take their defaults.
	Settings rules.Settings
}

// Review runs a fresh rules engine over the steps.
func (r RulesReviewer) Review(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, error) {
	out, _, err := r.ReviewSignals(ctx, steps)
	return out, err
}

// ReviewSignals runs a fresh rules engine over the steps and returns its
// findings and signals.
func (r RulesReviewer) ReviewSignals(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, []rules.Signal, error) {
	e := rules.New(r.Settings)
	var out []rules.Finding
	var sigs []rules.Signal
	for st := range steps {
		if err := ctx.Err(); err != nil {
			return out, sigs, err
		}
		out = append(out, e.Observe(st)...)
		for _, s := range e.LastSignals() {
			s.Detail = strings.Clone(s.Detail)
			sigs = append(sigs, s)
		}
	}
	return out, sigs, nil
}
