package rules

import (
	"fmt"
	"unicode"
)

var sameReplyInfo = Info{
	Name:     "repeated-reply",
	Severity: Nit,
	Doc: "The same reply text again and again: a decision restated (\"Let me wait for the build.\", " +
		"\"Waiting.\") three times within 10 steps, compared with case, numbers and spacing " +
		"normalised, in steps that do nothing else but wait (no calls, or only sleeps and polls) and whose " +
		"waits show nothing new. A nit at the third; a " +
		"concern at the fifth, when the agent is plainly circling.",
}

// sameReply counts identical reply texts in the recent steps.
type sameReply struct {
	texts    map[sig][]int
	reported map[sig]int // the count last reported for a text
	// results are the calls and results seen in the recent steps: a wait
	// that shows something new (a log that moved on) is progress.
	results map[sig]int
	buf     []byte
}

func (d *sameReply) reset() { *d = sameReply{buf: d.buf[:0]} }

func (d *sameReply) observe(v *view, emit func(candidate)) {
	if v.userSpoke {
		d.texts, d.reported = nil, nil
	}
	for i := range v.acts {
		for _, ef := range v.acts[i].effects {
			if ef.changed && !ef.file.created {
				d.texts, d.reported = nil, nil // work happened
				return
			}
		}
	}
	if !idle(v) {
		return
	}
	if d.news(v) {
		// The wait showed something new: the words may be the same, the
		// situation is not; the count starts again here.
		d.texts, d.reported = nil, nil
	}
	if len(v.lower) < 6 || len(v.lower) > 2000 {
		return
	}
	d.buf = normaliseReply(d.buf[:0], v.lower)
	if len(d.buf) < 6 {
		return
	}
	k := sig(textSig(string(d.buf)))
	if d.texts == nil {
		d.texts, d.reported = map[sig][]int{}, map[sig]int{}
	}
	steps := recent(append(d.texts[k], v.n), v.n)
	if len(d.texts) >= 64 {
		clear(d.texts)
	}
	d.texts[k] = steps
	sev := Severity("")
	switch n := len(steps); {
	case n >= 5 && d.reported[k] < 5:
		sev = Concern
	case n == 3 && d.reported[k] < 3:
		sev = Nit
	}
	if sev == "" {
		return
	}
	d.reported[k] = len(steps)
	// About the run as a whole: it yields to a loop, a rerun or a poll
	// that another detector already reported over these steps.
	emit(candidate{subject: k, anySubject: true, Finding: Finding{
		Detector: sameReplyInfo.Name, Severity: sev, StartStep: steps[0], EndStep: v.n,
		Message: fmt.Sprintf("The same reply %d times since step %d (%q) with nothing changed; saying it again moves nothing. Decide what would change the situation and do that.",
			len(steps), steps[0], clip(v.text, 60)),
	}})
}

// normaliseReply appends lowered text with digits as # and runs of
// spaces and punctuation as one space.
func normaliseReply(dst, lower []byte) []byte {
	space := true
	for _, r := range string(lower) {
		switch {
		case unicode.IsDigit(r):
			dst = append(dst, '#')
			space = false
		case unicode.IsLetter(r):
			dst = append(dst, string(r)...)
			space = false
		case !space:
			dst = append(dst, ' ')
			space = true
		}
	}
	if n := len(dst); n > 0 && dst[n-1] == ' ' {
		dst = dst[:n-1]
	}
	return dst
}

// idle reports whether a step does nothing but wait: no calls, or only
// sleeps and polls.
func idle(v *view) bool {
	for i := range v.acts {
		a := &v.acts[i]
		if a.canonical != "" && !a.polls {
			return false
		}
	}
	return true
}

// news reports whether a step's calls got a result the recent steps did
// not, and remembers them.
func (d *sameReply) news(v *view) bool {
	if d.results == nil {
		d.results = map[sig]int{}
	}
	news := false
	for i := range v.acts {
		k := callSig(&v.acts[i])
		if n, ok := d.results[k]; !ok || n < v.n-churnGap {
			news = true
		}
		d.results[k] = v.n
	}
	if len(d.results) > 256 {
		for k, n := range d.results {
			if n < v.n-churnGap {
				delete(d.results, k)
			}
		}
	}
	return news
}
