package rules

// The edits that weaken a check right after it failed, for the workaround
// detector: a test made to pass whatever the code does, its expected value
// rewritten to what the failing run printed, an exit code hidden in the
// script the check runs, a setting that turns the check off.

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var (
	// literal matches the values an assertion compares with: numbers and
	// quoted strings.
	literal = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-?\b\d+(?:\.\d+)?\b|"[^"\n]{2,80}"|'[^'\n]{2,80}'`)
	})
	// testWrong matches a reply saying that the test, not the code, is
	// wrong: a reason given for changing what it expects.
	testWrong = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`\b(?:slip|typo|mistake|error|bug) in the (?:test|expectation|assertion)|\b(?:test|tests|expectation|assertion|expected value)\b[^.\n]{0,60}\b(?:is|was|are|were) (?:wrong|incorrect|mistaken|outdated|stale|off)\b|\bthe test (?:itself )?(?:is|was) (?:the )?(?:wrong|bug)`)
	})
	// settingLine matches a setting's line that switches something on or
	// off: `forbid_print = true`, `"strict": false`, `enabled: off`.
	settingLine = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)^\s*"?([\w.-]+)"?\s*[:=]\s*"?(true|false|yes|no|on|off|error|warn|0|1)"?\s*,?\s*$`)
	})
)

// weakens says whether an edit made after a check failed weakens that
// check instead of fixing its cause, and how; "" when it does not. text is
// the reply's text, which may give the reason for a test's change.
func weakens(e Edit, last failure, text string, buf *[]byte) string {
	path := fileKey(e.Path)
	added := addedText(e)
	test := isTestFile(path) || inTestFolder(path)
	if test && last.test {
		if added != "" {
			*buf = lowerInto(*buf, added)
			if lo, hi := findNearIndex(alwaysTrue(), *buf, alwaysTrueWords, 16, 48); hi > 0 {
				return fmt.Sprintf("makes a test in %s pass whatever the code does (`%s`)", path, strings.TrimSpace(added[lo:hi]))
			}
		}
		if e.Op == EditReplace && mayAssert(e.Old) && assertions(e.Old) > 0 && stub(e.New) {
			return fmt.Sprintf("empties a failing test in %s (its assertions become `%s`)", path, clip(strings.TrimSpace(e.New), 40))
		}
		if v := printedValue(e, last.output); v != "" {
			*buf = lowerInto(*buf, text)
			if !testWrong().Match(*buf) {
				return fmt.Sprintf("changes what a test in %s expects to %s, the value the failing run printed", path, v)
			}
		}
	}
	if added != "" && runsFile(last.command, path) {
		*buf = lowerInto(*buf, added)
		if m := findNear(suppressFlag(), *buf, flagWords, 8, 24); m != "" {
			return fmt.Sprintf("adds `%s` to %s, which it runs", strings.TrimSpace(m), path)
		}
	}
	if last.check && isSettingsFile(path) {
		if key := switchedOff(e); key != "" {
			return fmt.Sprintf("turns `%s` off in %s", key, path)
		}
		if added != "" {
			*buf = lowerInto(*buf, added)
			if lo, hi := findNearIndex(checkOffSetting(), *buf, settingWords, 24, 40); hi > 0 {
				return fmt.Sprintf("adds `%s` to %s", strings.TrimSpace(added[lo:hi]), path)
			}
		}
	}
	return ""
}

// stub reports whether code does nothing: every line is empty, a comment,
// pass, return, "..." or a brace; some line is not empty.
func stub(code string) bool {
	some := false
	for line := range strings.Lines(code) {
		t := strings.TrimSpace(line)
		switch {
		case t == "":
			continue
		case t == "pass" || t == "return" || t == "return;" || t == "..." || t == "{" || t == "}" || t == "{}",
			strings.HasPrefix(t, "#") || strings.HasPrefix(t, "//"):
			some = true
		default:
			return false
		}
	}
	return some
}

// printedValue returns a value that an edit of an assertion puts in place
// of another and that the failing run's output shows: the expected value
// rewritten to what the code returned; "" when there is none.
func printedValue(e Edit, output string) string {
	if e.Op != EditReplace || output == "" || !mayAssert(e.Old) || assertions(e.Old) == 0 {
		return ""
	}
	for line := range strings.Lines(e.New) {
		if strings.Contains(e.Old, strings.TrimSpace(line)) || !assertion().MatchString(line) && !strings.Contains(line, "assert") {
			continue
		}
		for _, v := range literal().FindAllString(line, 8) {
			if len(strings.Trim(v, `"'-`)) < 2 || strings.Contains(e.Old, v) {
				continue
			}
			if containsWord(output, strings.Trim(v, `"'`)) {
				return v
			}
		}
	}
	return ""
}

// containsWord reports whether s holds w with no letter, digit or dot
// right before or after it.
func containsWord(s, w string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], w)
		if j < 0 {
			return false
		}
		j += i
		end := j + len(w)
		if (j == 0 || !wordByte(s[j-1])) && (end == len(s) || !wordByte(s[end])) {
			return true
		}
		i = j + 1
	}
}

// wordByte is isWordByte, and the dot of a number or a file name.
func wordByte(c byte) bool { return c == '.' || isWordByte(c) }

// runsFile reports whether a command runs the file at path: the command
// names it (tools/check.sh, ./check.sh).
func runsFile(command, path string) bool {
	if path == "" || command == "" {
		return false
	}
	base := path[strings.LastIndexByte(path, '/')+1:]
	if !strings.Contains(base, ".") && !strings.Contains(path, "/") {
		return false // a bare word names no script
	}
	return containsWord(command, base) || containsWord(command, path)
}

// switchedOff returns the key of a setting an edit switches from on to
// off (true to false, error to warn), or "".
func switchedOff(e Edit) string {
	if e.Old == "" || e.New == "" {
		return ""
	}
	before := map[string]string{}
	for _, m := range settingLine().FindAllStringSubmatch(e.Old, 16) {
		before[strings.ToLower(m[1])] = strings.ToLower(m[2])
	}
	if len(before) == 0 {
		return ""
	}
	for _, m := range settingLine().FindAllStringSubmatch(e.New, 16) {
		key, to := strings.ToLower(m[1]), strings.ToLower(m[2])
		if on(before[key]) && off(to) {
			return m[1]
		}
	}
	return ""
}

func on(v string) bool  { return v == "true" || v == "yes" || v == "on" || v == "error" || v == "1" }
func off(v string) bool { return v == "false" || v == "no" || v == "off" || v == "warn" || v == "0" }
