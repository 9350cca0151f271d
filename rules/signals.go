package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// unverifiedEdits is how many file changes in a row, with nothing run in
// between, make an unverified-edits signal; it fires again each time the
// stretch doubles.
const unverifiedEdits = 5

// emptyProbes is how many calls in a row of one program returning nothing
// make an empty-probes signal.
const emptyProbes = 3

// signaller finds the signals of each step. Its memory is bounded like the
// detectors': a few recent failures, and signatures of failures within the
// window.
type signaller struct {
	within, window int
	// failures maps a failure (command and error) to the step where it
	// was last seen.
	failures map[sig]int
	// recent are the failed runs of the last within steps: their step and
	// program.
	recent []failure
	// checkFailed is the step of the last failed test or check run; 0
	// when none.
	checkFailed  int
	checkCommand string
	// edits counts file changes since the last run; testWritten is set
	// once a test file changed in that stretch after the signal fired.
	edits       int
	testWritten bool
	// probes counts the calls in a row of one program (probeProgram)
	// that returned nothing, and probeStep is the step of the last.
	probes       int
	probeProgram string
	probeStep    int
	buf          []byte
	// heard is set once the run's first user message (the task) has
	// come; pushback is the step whose user message reported a failure
	// or rejected the work, until an edit follows it (0 when none), and
	// said a quote of it.
	heard    bool
	pushback int
	said     string
	// ticked quotes a task ticked off in a file at the current step.
	ticked string
	// step is the step being observed, out its signals and kinds their
	// kinds.
	step  int
	out   []Signal
	kinds []SignalKind
}

// has reports whether the step has a signal of kind k.
func (s *signaller) has(k SignalKind) bool {
	for _, have := range s.kinds {
		if have == k {
			return true
		}
	}
	return false
}

// emit adds a signal of the step, unless it has one of that kind.
func (s *signaller) emit(k SignalKind, detail string) {
	for _, have := range s.kinds {
		if have == k {
			return
		}
	}
	s.kinds = append(s.kinds, k)
	s.out = append(s.out, Signal{Kind: k, Step: s.step, Detail: detail})
}

func (s *signaller) reset() {
	*s = signaller{within: s.within, window: s.window, buf: s.buf}
}

// observe appends to out the signals of the step v, at most one of each
// kind. It runs before the check tracker takes the step, so v.checks is
// the state before it.
func (s *signaller) observe(v *view, out []Signal) []Signal {
	s.step, s.out, s.kinds = v.n, out, s.kinds[:0]
	i := 0
	for i < len(s.recent) && v.n-s.recent[i].n > s.within {
		i++
	}
	s.recent = s.recent[i:]
	if s.checkFailed > 0 && v.n-s.checkFailed > s.within {
		s.checkFailed = 0
	}
	if v.userSpoke {
		if s.heard {
			s.listen(v)
		}
		s.heard = true
	}
	s.ticked = ""

	for j := range v.acts {
		a := &v.acts[j]
		s.harness(a)
		if a.Refused {
			s.repeat(a, v.n)
			continue
		}
		if a.Kind == KindShell || a.Run {
			s.commandOff(a)
		}
		s.probe(a, v.n)
		if s.ticked == "" && (a.Kind == KindShell || a.Kind == KindEdit) && !a.Failed && inPlace(a.Command) {
			if strings.Contains(a.Command, "[x]") || strings.Contains(a.Command, "[X]") {
				s.ticked = fmt.Sprintf("ticks boxes with `%s`", clip(a.Command, 60))
			}
		}
		if !a.Failed {
			s.edited(a)
		}
		for _, ef := range a.effects {
			if ef.changed && s.pushback > 0 {
				s.emit(SignalUserPushback, fmt.Sprintf("edits %s after the user said %q at step %d", tailClip(fileKey(ef.file.key), 120), s.said, s.pushback))
				s.pushback = 0
			}
			if ef.changed {
				s.edits++
				test := isTestFile(ef.file.key) || inTestFolder(ef.file.key)
				if s.edits > unverifiedEdits && test && !s.testWritten {
					// A test is written to be run: one written in a
					// stretch with nothing run is unverified work at its
					// clearest.
					s.testWritten = true
					s.emit(SignalUnverifiedEdits, fmt.Sprintf("writes the test %s with nothing run %s (%d file changes)", tailClip(fileKey(ef.file.key), 120), sinceRun(v), s.edits))
				}
				if k := s.edits / unverifiedEdits; s.edits%unverifiedEdits == 0 && k > 0 && k&(k-1) == 0 {
					// At 5, 10, 20, 40… changes: the longer the stretch, the
					// more it matters, and a look at doubling counts costs
					// little however long it grows.
					s.emit(SignalUnverifiedEdits, fmt.Sprintf("%d file changes with nothing run %s, the last %s", s.edits, sinceRun(v), tailClip(fileKey(ef.file.key), 120)))
				}
			}
		}
		if a.Run && !(a.hasCode && a.code.writes) {
			s.edits, s.testWritten = 0, false
		}
		if a.Failed {
			s.repeat(a, v.n)
			if a.Run || a.Test || a.Kind == KindShell {
				if len(s.recent) >= 8 {
					s.recent = s.recent[1:]
				}
				s.recent = append(s.recent, failure{n: v.n, program: strings.Clone(programKey(a.canonical)), command: strings.Clone(clip(a.Command, 120)), test: a.Test})
			}
			if a.Test || isCheckProgram(programKey(a.canonical)) || runsTestFile(a) {
				s.checkFailed, s.checkCommand = v.n, strings.Clone(clip(a.Command, 80))
			}
		}
	}
	s.claim(v)
	s.stoppedShort(v)
	out = s.out
	s.out = nil
	return out
}

