package rules

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var fabricatedInfo = Info{
	Name:     "fabricated-result",
	Severity: Concern,
	Doc: "Work narrated instead of done. A reply whose text holds tool output in the harness's own " +
		"form (a pytest or unittest summary line, `<returncode>`, `OBSERVATION:`, \"Process exited " +
		"with code\", an editor's \"has been updated successfully\") that no tool returned in the " +
		"window: the model wrote the result it expected. A command that only echoes a success " +
		"message (`echo \"Successfully updated X\"`) in place of the change it announces. A final " +
		"reply or a submission that claims a fix when the run changed no file. Reported at the step " +
		"where it happens; a blocker when the run ends on it.",
}

// fabricated remembers the result lines tools returned in the window, by
// signature, to tell a quoted result from an invented one.
type fabricated struct {
	seen     map[sig]int // result line -> last step it was returned
	reported int         // the step of the last report
}

func (d *fabricated) reset() { *d = fabricated{} }

// resultLine matches lines only a tool writes: test runners' summaries,
// harness markers around command output, editors' confirmations.
var resultLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[ \t>]*(?:=+ .*\b\d+ (?:passed|failed)\b.* in [\d.]+s(?: \(.*\))? =+|Ran \d+ tests? in [\d.]+s|<returncode>-?\d+</returncode>|OBSERVATION:|Process exited with code \d+|The file \S+ has been (?:updated|edited) successfully\.?|File created successfully at: \S+|Successfully (?:edited|replaced|wrote to) \S+)[ \t]*$`)
})

// resultHints are substrings every resultLine match contains: the
// expression runs only on the lines that start as a result line does and
// hold one.
var resultHints = []string{" passed", " failed", "Ran ", "<returncode>", "OBSERVATION:", "Process exited", "successfully", "Successfully"}

// resultScan is how much of the start and the end of a reply is looked
// at for result lines, and resultTail how much of the end of a tool's
// output: summaries come last and confirmations first, and a long text
// costs the same as a short one.
const (
	resultScan = 2048
	resultTail = 512
)

// resultLines calls fn with each line of s (its start and end, up to
// resultScan bytes each) that is a tool's result line, trimmed, at most
// max of them.
func resultLines(s string, max int, fn func(line string)) {
	if len(s) > 2*resultScan {
		resultLinesIn(s[:resultScan], max, fn)
		resultLinesIn(s[len(s)-resultScan:], max, fn)
		return
	}
	resultLinesIn(s, max, fn)
}

// resultShape is a cheap test that a line may be a result line: it
// starts and ends as one does. Most lines with a hint fail it.
func resultShape(line string) bool {
	t := strings.TrimSpace(strings.TrimLeft(line, " \t>"))
	if t == "" {
		return false
	}
	switch t[0] {
	case '=':
		return t[len(t)-1] == '='
	case 'R', 'P', 'O', 'T', 'F', 'S', '<':
		return true
	}
	return false
}

func resultLinesIn(s string, max int, fn func(string)) {
	n := 0
	for len(s) > 0 && n < max {
		line := s
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		// The first byte decides for almost every line, cheaply.
		if len(line) > 300 || !resultShape(line) {
			continue
		}
		line = strings.TrimRight(line, "\r")
		if hasResultHint(line) && resultLine().MatchString(line) {
			n++
			fn(strings.TrimSpace(strings.TrimLeft(line, " \t>")))
		}
	}
}

// hasResultHint reports whether a line holds a word every result line
// holds.
func hasResultHint(line string) bool {
	for _, h := range resultHints {
		if strings.Contains(line, h) {
			return true
		}
	}
	return false
}

// echoClaim matches what a command that only prints claims to have done.
var echoClaim = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:successfully|updated|fixed|applied|patched|modified|implemented|resolved|all tests pass|tests passed)\b`)
})

// fixClaim matches a reply saying it changed the code.
var fixClaim = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:i(?:'ve| have)|we(?:'ve| have)|has been|have been|was|were|successfully)\s+(?:now\s+)?(?:fixed|updated|modified|changed|implemented|patched|applied)\b`)
})

func (d *fabricated) observe(v *view, emit func(candidate)) {
	if d.seen == nil {
		d.seen = map[sig]int{}
	}
	report := func(start int, sev Severity, msg, evidence string) {
		if d.reported == v.n {
			return
		}
		d.reported = v.n
		if v.final {
			sev = Blocker
		}
		emit(candidate{subject: textSig("fabricated"), Finding: Finding{
			Detector: fabricatedInfo.Name, Severity: sev, StartStep: start, EndStep: v.n,
			Message: msg, Evidence: clip(evidence, 160),
		}})
	}
	invented := ""
	if len(v.text) > 2*resultScan || hasResultHint(v.text) {
		resultLines(v.text, 8, func(line string) {
			if _, ok := d.seen[textSig(line)]; !ok && invented == "" {
				invented = line
			}
		})
	}
	if invented != "" {
		report(v.n, fabricatedInfo.Severity, fmt.Sprintf("This reply shows tool output (%q) that no tool returned; it is what the model expected, not what happened. Run the command and report its real output.", clip(invented, 60)), invented)
	}
	for i := range v.acts {
		a := &v.acts[i]
		if onlyEchoes(a) && echoClaim().MatchString(a.Command) {
			report(v.n, fabricatedInfo.Severity, fmt.Sprintf("`%s` only prints a claim; it changes nothing. Make the change the message announces, then check it.", clip(a.Command, 60)), a.Command)
		}
	}
	if (v.final || v.submits()) && v.checks.projectEdits == 0 && v.checks.edits == 0 {
		if m := fixClaim().FindString(v.text); m != "" {
			report(v.n, Blocker, fmt.Sprintf("%q, but this run has changed no file; nothing was fixed. Make the change, or say that it was not made.", clip(m, 60)), m)
		}
	}
	d.remember(v)
}

// remember adds the result lines of the step's outputs to the window.
func (d *fabricated) remember(v *view) {
	for i := range v.acts {
		// A tool's result lines are its first (an editor's confirmation)
		// and its last (a test summary, the harness's markers).
		out := v.acts[i].Output
		first, _, _ := strings.Cut(out, "\n")
		remember := func(line string) { d.seen[textSig(line)] = v.n }
		resultLinesIn(first, 1, remember)
		if len(out) > len(first) {
			resultLinesIn(out[max(len(first)+1, len(out)-resultTail):], 8, remember)
		}
	}
	if len(d.seen) > 256 {
		for k, n := range d.seen {
			if n < v.oldest() {
				delete(d.seen, k)
			}
		}
	}
}

// onlyEchoes reports whether a shell action only prints text: echo and
// printf with no redirection to a file.
func onlyEchoes(a *act) bool {
	if a.canonical == "" || len(a.Edits) > 0 || strings.Contains(a.canonical, " > ") {
		return false
	}
	for _, seg := range strings.Split(a.canonical, " ; ") {
		w := strings.Fields(seg)
		if len(w) == 0 || w[0] != "echo" && w[0] != "printf" {
			return false
		}
	}
	return true
}
