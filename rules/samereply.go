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
		"normalised, in steps that do nothing else but wait (no calls, or only sleeps and polls). A nit at the third; a " +
		"concern at the fifth, when the agent is plainly circling.",
}

// sameReply counts identical reply texts in the recent steps.
type sameReply struct {
	texts    map[sig][]int
	reported map[sig]int // the count last reported for a text
	buf      []byte
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
	if len(v.lower) < 6 || len(v.lower) > 2000 || !idle(v) {
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
