package rules

import "fmt"

var repeatedFailureInfo = Info{
	Name:     "repeated-failure",
	Severity: Concern,
	Doc: "The same command or tool call failing the same way again and again. Commands are " +
		"compared without noise (cd prefixes, 2>&1, trailing head/tail, white space, temporary " +
		"paths, hex ids); failures are the same when the last lines of their output match with " +
		"numbers, timestamps and ids normalised. A different error, or a success of the same " +
		"command, ends the episode: that is progress. Reported at the FailureRepeats-th identical " +
		"failure (default 3) within the window.",
}

// repeatedFailure counts, per command, identical failures in a row.
type repeatedFailure struct {
	min  int
	runs map[sig]*failRun
}

type failRun struct {
	err         sig
	count       int
	first, last int
	reported    bool
}

func (d *repeatedFailure) reset() { d.runs = nil }

func (d *repeatedFailure) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		if !a.Answered {
			continue
		}
		if !a.Failed {
			delete(d.runs, a.cmd)
			continue
		}
		if d.runs == nil {
			d.runs = map[sig]*failRun{}
		}
		r := d.runs[a.cmd]
		if r == nil || r.err != a.err || r.last < v.oldest() {
			if len(d.runs) >= 128 {
				d.prune(v.oldest())
			}
			r = &failRun{err: a.err, first: v.n}
			d.runs[a.cmd] = r
		}
		if r.last == v.n && r.count > 0 {
			continue // the same call twice in one step counts once
		}
		r.count++
		r.last = v.n
		if r.count >= d.min && !r.reported {
			r.reported = true
			emit(candidate{subject: a.cmd, Finding: Finding{
				Detector:  repeatedFailureInfo.Name,
				Severity:  repeatedFailureInfo.Severity,
				StartStep: r.first,
				EndStep:   v.n,
				Message: fmt.Sprintf("`%s` has failed the same way %d times; read the error and change something before running it again.",
					clip(a.Command, 80), r.count),
				Evidence: clip(lastLine(a.Output), 160),
			}})
		}
	}
}

func (d *repeatedFailure) prune(oldest int) {
	for k, r := range d.runs {
		if r.last < oldest {
			delete(d.runs, k)
		}
	}
}
