package rules

import "fmt"

// Severity is how much a finding matters, on the advisor's scale.
type Severity string

// The severities, mildest first.
const (
	// Nit: worth a word, no harm if ignored.
	Nit Severity = "nit"
	// Concern: the run is wasting steps or heading the wrong way.
	Concern Severity = "concern"
	// Blocker: the run will end wrong unless the agent changes course.
	Blocker Severity = "blocker"
)

// Rank orders severities: 1 for nit, 2 for concern, 3 for blocker, 0 for
// anything else.
func (s Severity) Rank() int {
	switch s {
	case Nit:
		return 1
	case Concern:
		return 2
	case Blocker:
		return 3
	}
	return 0
}

// ParseSeverity reads a severity name.
func ParseSeverity(s string) (Severity, error) {
	switch v := Severity(s); v {
	case Nit, Concern, Blocker:
		return v, nil
	}
	return "", fmt.Errorf("unknown severity %q (want nit, concern or blocker)", s)
}

// Finding is one off-course episode a detector reports.
type Finding struct {
	// Detector names the detector that reported it.
	Detector string `json:"detector"`
	// Severity is how much it matters.
	Severity Severity `json:"severity"`
	// StartStep and EndStep are the steps the episode spans, inclusive;
	// EndStep is the step at which the finding was reported.
	StartStep int `json:"start_step"`
	EndStep   int `json:"end_step"`
	// Message is one line in the advisor's voice: what happened and the
	// cheaper next step.
	Message string `json:"message"`
	// Evidence is a short quote from the transcript, when one helps.
	Evidence string `json:"evidence,omitempty"`
}

// String renders a finding on one line: its steps, detector, severity,
// message and evidence.
func (f Finding) String() string {
	s := fmt.Sprintf("steps %d-%d %s [%s]: %s", f.StartStep, f.EndStep, f.Detector, f.Severity, f.Message)
	if f.Evidence != "" {
		s += " (" + f.Evidence + ")"
	}
	return s
}

// Info describes a detector for documentation and listings.
type Info struct {
	// Name is how findings, settings and Settings.Disabled name it.
	Name string
	// Severity is the severity of its findings.
	Severity Severity
	// Doc says in one paragraph what it flags and when.
	Doc string
}

// Detectors describes every detector, in the order the engine runs them.
func Detectors() []Info {
	out := make([]Info, len(registry))
	for i, r := range registry {
		out[i] = r.info
	}
	return out
}
