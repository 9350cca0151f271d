package rules

import "fmt"

var unsupportedClaimInfo = Info{
	Name:     "unsupported-claim",
	Severity: Concern,
	Doc: "A claim of success (\"tests pass\", \"the issue is fixed\", \"the fix works\", \"all " +
		"green\") that the results do not support: the project was changed but nothing has been run " +
		"in the whole run, or the last run before the claim failed. Hedged sentences (\"if the tests pass\", \"let me " +
		"verify the fix works\") are not claims. Reported once per claim and last run; a blocker " +
		"when the claim is in the final reply, which ends the run on it.",
}

// unsupportedClaim compares claims with the run results before them.
type unsupportedClaim struct {
	// reportedRun is the step of the last run whose failure was already
	// reported, or -1 for "nothing was run".
	reportedRun int
	reported    bool
}

func (d *unsupportedClaim) reset() { *d = unsupportedClaim{} }

func (d *unsupportedClaim) observe(v *view, emit func(candidate)) {
	claim := v.claim
	if claim == "" {
		return
	}
	c := v.checks
	var msg, evidence string
	start := v.n
	switch {
	case c.runs == 0:
		if d.reported && d.reportedRun == -1 || c.projectEdits == 0 {
			// Nothing was changed either: the claim is about something
			// else (a question answered, history).
			return
		}
		d.reportedRun = -1
		msg = fmt.Sprintf("%q, but nothing has been run yet; run the tests or the reproduction and report what they show.", clip(claim, 60))
	case c.last.Failed:
		if d.reported && d.reportedRun == c.lastStep {
			return
		}
		d.reportedRun = c.lastStep
		start = c.lastStep
		msg = fmt.Sprintf("%q, but the last run (`%s`, step %d) failed; fix that or report the failure.",
			clip(claim, 60), clip(c.last.Command, 60), c.lastStep)
		evidence = clip(c.last.Output, 120)
	default:
		return
	}
	d.reported = true
	sev := unsupportedClaimInfo.Severity
	if v.final {
		sev = Blocker
	}
	emit(candidate{subject: textSig("claim"), Finding: Finding{
		Detector:  unsupportedClaimInfo.Name,
		Severity:  sev,
		StartStep: start,
		EndStep:   v.n,
		Message:   msg,
		Evidence:  evidence,
	}})
}
