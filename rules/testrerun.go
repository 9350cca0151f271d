package rules

import "fmt"

var testRerunInfo = Info{
	Name:     "test-rerun",
	Severity: Nit,
	Doc: "Running the same tests or the same script again with nothing in between that could " +
		"change the outcome: only reads, searches and calls the harness refused (which ran " +
		"nothing). A refused call is not a run either. Any other action (an edit, an install, " +
		"another program) starts the count over, since it may have changed something. Reported " +
		"at the TestReruns-th run (default 3), or one run earlier (but never at the first run) " +
		"when they are tests that passed every time: a failing test run may be retried once, in " +
		"case it was flaky, but tests that passed with nothing changed since can only pass again.",
}

// testRerun counts runs of one check with only reads in between.
type testRerun struct {
	min   int
	cmd   sig
	count int
	// passed is set while every run counted is a test run that passed.
	passed   bool
	first    int
	last     int
	reported bool
}

func (d *testRerun) reset() { *d = testRerun{min: d.min} }

func (d *testRerun) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		switch {
		case a.Kind == KindRead || a.Kind == KindSearch || a.Refused:
			// Nothing that could change the outcome: a refused call ran
			// nothing.
			continue
		case !a.Run || !a.Answered || a.hasCode && a.code.writes || a.cmd != d.cmd || d.last < v.oldest():
			d.cmd, d.count, d.reported = 0, 0, false
			if !a.Run || !a.Answered || a.hasCode && a.code.writes {
				continue
			}
			d.cmd, d.first, d.passed = a.cmd, v.n, true
		}
		if d.last == v.n && d.count > 0 {
			continue
		}
		d.count++
		d.last = v.n
		d.passed = d.passed && a.Test && !a.Failed
		need := d.min
		if d.passed {
			need = max(2, d.min-1)
		}
		if d.count >= need && !d.reported {
			d.reported = true
			what := "tests"
			if !a.Test {
				what = "script"
			}
			msg := fmt.Sprintf("`%s` has run %d times with nothing changed in between; the %s will say the same until something changes.",
				clip(a.Command, 80), d.count, what)
			if d.passed {
				msg = fmt.Sprintf("`%s` passed at step %d and has run %d times with nothing changed since; passing tests will pass again, act on the result.",
					clip(a.Command, 80), d.first, d.count)
			}
			emit(candidate{subject: a.cmd, Finding: Finding{
				Detector:  testRerunInfo.Name,
				Severity:  testRerunInfo.Severity,
				StartStep: d.first,
				EndStep:   v.n,
				Message:   msg,
			}})
		}
	}
}