// inPlace reports whether a command edits a file in place (sed -i, perl
// -pi).
func inPlace(cmd string) bool {
	return strings.Contains(cmd, " -i") || strings.Contains(cmd, " -pi") || strings.Contains(cmd, " -0pi")
}

// probe signals a program that keeps returning nothing however its
// arguments change: searches and fetches that find nothing, one after
// another.
func (s *signaller) probe(a *act, n int) {
	if len(a.Edits) > 0 || a.Background || a.Kind == KindEdit || a.Kind == KindOther {
		return
	}
	key := programKey(a.canonical)
	if !(a.Empty || strings.TrimSpace(a.Output) == "" && a.Answered) || key == "" || isSilentProgram(key) {
		if key == s.probeProgram {
			// It found something: the row is over.
			s.probes = 0
		}
		return
	}
	if key == s.probeProgram && n-s.probeStep <= 1 {
		s.probes++
	} else {
		s.probes, s.probeProgram = 1, strings.Clone(key)
	}
	s.probeStep = n
	if s.probes == emptyProbes {
		s.emit(SignalEmptyProbes, fmt.Sprintf("%d calls of %s in a row returned nothing, the last `%s`", s.probes, key, clip(a.Command, 80)))
	}
}

// silentPrograms print nothing when they succeed.
var silentPrograms = []string{"mkdir", "cp", "mv", "rm", "touch", "chmod", "chown", "ln", "cd", "export", "kill", "pkill", "sleep",
	"git add", "git checkout", "git commit", "git stash", "git reset", "git restore", "true", "wait", "source", ".", "set", "unset", "echo", "printf", "tee"}

// sinceRun says since when nothing has run: "since step N" or "in the
// whole run".
func sinceRun(v *view) string {
	if v.checks.runs == 0 {
		return "in the whole run"
	}
	return fmt.Sprintf("since step %d", v.checks.lastStep)
}

// isSilentProgram reports whether a program key names a silent program.
func isSilentProgram(key string) bool {
	for _, p := range silentPrograms {
		if key == p {
			return true
		}
	}
	return false
}

// pushbackWords are what a user says when the work failed or is not
// what they asked for, or pastes when it failed.
var pushbackWords = newKeywords("still", "fail", "error", "traceback", "not found", "doesn't work", "does not work",
	"not working", "isn't working", "broken", "wrong", "didn't", "did not", "not what", "why did", "why are you",
	"revert", "undo", "you said", "i said", "stop", "no such file")

// listen arms the user-pushback signal when a user message before the
// step reports a failure or rejects the work.
func (s *signaller) listen(v *view) {
	for _, t := range v.notes {
		if len(t) > 800 {
			// A correction says so at its start, and a pasted failure
			// ends on its error; a long instruction in between (a
			// prompt template) is not a correction.
			t = t[:400] + "\n" + t[len(t)-400:]
		}
		s.buf = lowerInto(s.buf, t)
		found := ""
		keywordHits(s.buf, pushbackWords, func(i int, w string) bool {
			lo, hi := sentenceAt(s.buf, i, 60)
			found = t[lo:hi]
			return false
		})
		if found != "" {
			s.pushback, s.said = v.n, strings.Clone(clip(found, 80))
			return
		}
	}
}

// appendLower appends s with ASCII letters in lower case to b.
func appendLower(b []byte, s string) []byte {
	n := len(b)
	b = append(b, s...)
	for i := n; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return b
}

