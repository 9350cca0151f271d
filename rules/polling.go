package rules

import "fmt"

var pollingInfo = Info{
	Name:     "polling-finished",
	Severity: Nit,
	Doc: "Re-reading or re-querying something whose answer is already in: the same read-only " +
		"command (cat, sed -n, ls, git status, git diff, a read or search tool, a status check " +
		"after sleep) returning the same output again. Reported when the IdenticalReads-th " +
		"identical result (default 3) arrives within the window; a changed output starts over.",
}

// polling counts, per read-only command, identical results in a row.
type polling struct {
	min   int
	reads map[sig]*readRun
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
			d.reads = map[sig]*readRun{}
		}
		r := d.reads[a.cmd]
		if r == nil || r.out != a.norm || r.last < v.oldest() {
			if len(d.reads) >= 256 {
				for k, o := range d.reads {
					if o.last < v.oldest() {
						delete(d.reads, k)
					}
				}
			}
			r = &readRun{out: a.norm, first: v.n}
			d.reads[a.cmd] = r
		}
		if r.last == v.n && r.count > 0 {
			continue
		}
		r.count++
		r.last = v.n
		if r.count >= d.min && !r.reported {
			r.reported = true
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
