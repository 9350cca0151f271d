package advisor

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vigil-dev/vigil/session"
)

// A Detector is a zero-token reviewer: code that recognises off-course
// patterns (the same command failing again, a claim of success after a
// failing run) in the transcript. A runtime uses one on its own, in place
// of a model ([Options.Model] nil), or as a gate in front of the model
// ([Options.Gate]). The runtime calls it from its drain goroutine only.
type Detector interface {
	// Observe is given the advisor-visible entries of the transcript, each
	// once and in order, and returns a note for each pattern that starts
	// or grows in them.
	Observe(entries []session.Entry) []Advice
	// Reset forgets what was observed, after a history rewrite.
	Reset()
}

// observe runs the detector over entries and keeps its notes as hints
// until a review uses them.
func (r *Runtime) observe(entries []session.Entry) {
	if r.opts.Detector == nil || len(entries) == 0 {
		return
	}
	r.hints = append(r.hints, r.opts.Detector.Observe(entries)...)
}

// detectorOnly reviews pending entries with the detector alone: its notes
// go through the guard and the delivery policy like a model's, strongest
// first, and at most one is delivered per update.
func (r *Runtime) detectorOnly(ctx context.Context) {
	notes := slices.Clone(r.hints)
	r.hints = nil
	slices.SortStableFunc(notes, func(a, b Advice) int { return b.Severity.rank() - a.Severity.rank() })
	r.guard.NewUpdate()
	for _, n := range notes {
		if text, _ := r.deliver(ctx, n); text != "" {
			r.logf("advisor: detector note %q: %s", n.Note, text)
		}
	}
}

// gateClosed reports whether a gated runtime skips the model for this
// update, because no detector fired. The pending entries are then kept,
// cut to the tail that fits the prime budget, so that a later review sees
// what led up to its finding without the memory growing with the session.
func (r *Runtime) gateClosed() bool {
	if !r.opts.Gate || r.opts.Detector == nil || len(r.hints) > 0 {
		return false
	}
	r.pending = primeTail(r.pending, r.opts.PrimeTokens)
	return true
}

// hintText renders the detectors' notes for the model, after the update:
// they say why the model was woken, as evidence to check, not verdicts.
func (r *Runtime) hintText() string {
	if len(r.hints) == 0 {
		return ""
	}
	var body strings.Builder
	for _, h := range r.hints {
		sev := string(h.Severity)
		if sev == "" {
			sev = string(SeverityNit)
		}
		// The update they are added to is redacted as a whole when it
		// enters the context (see appendMessage).
		fmt.Fprintf(&body, "- [%s] %s\n", sev, h.Note)
	}
	fence := strings.Repeat("`", max(3, longestRun(body.String(), '`')+1))
	return "\n### Detector findings\n\nZero-token detectors flagged this; check it against the transcript before you advise.\n\n" +
		fence + "\n" + body.String() + fence + "\n"
}

// longestRun is the length of the longest run of c in s.
func longestRun(s string, c byte) int {
	best, n := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			n++
			best = max(best, n)
		} else {
			n = 0
		}
	}
	return best
}
