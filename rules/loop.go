package rules

import "fmt"

var loopInfo = Info{
	Name:     "no-progress-loop",
	Severity: Concern,
	Doc: "A stretch of steps that brings nothing new: every call in each step repeats a call " +
		"made earlier in the window and gets the same result back (or, for replies without calls, " +
		"repeats an earlier reply word for word). Reported when LoopSteps such steps (default 4) " +
		"come in a row, or one step fewer (but at least two) when they retrace earlier steps in " +
		"order: each repeats the step that came the same number of steps before it, the same " +
		"stretch of work done again. Not reported when another detector already reported those steps.",
}

// loop tracks which (call, result) pairs the window has seen, and what
// each recent step did.
type loop struct {
	min    int
	seen   map[sig]int // pair → last step seen
	streak int
	start  int
	fired  bool
	// steps are the signatures of the last steps' calls and results (or
	// replies), steps[n%len(steps)] for step n; last is the last step
	// recorded.
	steps []sig
	last  int
}

func (d *loop) reset() { *d = loop{min: d.min, steps: d.steps}; clear(d.steps) }

func (d *loop) observe(v *view, emit func(candidate)) {
	if v.userSpoke {
		d.reset()
	}
	if d.seen == nil {
		d.seen = map[sig]int{}
	}
	oldest := v.oldest()
	known := func(s sig) bool {
		n, ok := d.seen[s]
		return ok && n >= oldest && n < v.n
	}
	stale := true
	var step sig
	if len(v.acts) == 0 {
		s := textSig(v.text)
		stale = v.text != "" && known(s)
		d.seen[s] = v.n
		step = s
	} else {
		step = sig(len(v.acts))
		for i := range v.acts {
			s := callSig(&v.acts[i])
			if !known(s) {
				stale = false
			}
			step = mix(step, s)
		}
		for i := range v.acts {
			d.seen[callSig(&v.acts[i])] = v.n
		}
	}
	d.record(v, step)
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
	if d.fired || d.streak < max(2, d.min-1) {
		return
	}
	msg := ""
	if p := d.retraced(v.n, d.streak); p > 0 {
		msg = fmt.Sprintf("Steps %d-%d did steps %d-%d again, call for call, and got the same results; step back and try something different.",
			d.start, v.n, d.start-p, v.n-p)
	} else if d.streak >= d.min {
		msg = fmt.Sprintf("The last %d steps repeated earlier calls and got the same results; step back and try something different.",
			d.streak)
	} else {
		return
	}
	d.fired = true
	emit(candidate{anySubject: true, Finding: Finding{
		Detector:  loopInfo.Name,
		Severity:  loopInfo.Severity,
		StartStep: d.start,
		EndStep:   v.n,
		Message:   msg,
	}})
}

// record remembers the signature of step n, forgetting steps that left
// the window.
func (d *loop) record(v *view, step sig) {
	if len(d.steps) != v.window {
		d.steps = make([]sig, v.window)
		d.last = 0
	}
	for k := max(d.last+1, v.n-v.window+1); k < v.n; k++ {
		d.steps[k%v.window] = 0 // steps that were not recorded
	}
	d.steps[v.n%v.window] = step
	d.last = v.n
}

// retraced returns p when the last k steps, up to step n, repeat in order
// k steps that came one after another before them: each the step p steps
// (at least two) before it, within the window; 0 when they do not.
func (d *loop) retraced(n, k int) int {
	w := len(d.steps)
	at := func(m int) sig { return d.steps[m%w] }
	for p := 2; n-k+1-p > n-w && n-k+1-p >= 1; p++ {
		if at(n-p) != at(n) {
			continue
		}
		same := true
		for j := 1; j < k && same; j++ {
			same = at(n-j-p) == at(n-j)
		}
		if same {
			return p
		}
	}
	return 0
}

// callSig identifies a call and its result. An edit's one-line command
// ("edit PATH") and confirmation are the same whatever it changes, so
// the changes it made are part of it: undoing an edit is not doing it
// again.
func callSig(a *act) sig {
	s := mix(a.cmd, a.out)
	for _, ef := range a.effects {
		if ef.changed {
			s = mix(s, mix(textSig(ef.edit.Old), textSig(ef.edit.New)))
		}
	}
	return s
}
