// Package rulesadvisor lets vigil's zero-token detectors (package rules)
// review a watched agent inside the advisor runtime: it implements
// [advisor.Detector] by grouping the transcript into steps and running
// the rules engine over each step as it completes.
package rulesadvisor

import (
	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// Detector is an [advisor.Detector] over the rules engine, and an
// [advisor.Signaler]: the engine's signals (rules.Signal) of each step
// are reasons for a gated model to look. It is not safe for concurrent
// use; the runtime calls it from one goroutine.
type Detector struct {
	settings rules.Settings
	engine   *rules.Engine
	steps    transcript.Stepper
	signals  []string
}

var (
	_ advisor.Detector = (*Detector)(nil)
	_ advisor.Signaler = (*Detector)(nil)
)

// New returns a detector with the given settings.
func New(s rules.Settings) *Detector {
	return &Detector{settings: s, engine: rules.New(s)}
}

// Observe implements [advisor.Detector]: each finding of a completed step
// becomes a note at the finding's severity.
func (d *Detector) Observe(entries []session.Entry) []advisor.Advice {
	var out []advisor.Advice
	for _, e := range entries {
		for _, st := range d.steps.Add(e) {
			for _, f := range d.engine.Observe(st) {
				out = append(out, advisor.Advice{Note: f.Message, Severity: severity(f.Severity)})
			}
			for _, sg := range d.engine.LastSignals() {
				d.signals = append(d.signals, sg.String()) // a copy: the engine's is valid until its next step
			}
		}
	}
	return out
}

// Signals implements [advisor.Signaler]: one line each ("step 7
// check-off: …"), in the order the steps were observed.
func (d *Detector) Signals() []string {
	s := d.signals
	d.signals = nil
	return s
}

// Reset implements [advisor.Detector].
func (d *Detector) Reset() {
	d.engine.Reset()
	d.steps = transcript.Stepper{}
	d.signals = nil
}

func severity(s rules.Severity) advisor.Severity {
	switch s {
	case rules.Blocker:
		return advisor.SeverityBlocker
	case rules.Concern:
		return advisor.SeverityConcern
	}
	return advisor.SeverityNit
}
