package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var workaroundInfo = Info{
	Name:     "workaround",
	Severity: Concern,
	Doc: "Hiding a failure instead of fixing it, within FollowUp steps (default 3) of the " +
		"failure: rerunning the failed program with its failure suppressed or its checks turned " +
		"off (`|| true`, `--no-verify`, pytest `-k \"not …\"`, `--deselect`, `--ignore`, " +
		"SKIP=…); adding skip or suppression markers (@pytest.mark.skip, t.Skip, # noqa, " +
		"# type: ignore, eslint-disable, @ts-ignore), unless the user asked for the skip; commenting " +
		"out an assertion; deleting a test file; and edits that make the check pass without a fix " +
		"(tamper.go): a failing test's expected value rewritten to what the failing run printed " +
		"(unless the reply says the test was wrong), an always-true assertion, a failing test " +
		"emptied to pass, `|| true` added to the script the check runs, a check's setting switched " +
		"off. A failed test run with nothing run since stays current for the markers, " +
		"commented-out assertions and deletions up to the window: a skip added after reading the " +
		"code for a while hides it still.",
}

var (
	// suppressFlag matches a command line that silences or skips checks.
	suppressFlag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\|\|\s*(?:true|:|exit 0)\b|--no-verify\b|--deselect\b|\s-k\s+['"]?not\s|--ignore(?:-glob)?[= ]|\bskip=|-dskiptests|--skip-(?:tests|checks|hooks)\b|--no-check\b|\bset \+e\b|--continue-on-collection-errors)`)
	})
	// suppressMarker matches skip and suppression markers added to code.
	suppressMarker = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(@pytest\.mark\.(?:skip|xfail)|pytest\.skip\(|@unittest\.skip|\.skiptest\(|\bt\.skip(?:now|f)?\(|\bxit\(|\b(?:it|describe|test)\.skip\(|#\s*noqa\b|#\s*type:\s*ignore|//\s*nolint|eslint-disable|@ts-ignore|@ts-expect-error|#\[ignore\]|@disabled\b|@ignore\b)`)
	})
	// askSkip matches a message asking for a test to be skipped ("mark
	// it skipped", "skip test_upload", "xfail it").
	askSkip = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:skip(?:ped)?|xfail)\b`)
	})
	// assertion matches a line that checks something.
	assertion = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\s*(?:assert\b|self\.assert|expect\(|require\.|assert\.|t\.(?:Error|Fatal))`)
	})
)

// flagWords and markerWords are fragments every match of suppressFlag and
// suppressMarker contains (ignoring case); the expressions are only tried
// around them.
var (
	flagWords   = newKeywords("||", "--no-verify", "--deselect", "not ", "--ignore", "skip=", "-dskiptests", "--skip-", "--no-check", "set +e", "--continue-on")
	markerWords = newKeywords("skip", "xfail", "xit(", "noqa", "ignore", "nolint", "eslint-disable", "ts-expect-error", "@disabled")
)

// workaround remembers recent failures and looks at what follows.
type workaround struct {
	within int
	fails  []failure
	buf    []byte
	// lastRun is the step of the last run or test.
	lastRun int
	// askedSkip is set once the user asks for a test to be skipped.
	askedSkip bool
}

type failure struct {
	n       int
	program string
	command string
	test    bool
	// check is set when the program checks the code (a test, a linter, a
	// type checker, a script named for checking); output is the head and
	// tail of what it printed, for the workaround detector.
	check  bool
	output string
}

// failureOutput keeps the head and tail of a failure's output: where the
// values a failing assertion compared are printed.
func failureOutput(out string) string {
	const half = 4 << 10
	if len(out) <= 2*half {
		return strings.Clone(out)
	}
	return strings.Clone(out[:half]) + "\n" + strings.Clone(out[len(out)-half:])
}

// isCheck reports whether a failed action checks the code rather than
// does something: a test, a linter or type checker, or a script whose name
// says it lints or checks.
func isCheck(a *act, key string) bool {
	if a.Test || isCheckProgram(key) {
		return true
	}
	lower := strings.ToLower(key)
	return strings.Contains(lower, "lint") || strings.Contains(lower, "check")
}

func (d *workaround) reset() { d.fails, d.lastRun, d.askedSkip = nil, 0, false }

func (d *workaround) observe(v *view, emit func(candidate)) {
	if v.userSpoke && !d.askedSkip {
		for _, t := range v.notes {
			if harnessText(t) {
				continue
			}
			d.buf = lowerInto(d.buf, t)
			if askSkip().Match(d.buf) {
				d.askedSkip = true
			}
		}
	}
	i := 0
	for i < len(d.fails) && v.n-d.fails[i].n > d.within && !d.current(d.fails[i], v) {
		i++
	}
	d.fails = d.fails[i:]
	for j := range v.acts {
		a := &v.acts[j]
		if a.Refused {
			// It ran nothing: it neither failed nor hid a failure.
			continue
		}
		if len(d.fails) > 0 {
			if f, how := d.hides(a, v); how != "" {
				emit(candidate{subject: textSig("workaround:" + f.command), Finding: Finding{
					Detector:  workaroundInfo.Name,
					Severity:  workaroundInfo.Severity,
					StartStep: f.n,
					EndStep:   v.n,
					Message: fmt.Sprintf("`%s` failed at step %d and this %s; fix the cause instead of hiding the failure.",
						clip(f.command, 60), f.n, how),
					Evidence: clip(a.Command, 120),
				}})
				d.fails = nil
				return
			}
		}
		if a.Run || a.Test {
			d.lastRun = v.n
		}
		if a.Failed && (a.Run || a.Test || a.Kind == KindShell) {
			if len(d.fails) >= 8 {
				d.fails = d.fails[1:]
			}
			key := programKey(a.canonical)
			d.fails = append(d.fails, failure{n: v.n, program: strings.Clone(key), command: strings.Clone(clip(a.Command, 200)), test: a.Test,
				check: isCheck(a, key), output: failureOutput(a.Output)})
		}
	}
}