// repeat signals a failure seen before within the window.
func (s *signaller) repeat(a *act, n int) {
	if s.failures == nil {
		s.failures = map[sig]int{}
	}
	// The whole output, normalised: two failures that end on the same
	// summary line after different errors are progress, not a repeat.
	// The same program failing with the same output counts however its
	// arguments changed: the same patch rejected, the same missing module.
	out := outputSig(a.Output)
	keys := [2]sig{mix(a.cmd, out), mix(textSig(programKey(a.canonical)), out^1)}
	n2 := len(keys)
	if a.Kind == KindSearch || a.Kind == KindRead {
		// Searches for different things that all find nothing are
		// exploring, not repeating.
		n2 = 1
	}
	for _, key := range keys[:n2] {
		if last, ok := s.failures[key]; ok && last >= n-s.window && last < n && !s.has(SignalRepeatFailure) {
			s.emit(SignalRepeatFailure, fmt.Sprintf("`%s` failed the same way as at step %d", clip(a.Command, 80), last))
		}
		s.failures[key] = n
	}
	if len(s.failures) > 4*s.window {
		for k, at := range s.failures {
			if at < n-s.window {
				delete(s.failures, k)
			}
		}
	}
}

// harnessWords are what harnesses and systems write when they refused or
// failed a call in words; toolWords when the tool does not exist.
var (
	harnessWords = []string{"failed in sandbox", "sandbox denied", "permission denied", "operation not permitted",
		"tool use was rejected", "doesn't want to proceed with this tool", "approval was declined", "declined to approve",
		"rejected by the user", "rejected by user", "user denied", "not approved", "read-only file system"}
	// harnessNeedles are parts of harnessWords, fewer, looked for first.
	harnessNeedles = newKeywords("sandbox", "denied", "not permitted", "reject", "proceed", "declined", "not approved", "read-only")
	toolWords      = []string{"no such tool available", "unknown tool", "is not a valid tool", "tool not found", "invalid tool name", "unknown function"}
)

// harness signals failures the harness reports in words, and calls of
// tools it does not have.
func (s *signaller) harness(a *act) {
	out := a.Output
	switch {
	case out == "":
		return
	case a.ExitCode < 0 && (a.Failed || a.Refused):
		// A failure with no exit code to show: the harness's words are
		// at the start or the end.
		s.buf = lowerInto(s.buf, out[:min(len(out), 256)])
		if len(out) > 512 {
			s.buf = appendLower(append(s.buf, '\n'), out[len(out)-256:])
		} else if len(out) > 256 {
			s.buf = appendLower(s.buf, out[256:])
		}
	case a.ExitCode < 0 && a.Kind != KindRead && a.Kind != KindSearch:
		// No exit code and no error flag: a harness that failed the
		// call in words says so first ("failed in sandbox …").
		s.buf = lowerInto(s.buf, out[:min(len(out), 200)])
	default:
		return
	}
	quote := func(w string) string {
		return fmt.Sprintf("`%s`: %q", clip(a.Command, 60), w)
	}
	if (a.Failed || a.Refused) && (bytes.Contains(s.buf, []byte("tool")) || bytes.Contains(s.buf, []byte("function"))) {
		for _, w := range toolWords {
			if bytes.Contains(s.buf, []byte(w)) {
				s.emit(SignalUnknownTool, fmt.Sprintf("%s: %q", clip(a.Tool, 60), w))
				return
			}
		}
	}
	found := false
	keywordHits(s.buf, harnessNeedles, func(int, string) bool { found = true; return false })
	if !found {
		return
	}
	for _, w := range harnessWords {
		if bytes.Contains(s.buf, []byte(w)) {
			s.emit(SignalHarnessFailure, quote(w))
			return
		}
	}
}

