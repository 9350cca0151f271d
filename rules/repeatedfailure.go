package rules

import "fmt"

var repeatedFailureInfo = Info{
	Name:     "repeated-failure",
	Severity: Concern,
	Doc: "The same or nearly the same command failing the same way again and again. Commands are " +
		"compared without noise (cd prefixes, 2>&1, trailing head/tail, white space, temporary " +
		"paths, hex ids), and are nearly the same when they run the same program (python, go test, " +
		"git commit); failures are the same when the last lines of their output match with " +
		"numbers, timestamps and ids normalised. Each error is counted on its own: failures with " +
		"other errors in between (the same malformed call recurring, an error cycling back) do not " +
		"end its count, and changing errors never add up; a success of the same program ends the " +
		"episode: that is progress. Calls the harness refused ran nothing and " +
		"are left to format-errors. Reported at the FailureRepeats-th identical failure (default " +
		"3) within the window.",
}

// repeatedFailure counts identical failures in a row, per command and per
// program (for commands that differ a little and fail the same way).
type repeatedFailure struct {
	min  int
	runs map[sig]failRun
	// similar counts failures by program and error, so that a failure of
	// the program with another error in between does not end the count:
	// the same malformed call recurring is not progress.
	similar map[sig]failRun
}

type failRun struct {
	// prog is the program of a similar run.
	prog        sig
	err         sig
	count       int
	first, last int
	reported    bool
}

func (d *repeatedFailure) reset() { d.runs, d.similar = nil, nil }

func (d *repeatedFailure) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		if !a.Answered || a.Refused {
			// A refused call ran nothing; format-errors counts those.
			continue
		}
		if !a.Failed {
			delete(d.runs, a.cmd)
			if len(d.similar) > 0 {
				prog := commandSig(programKey(a.canonical))
				for k, r := range d.similar {
					if r.prog == prog {
						delete(d.similar, k)
					}
				}
			}
			continue
		}
		prog := commandSig(programKey(a.canonical))
		if d.runs == nil {
			d.runs, d.similar = map[sig]failRun{}, map[sig]failRun{}
		}
		exact, counted := d.count(d.runs, a.cmd, a.err, v)
		if counted && exact.count >= d.min && !exact.reported {
			exact.reported = true
			d.runs[a.cmd] = exact
			emit(candidate{subject: a.cmd, Finding: Finding{
				Detector:  repeatedFailureInfo.Name,
				Severity:  repeatedFailureInfo.Severity,
				StartStep: exact.first,
				EndStep:   v.n,
				Message: fmt.Sprintf("`%s` has failed the same way %d times; read the error and change something before running it again.",
					clip(a.Command, 80), exact.count),
				Evidence: clip(lastLine(a.Output), 160),
			}})
		}
		key := mix(prog, a.err)
		similar, ok := d.count(d.similar, key, a.err, v)
		if similar.prog != prog {
			similar.prog = prog
			d.similar[key] = similar
		}
		// Identical commands are the per-command count's to report; this
		// one reports when some of the failures were phrased differently.
		if ok && similar.count >= d.min && !similar.reported && (!counted || exact.count < similar.count) {
			similar.reported = true
			d.similar[key] = similar
			emit(candidate{subject: mix(prog, a.err), Finding: Finding{
				Detector:  repeatedFailureInfo.Name,
				Severity:  repeatedFailureInfo.Severity,
				StartStep: similar.first,
				EndStep:   v.n,
				Message: fmt.Sprintf("`%s` and commands like it have failed the same way %d times; rephrasing the command will not make the error go away, read it and fix its cause.",
					clip(a.Command, 60), similar.count),
				Evidence: clip(lastLine(a.Output), 160),
			}})
		}
	}
}

// count records a failure under key in m and returns its run; false when
// this step already counted it.
func (d *repeatedFailure) count(m map[sig]failRun, key, err sig, v *view) (failRun, bool) {
	r, ok := m[key]
	if !ok || r.err != err || r.last < v.oldest() {
		if len(m) >= 128 {
			for k, o := range m {
				if o.last < v.oldest() {
					delete(m, k)
				}
			}
		}
		r = failRun{err: err, first: v.n}
	}
	if r.last == v.n && r.count > 0 {
		return r, false // the same call twice in one step counts once
	}
	r.count++
	r.last = v.n
	m[key] = r
	return r, true
}
