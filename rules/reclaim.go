package rules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var reclaimInfo = Info{
	Name:     "claim-contradicted",
	Severity: Concern,
	Doc: "Success claimed again after the user said it still fails, with nothing run since that " +
		"reproduces what the user reported: nothing at all, or runs that never touch the file or " +
		"command the user named (the unit tests rerun when the user ran `python3 cli.py`). The " +
		"user has become the test suite; the advisor asks the agent to run what the user ran. " +
		"Reported at the second claim, once per report of the user's.",
}

// fileWord matches a file or script name in a user's report: cli.py,
// src/app.ts, ./run.sh.
var fileWord = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[\w./-]*\w\.(?:py|js|mjs|ts|tsx|jsx|go|rs|rb|sh|php|java|kt|c|cc|cpp|cs|swift|pl)\b`)
})

// stillFails matches a user's report that the work still fails after it
// was said to be done: "still broken", "it still crashes", "same error",
// "doesn't work".
var stillFails = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\bstill (?:\w+ )?(?:broken|fail\w*|crash\w*|error\w*|get(?:ting)? (?:the |an? |this )?(?:same |an? )?(?:error|exception|crash|failure)|(?:does ?n[o']t|is ?n[o']t|not) work\w*|print\w*|show\w*|throw\w*|the same)\b|\b(?:same|identical) (?:error|exception|crash|failure|problem|issue)\b|\b(?:does ?n[o']t|did ?n[o']t|is ?n[o']t|not) (?:work|working|fixed)\b|\bnothing (?:changed|works)\b`)
})

// fixedNow matches a plain statement that the thing is fixed or works,
// not in a condition.
var fixedNow = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:^|[.!:;]\s+|\n)(?:it|this|that|the (?:bug|issue|problem|fix|code))(?:'s| is| was| has been) (?:now )?(?:fixed|resolved|working|correct)\b`)
})

// reclaim watches for a claim, the user's report that it still fails, and
// the claim that follows.
type reclaim struct {
	claimed bool
	// reported is the step whose notes carry the user's report, 0 when
	// none is open; said is what the user said; files the files it names;
	// ran and reproduced whether anything ran since, and whether a run
	// named one of the files.
	reported        int
	said            string
	files           []string
	ran, reproduced bool
	buf             []byte
}

func (d *reclaim) reset() { *d = reclaim{buf: d.buf[:0]} }

func (d *reclaim) observe(v *view, emit func(candidate)) {
	if d.claimed && v.userSpoke {
		d.listen(v)
	}
	if d.reported > 0 && d.reported < v.n || d.reported == v.n {
		for i := range v.acts {
			a := &v.acts[i]
			if !a.Run && !a.Test && a.Kind != KindShell {
				continue
			}
			d.ran = true
			for _, f := range d.files {
				if strings.Contains(a.Command, f) {
					d.reproduced = true
				}
			}
		}
	}
	claim := v.claim
	if claim == "" && v.final {
		claim = doneClaimIn(v.text, v.lower, 0, min(len(v.lower), claimSpan))
	}
	if claim == "" && d.reported > 0 && v.final {
		// "It is fixed; if you still see it…": the hedge that follows
		// speaks to the user, not to the claim.
		if loc := fixedNow().FindIndex(v.lower); loc != nil {
			lo, hi := sentenceAt(v.lower, loc[0], 120)
			claim = strings.TrimSpace(v.text[lo:hi])
		}
	}
	if claim == "" {
		return
	}
	if d.reported > 0 && (!d.ran || len(d.files) > 0 && !d.reproduced) {
		what := "nothing has been run since"
		if d.ran {
			what = fmt.Sprintf("no run since touches %s", strings.Join(d.files, " or "))
		}
		emit(candidate{subject: textSig("claim-contradicted"), Finding: Finding{
			Detector:  reclaimInfo.Name,
			Severity:  reclaimInfo.Severity,
			StartStep: d.reported - 1,
			EndStep:   v.n,
			Message: fmt.Sprintf("The user said it still fails (%q), and %q claims it works again, but %s. Run what the user ran and read its output before saying it is fixed.",
				clip(d.said, 60), clip(claim, 50), what),
		}})
	}
	d.claimed, d.reported = true, 0
}

// listen opens a report when a user message after a claim says the work
// fails: short, with words of failure at its start or a pasted error.
func (d *reclaim) listen(v *view) {
	for _, t := range v.notes {
		if harnessText(t) {
			continue
		}
		d.buf = lowerInto(d.buf, t)
		loc := stillFails().FindIndex(d.buf)
		if loc == nil {
			continue
		}
		lo, hi := sentenceAt(d.buf, loc[0], 60)
		found := t[lo:hi]
		d.reported, d.said = v.n, strings.Clone(clip(strings.TrimSpace(found), 80))
		d.ran, d.reproduced = false, false
		d.files = d.files[:0]
		for _, f := range fileWord().FindAllString(t, 4) {
			d.files = append(d.files, strings.Clone(f))
		}
		return
	}
}
