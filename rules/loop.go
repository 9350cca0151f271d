package rules

import "fmt"

var loopInfo = Info{
	Name:     "no-progress-loop",
	Severity: Concern,
	Doc: "A stretch of steps that brings nothing new: every call in each step repeats a call " +
		"made earlier in the window and gets the same result back (or, for replies without calls, " +
		"repeats an earlier reply word for word). Reported when LoopSteps such steps (default 4) " +
		"come in a row, unless another detector already reported those steps.",
}

// loop tracks which (call, result) pairs the window has seen.
type loop struct {
	min    int
	seen   map[sig]int // pair → last step seen
	streak int
	start  int
	fired  bool
}

func (d *loop) reset() { *d = loop{min: d.min} }

func (d *loop) observe(v *view, emit func(candidate)) {
	if d.seen == nil {
		d.seen = map[sig]int{}
	}
	oldest := v.oldest()
	known := func(s sig) bool {
		n, ok := d.seen[s]
		return ok && n >= oldest && n < v.n
	}
	stale := true
	if len(v.acts) == 0 {
		s := textSig(v.text)
		stale = v.text != "" && known(s)
		d.seen[s] = v.n
	} else {
		for i := range v.acts {
			s := mix(v.acts[i].cmd, v.acts[i].out)
			if !known(s) {
				stale = false
			}
		}
		for i := range v.acts {
			d.seen[mix(v.acts[i].cmd, v.acts[i].out)] = v.n
		}
	}
	if len(d.seen) > 8*v.window {
		for k, n := range d.seen {
			if n < oldest {
				delete(d.seen, k)
			}
		}
	}
	if !stale {
		d.streak, d.fired = 0, false
		return
	}
	if d.streak == 0 {
		d.start = v.n
	}
	d.streak++
	if d.streak >= d.min && !d.fired {
		d.fired = true
		emit(candidate{anySubject: true, Finding: Finding{
			Detector:  loopInfo.Name,
			Severity:  loopInfo.Severity,
			StartStep: d.start,
			EndStep:   v.n,
			Message: fmt.Sprintf("The last %d steps repeated earlier calls and got the same results; step back and try something different.",
				d.streak),
		}})
	}
}