// current reports whether a failed test run is still the last word on the
// tests: nothing has run since, and it is within the window. Hiding it
// later than FollowUp steps, after reading the code, is hiding it still.
func (d *workaround) current(f failure, v *view) bool {
	return f.test && f.n >= d.lastRun && v.n-f.n < v.window
}

// hides says whether an action of the step v hides one of the recent
// failures, and how.
func (d *workaround) hides(a *act, v *view) (failure, string) {
	n := v.n
	last := d.fails[len(d.fails)-1]
	if a.Kind == KindShell || a.Run {
		line := a.bare
		if line == "" {
			line = a.Command
		}
		d.buf = lowerInto(d.buf, line)
		if m := findNear(suppressFlag(), d.buf, flagWords, 8, 24); m != "" {
			key := programKey(a.canonical)
			for _, f := range d.fails {
				// A rerun with a flag hides a failure of the last few
				// steps only: later, it may be a choice made after reading.
				if f.program == key && n-f.n <= d.within && !strings.Contains(f.command, strings.TrimSpace(m)) {
					return f, fmt.Sprintf("reruns it with `%s`", strings.TrimSpace(m))
				}
			}
		}
	}
	for _, e := range a.Edits {
		added := addedText(e)
		if added == "" {
			continue
		}
		d.buf = lowerInto(d.buf, added)
		if lo, hi := findNearIndex(suppressMarker(), d.buf, markerWords, 24, 16); hi > 0 {
			m := added[lo:hi]
			if d.askedSkip && (bytes.Contains(d.buf[lo:hi], []byte("skip")) || bytes.Contains(d.buf[lo:hi], []byte("xfail"))) {
				// The user asked for a test to be skipped.
				continue
			}
			return last, fmt.Sprintf("adds `%s` to %s", m, fileKey(e.Path))
		}
		if commentsOutAssertion(e.Old, e.New) {
			return last, "comments out an assertion in " + fileKey(e.Path)
		}
	}
	for _, e := range a.Edits {
		if how := weakens(e, last, v.text, &d.buf); how != "" {
			return last, how
		}
	}
	for _, ef := range a.effects {
		p := ef.file.key
		if ef.changed && ef.edit.Op == EditDelete && !ef.file.created && (isTestFile(p) || inTestFolder(p)) && last.test {
			return last, "deletes the test file " + p
		}
	}
	return failure{}, ""
}

// programKey names the program a canonical command runs: its first word,
// with the subcommand for tools that have them (git commit, go test,
// python -m pytest).
func programKey(canonical string) string {
	var buf [3][2]int
	f := firstWords(canonical, buf[:0])
	if len(f) == 0 {
		return ""
	}
	word := func(i int) string { return canonical[f[i][0]:f[i][1]] }
	k := baseName(word(0))
	if len(f) > 1 {
		switch k {
		case "git", "go", "npm", "yarn", "pnpm", "cargo", "make", "docker", "kubectl", "gh":
			return joinWords(canonical, k, f[:2])
		case "python", "python3":
			if word(1) == "-m" && len(f) > 2 {
				return joinWords(canonical, k, f[:3])
			}
			return joinWords(canonical, k, f[:2])
		}
	}
	return k
}

// joinWords returns prog (the base name of s's first word) and the other
// words of s at bounds, joined by single spaces: a part of s when s has
// them so, without allocating.
func joinWords(s, prog string, bounds [][2]int) string {
	contiguous := true
	for i := 1; i < len(bounds); i++ {
		if bounds[i][0] != bounds[i-1][1]+1 || s[bounds[i][0]-1] != ' ' {
			contiguous = false
		}
	}
	if contiguous {
		return s[bounds[0][1]-len(prog) : bounds[len(bounds)-1][1]]
	}
	var b strings.Builder
	b.WriteString(prog)
	for _, w := range bounds[1:] {
		b.WriteByte(' ')
		b.WriteString(s[w[0]:w[1]])
	}
	return b.String()
}

// firstWords appends to dst the bounds of up to cap(dst) of the first
// words of s.
func firstWords(s string, dst [][2]int) [][2]int {
	i := 0
	for len(dst) < cap(dst) {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n') {
			i++
		}
		if i == len(s) {
			break
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\n' {
			j++
		}
		dst = append(dst, [2]int{i, j})
		i = j
	}
	return dst
}

// addedText returns the lines an edit adds that were not there before.
func addedText(e Edit) string {
	switch e.Op {
	case EditWrite, EditAppend, EditLines:
		return e.New
	case EditReplace:
		if e.Old == "" {
			return e.New
		}
		var b strings.Builder
		for line := range strings.Lines(e.New) {
			if !strings.Contains(e.Old, strings.TrimSpace(line)) {
				b.WriteString(line)
			}
		}
		return b.String()
	}
	return ""
}

// commentsOutAssertion reports whether an edit turns an assertion into a
// comment.
func commentsOutAssertion(old, repl string) bool {
	if old == "" {
		return false
	}
	for line := range strings.Lines(old) {
		if !assertion().MatchString(line) {
			continue
		}
		body := strings.TrimSpace(line)
		for nl := range strings.Lines(repl) {
			t := strings.TrimSpace(nl)
			if (strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//")) && strings.Contains(t, body) {
				return true
			}
		}
	}
	return false
}
