package rules

import "fmt"

var pollingInfo = Info{
	Name:     "polling-finished",
	Severity: Nit,
	Doc: "Re-reading or re-querying something whose answer is already in: the same read-only " +
		"command (cat, sed -n, ls, git status, git diff, a read or search tool, a status check " +
		"after sleep) returning the same output again, each within 5 steps of the last. Reported " +
		"at the IdenticalReads-th identical result (default 3); a changed output starts over.",
}

// pollGap is how many steps apart two identical reads may be and still
// count as checking again: polling is quick succession, while reading a
// file again twenty steps later, after other work, is refreshing memory.
const pollGap = 5

// polling counts, per read-only command, identical results in a row.
type polling struct {
	min   int
	reads map[sig]readRun
}

type readRun struct {
	out         sig
	count       int
	first, last int
	reported    bool
}

func (d *polling) reset() { d.reads = nil }

func (d *polling) observe(v *view, emit func(candidate)) {
	for i := range v.acts {
		a := &v.acts[i]
		if !a.Answered || a.Failed || a.Kind != KindRead && a.Kind != KindSearch && !a.polls {
			continue
		}
		if d.reads == nil {
			d.reads = map[sig]readRun{}
		}
		r, ok := d.reads[a.cmd]
		if !ok || r.out != a.norm || v.n-r.last > pollGap {
			if len(d.reads) >= 256 {
				for k, o := range d.reads {
					if o.last < v.oldest() {
						delete(d.reads, k)
					}
				}
			}
			r = readRun{out: a.norm, first: v.n}
		}
		if r.last == v.n && r.count > 0 {
			continue
		}
		r.count++
		r.last = v.n
		report := r.count >= d.min && !r.reported
		r.reported = r.reported || report
		d.reads[a.cmd] = r
		if report {
			emit(candidate{subject: a.cmd, Finding: Finding{
				Detector:  pollingInfo.Name,
				Severity:  pollingInfo.Severity,
				StartStep: r.first,
				EndStep:   v.n,
				Message: fmt.Sprintf("`%s` has returned the same output %d times; the answer is in, act on it instead of checking again.",
					clip(a.Command, 80), r.count),
			}})
		}
	}
}