var (
	// doneClaim matches what success claims say beyond tests passing:
	// deployed, works now, done, a checked box.
	doneClaim = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(^\W*(?:completed|implemented|finished|done|fixed)\b|\b(?:marked|ticked|checked off)\b.{0,40}\b(?:complete[d]?|done|finished|\[x\])|\b(?:all|every) (?:\w+ )?(?:tasks?|items?|steps?|stories|phases?)\b.{0,30}\b(?:complete[d]?|done|finished|implemented)\b|\b(?:phase|milestone|task|story|ticket|step) \S+ (?:is )?(?:now )?(?:complete[d]?|done|finished)\b|\b(?:successfully |been |is |are |now )deployed\b|\bworks (?:now|correctly|as expected|fine|perfectly)\b|\bnow works\b|\b(?:is|are) (?:now )?working\b|\ball (?:done|set|complete|fixed)\b|\b(?:is|are) (?:now )?(?:complete|done|implemented|finished|fixed|ready)\b|\bcompleted successfully\b|\bsuccessfully (?:implemented|deployed|completed|added|updated|created|built)\b|^\s*[-*] \[x\])`)
	})
	doneWords = newKeywords("deployed", "works", "working", "all ", "complete", "done", "implemented", "finished", "fixed", "ready", "succe", "[x]", "marked", "ticked", "checked")
)

// claimSpan is how much of a long final reply's start, and twice that of
// its end, is searched for a claim, and how much of the end of a reply
// that goes on working.
const claimSpan = 400

// doneClaimIn returns the first sentence of text[lo:hi] (lower is text
// lowered) that claims the work is done, or "".
func doneClaimIn(text string, lower []byte, lo, hi int) string {
	part := lower[lo:hi]
	claim := ""
	keywordHits(part, doneWords, func(i int, w string) bool {
		if !doneClaim().Match(part[max(0, i-60):min(len(part), i+len(w)+40)]) {
			return true
		}
		a, b := sentenceAt(part, i, 200)
		if doneClaim().Match(part[a:b]) && !hedge().Match(part[a:b]) {
			claim = strings.TrimSpace(text[lo+a : lo+b])
			return false
		}
		return true
	})
	return claim
}

// claim signals a claim of success in the reply's text.
func (s *signaller) claim(v *view) {
	c := v.checks
	if c.runs > 0 && !c.editedSince && !c.last.Failed || c.runs == 0 && c.edits == 0 {
		// A passing run backs any claim, or nothing changed that one
		// could be about: no need to look for one.
		return
	}
	claim := v.claim
	if claim == "" && (v.final || v.submits()) {
		// A reply that ends the turn or hands the work in: its report.
		claim = doneClaimIn(v.text, v.lower, 0, min(len(v.lower), claimSpan))
		if claim == "" && len(v.lower) > claimSpan {
			claim = doneClaimIn(v.text, v.lower, max(claimSpan, len(v.lower)-2*claimSpan), len(v.lower))
		}
		if claim == "" && v.final {
			claim = workReportIn(v.text, v.lower)
		}
	} else if i := bytes.Index(v.lower, []byte("[x]")); claim == "" && i >= 0 {
		// A reply that goes on working: only a checked box, cheap to
		// find, is looked for.
		lo, hi := sentenceAt(v.lower, i, 100)
		claim = strings.TrimSpace(v.text[lo:hi])
	}
	if claim == "" && s.ticked != "" {
		claim = s.ticked
	}
	if claim == "" {
		return
	}
	detail := fmt.Sprintf("%q", clip(claim, 80))
	switch {
	case c.runs == 0:
		detail += " with nothing run in the whole run"
	case c.editedSince:
		detail += fmt.Sprintf(" with nothing run since the last edit (last run at step %d)", c.lastStep)
	case c.last.Failed:
		detail += fmt.Sprintf(" after the last run (`%s`, step %d) failed", clip(c.last.Command, 60), c.lastStep)
	}
	s.emit(SignalSuccessClaim, detail)
}

// announce matches a sentence that announces work still to do.
var announce = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:i'll|i will|i'm going to|i am going to|let me|let's|we'll|we will|next,? i)\s+(?:now\s+|also\s+|next\s+|then\s+|first\s+|quickly\s+)?(?:run|check|verify|test|fix|update|add|implement|create|write|look|start|build|try|make|commit|continue|proceed|investigate|examine|apply|finish|move|read|open|search|install|deploy|rerun|re-run|execute|remove|refactor|modify|edit|change|clean|set|configure|debug|push|review|compile|launch|address|tackle|work|do|handle|complete|wire|hook|rewrite|replace|restart|wait|confirm|ensure|validate|re-check|recheck|inspect|see|find|get)\b`)
})

var announceWords = newKeywords("i'll", "i will", "i'm going", "i am going", "let me", "let's", "we'll", "we will", "next")

// stoppedShort signals a turn that ends on a reply announcing more work.
func (s *signaller) stoppedShort(v *view) {
	if found := announcedWork(v); found != "" {
		s.emit(SignalStoppedShort, fmt.Sprintf("the turn ends on %q", clip(found, 80)))
	}
}

// announcedWork returns the last sentence near the end of a final reply
// that announces work still to do ("Next, I'll run the tests."), or "":
// offers and questions ("let me know", "want me to…?") are no
// announcement.
func announcedWork(v *view) string {
	if !v.final || len(v.lower) == 0 {
		return ""
	}
	lower := v.lower
	from := max(0, len(lower)-240)
	tail := lower[from:]
	found := ""
	keywordHits(tail, announceWords, func(i int, w string) bool {
		lo, hi := sentenceAt(tail, i, 200)
		sent := tail[lo:hi]
		if !announce().Match(sent) || bytes.Contains(sent, []byte("let me know")) || bytes.Contains(sent, []byte("if you")) ||
			bytes.Contains(sent, []byte("?")) || bytes.Contains(sent, []byte("would you")) || bytes.Contains(sent, []byte("want me")) {
			return true
		}
		found = strings.TrimSpace(v.text[from+lo : from+hi])
		return true // the last such sentence
	})
	return found
}
