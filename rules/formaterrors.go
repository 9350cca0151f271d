package rules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var formatErrorsInfo = Info{
	Name:     "format-errors",
	Severity: Concern,
	Doc: "The harness rejecting the agent's replies again and again: a reply with no tool call " +
		"or more than one action, unparsable arguments, an unknown tool. Seen as a harness message " +
		"after the reply (\"Please always provide EXACTLY ONE action…\", \"format error\", \"no " +
		"tool calls\") or as a tool result that rejects the call. Reported when FormatErrors " +
		"replies in a row (default 3) were rejected, or as many calls within twice that many " +
		"steps with other work in between, or at the second call of a tool the harness said does " +
		"not exist.",
}

// rejection matches what harnesses say when they reject a reply or a call.
var rejection = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(^unsupported (custom tool )?call: |format ?error|did not (include|contain|use|provide) (a |any |the |exactly one )?(tool call|command|action|bash|code block)|no tool calls?\b|exactly (one|_one_) (bash |shell )?(action|command|code block|tool call|function call)|please (always )?provide (exactly )?one|could not parse|could not be parsed|failed to parse (the )?((function|tool) )?(tool|arguments|action|response)|error parsing tool call|tool call error|missing '?command'? argument|invalid (json|tool call|tool arguments|function arguments)|unknown tool|no such tool|inputvalidationerror: \S+ failed|validation failed for tool|unknown argument "[^\n]*takes: |missing required argument "|tool .{1,40} (is not available|does not exist|not found)|syntax errors and was not executed|your (last )?(output|response|reply) (did not|was not|is not|has no|contained no))`)
})

// rejectionWords are words every match of rejection contains.
var rejectionWords = []string{"format", "tool", "exactly", "provide", "parse", "invalid", "malformed", "your ", "command", "not executed", "validation", "argument", "unsupported"}

// rejects reports whether a harness message or tool result shorter than
// limit rejects a reply or a call; buf is a buffer it reuses.
func rejects(buf *[]byte, s string, limit int) bool {
	if len(s) >= limit {
		return false
	}
	*buf = lowerInto(*buf, s)
	return hasAny(*buf, rejectionWords) && rejection().Match(*buf)
}

// formatErrors counts consecutive rejected replies.
type formatErrors struct {
	min          int
	streak       int
	start        int
	fired        bool
	lastRejected int
	// refused are the recent steps whose calls the harness refused;
	// spreadFired is set once they were reported.
	refused     []int
	spreadFired bool
	// unknown maps the tools refused by name to the step they were first
	// refused at.
	unknown map[string]int
	buf     []byte
}

func (d *formatErrors) reset() { *d = formatErrors{min: d.min, buf: d.buf, refused: d.refused[:0]} }

func (d *formatErrors) observe(v *view, emit func(candidate)) {
	// A harness message before this step rejects the previous reply.
	prevRejected := false
	for _, t := range v.notes {
		if rejects(&d.buf, t, 4000) {
			prevRejected = true
		}
	}
	if prevRejected {
		d.count(v.n-1, v.n, emit)
	} else if v.n > 1 && d.lastRejected != v.n-1 {
		d.streak, d.fired = 0, false
	}
	// A tool result that rejects the call rejects this reply.
	for i := range v.acts {
		if a := &v.acts[i]; a.Refused {
			d.count(v.n, v.n, emit)
			d.spread(v.n, emit)
			d.unknownAgain(a, v.n, emit)
			break
		}
	}
}

// unknownAgain reports a call to a tool the harness already said does not
// exist: its refusal names the tool, and a call of that name was refused
// within the last 2×min steps.
func (d *formatErrors) unknownAgain(a *act, n int, emit func(candidate)) {
	if a.Tool == "" || !strings.Contains(a.Output, a.Tool) {
		return // refused for its arguments, or a refusal that names nothing
	}
	first, ok := d.unknown[a.Tool]
	if d.unknown == nil {
		d.unknown = map[string]int{}
	}
	if !ok || first <= n-2*d.min {
		if len(d.unknown) >= 16 {
			clear(d.unknown)
		}
		d.unknown[strings.Clone(a.Tool)] = n
		return
	}
	if first == n || d.fired || d.spreadFired {
		return
	}
	// One episode: the streak of refusals it may start is reported here.
	d.spreadFired, d.fired = true, true
	emit(candidate{subject: textSig("format-errors"), Finding: Finding{
		Detector:  formatErrorsInfo.Name,
		Severity:  formatErrorsInfo.Severity,
		StartStep: first,
		EndStep:   n,
		Message: fmt.Sprintf("%s was refused at step %d as a tool that does not exist, and is called again; the harness's error lists the tools there are. Use one of those.",
			a.Tool, first),
		Evidence: clip(lastLine(a.Output), 160),
	}})
}

// spread records that a call of step n was refused, and reports min
// refusals within 2×min steps with other steps in between: the same
// mistake made again after the harness said what its tools are.
func (d *formatErrors) spread(n int, emit func(candidate)) {
	i := 0
	for i < len(d.refused) && d.refused[i] <= n-2*d.min {
		i++
	}
	d.refused = append(d.refused[:0], d.refused[i:]...)
	if len(d.refused) == 0 {
		d.spreadFired = false
	}
	d.refused = append(d.refused, n)
	if len(d.refused) < d.min || d.spreadFired || d.fired {
		return
	}
	d.spreadFired = true
	emit(candidate{subject: textSig("format-errors"), Finding: Finding{
		Detector:  formatErrorsInfo.Name,
		Severity:  formatErrorsInfo.Severity,
		StartStep: d.refused[0],
		EndStep:   n,
		Message: fmt.Sprintf("The harness has refused %d calls in %d steps (a tool that does not exist, arguments it cannot read); its error lists what it takes. Use exactly that.",
			len(d.refused), n-d.refused[0]+1),
	}})
}

// count records that reply n was rejected, as seen at step at.
func (d *formatErrors) count(n, at int, emit func(candidate)) {
	if n == d.lastRejected {
		return
	}
	if d.lastRejected != n-1 {
		d.streak, d.fired = 0, false
	}
	if d.streak == 0 {
		d.start = n
	}
	d.streak++
	d.lastRejected = n
	if d.streak >= d.min && !d.fired {
		d.fired = true
		emit(candidate{subject: textSig("format-errors"), Finding: Finding{
			Detector:  formatErrorsInfo.Name,
			Severity:  formatErrorsInfo.Severity,
			StartStep: d.start,
			EndStep:   at,
			Message: fmt.Sprintf("The harness has rejected %d replies in a row; reread its format rules and answer with exactly one well-formed action.",
				d.streak),
		}})
	}
}
