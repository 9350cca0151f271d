package rules

// Settings tunes the detectors. A field left at zero takes its default
// (see DefaultSettings); the defaults are principled counts ("three
// identical failures"), not values fitted to particular transcripts.
type Settings struct {
	// Window is how many recent steps the engine remembers. Repeats
	// further apart than this are not connected, and memory stays bounded
	// however long the run. Default 40.
	Window int
	// FailureRepeats is how many times the same command must fail the
	// same way to be a repeated failure (repeated-failure). Default 3: a
	// single retry is fine, a third identical failure is not.
	FailureRepeats int
	// IdenticalReads is how many times a read-only command must return
	// the same output to count as polling finished work
	// (polling-finished). Default 3.
	IdenticalReads int
	// SameResults is how many runs of the same program on the same
	// target ending the same way, with nothing edited in between, make a
	// rerun episode (same-result). Default 3.
	SameResults int
	// TestReruns is how many runs of the same test command, with nothing
	// changed in between, make a rerun episode (test-rerun); tests that
	// passed every time take one run fewer, but at least two. Default 3.
	TestReruns int
	// EditFlips is how many times a file must return to an earlier
	// version, with nothing run in between, to be thrashing (edit-thrash).
	// Default 2: edit, revert, re-edit.
	EditFlips int
	// EditFailures is how many failed edits of one file in a row make a
	// streak (edit-failures). Default 3.
	EditFailures int
	// Rewrites is how many times a file must be rewritten whole without
	// anything using it in between (edit-thrash). Default 3.
	Rewrites int
	// LoopSteps is how many steps in a row must bring nothing new (every
	// call repeats an earlier call with the same result) to be a loop
	// (no-progress-loop); steps that retrace earlier ones in order take
	// one step fewer, but at least two. Default 4.
	LoopSteps int
	// FollowUp is how many steps after a failure a response to it is
	// looked for (workaround, sidestep). Default 3.
	FollowUp int
	// FormatErrors is how many replies in a row the harness must reject
	// (format-errors). Default 3.
	FormatErrors int
	// Disabled names detectors to turn off.
	Disabled []string
	// NoSignals turns the signals off: [Engine.LastSignals] then returns
	// none, and a step costs about an eighth less. Findings are the same
	// either way.
	NoSignals bool
}

// DefaultSettings returns the settings with every default filled in.
func DefaultSettings() Settings {
	return Settings{
		Window:         40,
		FailureRepeats: 3,
		IdenticalReads: 3,
		TestReruns:     3,
		SameResults:    3,
		EditFlips:      2,
		Rewrites:       3,
		EditFailures:   3,
		LoopSteps:      4,
		FollowUp:       3,
		FormatErrors:   3,
	}
}

// withDefaults fills zero fields from DefaultSettings.
func (s Settings) withDefaults() Settings {
	d := DefaultSettings()
	fill := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&s.Window, d.Window)
	fill(&s.FailureRepeats, d.FailureRepeats)
	fill(&s.IdenticalReads, d.IdenticalReads)
	fill(&s.TestReruns, d.TestReruns)
	fill(&s.SameResults, d.SameResults)
	fill(&s.EditFlips, d.EditFlips)
	fill(&s.Rewrites, d.Rewrites)
	fill(&s.EditFailures, d.EditFailures)
	fill(&s.LoopSteps, d.LoopSteps)
	fill(&s.FollowUp, d.FollowUp)
	fill(&s.FormatErrors, d.FormatErrors)
	return s
}

func (s Settings) disabled(name string) bool {
	for _, d := range s.Disabled {
		if d == name {
			return true
		}
	}
	return false
}
