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

// A Signaler is a [Detector] that also marks where a model should look:
// cheap, high-recall reasons to review (a check edited right after it
// failed, a success claim with nothing run) that are not findings. A
// gated runtime ([Options.Gate]) reviews with the model at an update that
// has a finding or a signal, and the update says what the rules saw; a
// signal never reaches the agent by itself, and a runtime with no model
// ignores them.
type Signaler interface {
	// Signals returns, one line each, the signals of the entries given to
	// Observe since the last call, and forgets them.
	Signals() []string
}

// observe runs the detector over entries and keeps its notes as hints,
// and its signals when a model is gated by them, until a review uses
// them.
func (r *Runtime) observe(entries []session.Entry) {
	if r.opts.Detector == nil || len(entries) == 0 {
		return
	}
	r.hints = append(r.hints, r.opts.Detector.Observe(entries)...)
	if s, ok := r.opts.Detector.(Signaler); ok {
		signals := s.Signals()
		if r.opts.Gate && r.opts.Model != nil {
			r.signals = append(r.signals, signals...)
		}
	}
}

// forgetHints drops the detector's notes and signals once a review used
// them, or the history they were about was rewritten.
func (r *Runtime) forgetHints() {
	r.hints, r.signals = nil, nil
}

// detectorOnly reviews pending entries with the detector alone: its notes
// go through the guard and the delivery policy like a model's, strongest
// first, as many per update as the guard lets through; the rest are held
// for the next update.
func (r *Runtime) detectorOnly(ctx context.Context) {
	notes := slices.Clone(r.hints)
	r.hints = nil
	slices.SortStableFunc(notes, func(a, b Advice) int { return b.Severity.rank() - a.Severity.rank() })
	r.guard.NewUpdate()
	r.deliverHeld(ctx)
	for _, n := range notes {
		if text, _, _ := r.deliver(ctx, n); text != "" {
			r.logf("advisor: detector note %q: %s", n.Note, text)
		}
	}
}

// gateClosed reports whether a gated runtime skips the model for this
// update, because no detector fired. The pending entries are then kept,
// cut to the tail that fits the prime budget, so that a later review sees
// what led up to its finding without the memory growing with the session.
func (r *Runtime) gateClosed() bool {
	if !r.opts.Gate || r.opts.Detector == nil || len(r.hints) > 0 || len(r.signals) > 0 {
		return false
	}
	r.pending = primeTail(r.pending, r.opts.PrimeTokens)
	return true
}

// hintText renders the detectors' notes for the model, after the update:
// they say why the model was woken, as evidence to check, not verdicts.
func (r *Runtime) hintText() string {
	var out strings.Builder
	if len(r.hints) > 0 {
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
		out.WriteString(fenced("Detector findings", "Zero-token detectors flagged this; check it against the transcript before you advise.", body.String()))
	}
	if len(r.signals) > 0 {
		var body strings.Builder
		for _, s := range r.signals {
			fmt.Fprintf(&body, "- %s\n", s)
		}
		out.WriteString(fenced("Signals", "You were asked to look now because the rules saw this. It may be nothing: judge it against the transcript, and advise only if the agent is going off course.", body.String()))
	}
	return out.String()
}

// fenced is a section of an update: a heading, a line saying what it is,
// and body fenced so that no backtick run in it can end the fence.
func fenced(heading, what, body string) string {
	fence := strings.Repeat("`", max(3, longestRun(body, '`')+1))
	return "\n### " + heading + "\n\n" + what + "\n\n" + fence + "\n" + body + fence + "\n"
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
