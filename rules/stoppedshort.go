package rules

import "fmt"

var stoppedShortInfo = Info{
	Name:     "stopped-short",
	Severity: Concern,
	Doc: "A turn that ends on a reply announcing more work (\"Next, I'll run the test suite.\", " +
		"\"Let me fix the import:\") with no call to do it: the agent stopped before the work it " +
		"said was next, and the user is left with a change nobody checked. Offers and questions " +
		"(\"let me know if…\", \"want me to…?\") are not announcements, and only a reply right after a " +
		"step that did something counts (one that only talks again and again is a loop). Reported at " +
		"that reply; a " +
		"user's \"continue\" that follows does not undo it.",
}

// stoppedShort reports a final reply that announces work it does not do,
// after a step that did some: a reply that only talks, again and again, is
// the loop detectors' (the same reply, no progress).
type stoppedShort struct {
	worked bool // the previous step made calls
}

func (d *stoppedShort) reset() { d.worked = false }

func (d *stoppedShort) observe(v *view, emit func(candidate)) {
	worked := d.worked
	d.worked = len(v.acts) > 0
	if !worked {
		return
	}
	found := announcedWork(v)
	if found == "" {
		return
	}
	emit(candidate{subject: textSig("stopped-short"), Finding: Finding{
		Detector:  stoppedShortInfo.Name,
		Severity:  stoppedShortInfo.Severity,
		StartStep: v.n,
		EndStep:   v.n,
		Message:   fmt.Sprintf("The turn ends on %q, but that was never done. Do it now, or say why it cannot be done.", clip(found, 80)),
	}})
}
