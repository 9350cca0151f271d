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
//
// Results are compared by their normalised signature (outputSig), which
// is costly to compute and rarely needed: only when the same command is
// read again soon with an output that differs as it is. So a run keeps
// its first output's exact signature and a copy of the parts outputSig
// covers (at most 2*sigChunk bytes, in buffers reused from run to run),
// and works out the normalised signature only when it must.
type polling struct {
	min   int
	reads map[sig]readRun
	// spare are sample buffers to reuse.
	spare []*outputSample
}

type readRun struct {
	// raw is the exact signature of the run's first output (see rawSig);
	// norm its normalised one when known, else sample holds what norm is
	// computed from.
	raw         sig
	norm        sig
	known       bool
	sample      *outputSample
	count       int
	first, last int
	reported    bool
}

// outputSample is a copy of the parts of an output outputSig covers: the
// whole output, or its first and last sigChunk bytes.
type outputSample struct {
	buf   []byte
	whole bool
}

// sig returns outputSig of the output the sample was taken from.
func (o *outputSample) sig() sig {
	if o.whole {
		return sig(normHashOf(fnvOffset, "", o.buf, false))
	}
	h := normHashOf(fnvOffset, "", o.buf[:sigChunk], false)
	return sig(normHashOf(h^0xff, "", o.buf[sigChunk:], false))
}

// take copies what outputSig covers of out into a spare buffer.
func (d *polling) take(out string) *outputSample {
	var o *outputSample
	if n := len(d.spare); n > 0 {
		o, d.spare = d.spare[n-1], d.spare[:n-1]
	} else {
		o = &outputSample{buf: make([]byte, 0, 2*sigChunk)}
	}
	o.whole = len(out) <= 2*sigChunk
	if o.whole {
		o.buf = append(o.buf[:0], out...)
	} else {
		o.buf = append(append(o.buf[:0], out[:sigChunk]...), out[len(out)-sigChunk:]...)
	}
	return o
}

// give puts a run's sample back among the spare buffers.
func (d *polling) give(r *readRun) {
	if r.sample != nil {
		d.spare = append(d.spare, r.sample)
		r.sample = nil
	}
}

// normOf returns the normalised signature of a run's first output.
func (d *polling) normOf(r *readRun) sig {
	if !r.known {
		r.norm, r.known = r.sample.sig(), true
		d.give(r)
	}
	return r.norm
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
		fresh := !ok || v.n-r.last > pollGap
		var norm sig
		known := false
		if !fresh && r.raw != a.out {
			// Not the same output as it is; perhaps the same once
			// normalised.
			norm, known = outputSig(a.Output), true
			fresh = d.normOf(&r) != norm
		}
		if fresh {
			if ok {
				d.give(&r)
				d.reads[a.cmd] = r
			}
			if len(d.reads) >= 256 {
				for k, o := range d.reads {
					if o.last < v.oldest() {
						d.give(&o)
						delete(d.reads, k)
					}
				}
			}
			r = readRun{raw: a.out, first: v.n}
			if known {
				r.norm, r.known = norm, true
			} else {
				r.sample = d.take(a.Output)
			}
		}
		if r.last == v.n && r.count > 0 {
			d.reads[a.cmd] = r
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
