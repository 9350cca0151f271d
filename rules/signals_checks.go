package rules

// The signals of a check tampered with instead of a cause fixed: a
// command that turns a check off or hides an exit code, and an edit that
// weakens a test, turns a check off in a setting, or edits a check right
// after it failed.

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"sync"
)

var (
	// checkOffFlag matches command-line flags and variables that turn a
	// check, a verification or a hook off, whenever they appear.
	checkOffFlag = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(--no-verify\b|--deselect\b|\s-k\s+['"]?not\s|\bskip(?:_\w+)?=(?:1|true|yes)\b|\bskip=\S|-dskiptests|-dmaven\.test\.skip|--skip-(?:tests|checks|hooks|verify|lint)\b|--no-check\b|\bhusky=0\b|--no-hooks\b|--no-lint\b|--nocheck\b|--no-typecheck\b|--disable-warnings\b|-p no:\w+)`)
	})
	checkOffWords = newKeywords("--no-verify", "--deselect", "-k ", "skip", "-dmaven", "--no-check", "husky", "--no-hooks", "--no-lint", "--nocheck", "--no-typecheck", "--disable-warnings", "-p no:")
	// hideExit matches a command that hides how the program before it
	// ended: an exit code swallowed or printed, output discarded.
	hideExit = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\|\|\s*(?:true|:|exit 0|echo)\b|echo\s+["']?[^"'\n;|&]{0,20}\$\?|[&12]?>\s*/dev/null|\bset \+e\b)`)
	})
	hideExitWords = newKeywords("||", "$?", "/dev/null", "set +e")
	// checkOffSetting matches configuration that turns checks off.
	checkOffSetting = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`("?strict"?\s*[:=]\s*false\b|noimplicitany"?\s*[:=]\s*false|ignorebuilderrors"?\s*[:=]\s*true|ignoreduringbuilds"?\s*[:=]\s*true|continue-on-error\s*:\s*true|allow_failure\s*:\s*true|ignore_errors\s*=\s*true|skiplibcheck"?\s*[:=]\s*true|"(?:lint|typecheck|type-check|test|check)"\s*:\s*"(?:echo|true|exit 0)|disable_error_code|@ts-nocheck|pylint:\s*disable|eslint-disable|"?(?:no-unused-vars|no-explicit-any)"?\s*:\s*"?(?:off|0)\b|checkjs"?\s*[:=]\s*false)`)
	})
	settingWords = newKeywords("strict", "noimplicitany", "ignorebuild", "ignoreduring", "continue-on-error", "allow_failure", "ignore_errors", "skiplibcheck", "\"echo", "\"true", "\"exit 0", "disable", "nocheck", "no-unused", "no-explicit", "checkjs")
)

// commandOff signals a command that turns a check off, or that hides the
// exit code of a program that failed within the last few steps.
func (s *signaller) commandOff(a *act) {
	line := a.Command
	if strings.Contains(line, "<<") && a.bare != "" {
		// The line without here-document bodies: flags, not the
		// scripts a line carries.
		line = a.bare
	}
	if len(line) > 4096 {
		line = line[:4096]
	}
	s.buf = lowerInto(s.buf, line)
	if m := findNear(checkOffFlag(), s.buf, checkOffWords, 8, 24); m != "" {
		s.emit(SignalCheckOff, fmt.Sprintf("`%s` in `%s`", strings.TrimSpace(m), clip(a.Command, 80)))
		return
	}
	if len(s.recent) == 0 {
		return
	}
	if m := findNear(hideExit(), s.buf, hideExitWords, 24, 12); m != "" {
		f := s.recent[len(s.recent)-1]
		s.emit(SignalCheckOff, fmt.Sprintf("`%s` in `%s` after `%s` failed at step %d", strings.TrimSpace(m), clip(a.Command, 80), clip(f.command, 60), f.n))
	}
}

var (
	// alwaysTrue matches an assertion that cannot fail.
	alwaysTrue = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(\bassert\s*\(?\s*(?:true|1)\s*\)?\s*(?:$|#|;|\n)|expect\(\s*true\s*\)\.to(?:be|equal)\(\s*true\s*\)|assert\.(?:true|ok)\(\s*(?:t,\s*)?true\s*\)|self\.assert(?:true|_)\(\s*true\s*\)|assert!\(\s*true\s*\)|assert_eq!\(\s*true,\s*true\s*\))`)
	})
	alwaysTrueWords = newKeywords("assert", "expect(")
)

// checkPrograms are programs that check code without running it.
var checkPrograms = []string{"mypy", "tsc", "eslint", "ruff", "flake8", "pylint", "golangci-lint", "pre-commit", "black",
	"prettier", "go vet", "cargo clippy", "pyright", "npm run", "yarn run", "pnpm run", "make", "git commit", "cargo check", "cargo build", "go build"}

// isCheckProgram reports whether a program key names a linter, type
// checker, build or hook-running command.
func isCheckProgram(key string) bool {
	for _, p := range checkPrograms {
		if key == p {
			return true
		}
	}
	return false
}

// edited signals edits that weaken a check, turn it off in a setting, or
// change a test or check file right after it failed.
func (s *signaller) edited(a *act) {
	for _, e := range a.Edits {
		path := fileKey(e.Path)
		p := tailClip(path, 120) // for details
		test := isTestFile(path) || inTestFolder(path)
		if s.checkFailed > 0 && (test || isConfigFile(path) || isCheckConfig(path)) {
			s.emit(SignalCheckEdited, fmt.Sprintf("%s edited after `%s` failed at step %d", p, s.checkCommand, s.checkFailed))
		}
		added := addedText(e)
		if e.Op == EditScript && strings.Contains(strings.ToLower(e.New), "[x]") {
			added = e.New // a script that ticks boxes (sed, perl -pi)
		}
		if added != "" {
			if len(added) > 8<<10 {
				// A marker or setting added to a file is in what an
				// edit shows first; a huge write is bounded.
				added = added[:8<<10]
			}
			s.buf = lowerInto(s.buf, added)
			if i := bytes.Index(s.buf, []byte("[x]")); i >= 0 && s.ticked == "" {
				s.ticked = fmt.Sprintf("ticks %s in %s", clip(added[i:], 60), p)
			}
			if isProse(path) {
				continue
			}
			if e.Op == EditWrite && !test && !isSettingsFile(path) && len(added) > 2<<10 {
				// A whole file written (a script, a new module): its
				// head is where a marker that matters would be.
				s.buf = s.buf[:2<<10]
			}
			if lo, hi := findNearIndex(suppressMarker(), s.buf, markerWords, 24, 16); hi > 0 {
				s.emit(SignalCheckWeakened, fmt.Sprintf("adds `%s` to %s", added[lo:hi], p))
			} else if lo, hi := s.alwaysTrueIn(test); hi > 0 {
				s.emit(SignalCheckWeakened, fmt.Sprintf("adds `%s` to %s", strings.TrimSpace(added[lo:hi]), p))
			} else if lo, hi := s.settingIn(path); hi > 0 {
				s.emit(SignalCheckOff, fmt.Sprintf("adds `%s` to %s", strings.TrimSpace(added[lo:hi]), p))
			}
		}
		if !mayAssert(e.Old) {
			continue
		}
		if commentsOutAssertion(e.Old, e.New) {
			s.emit(SignalCheckWeakened, "comments out an assertion in "+p)
		} else if test && e.Op == EditReplace {
			if was, is := assertions(e.Old), assertions(e.New); was > is {
				s.emit(SignalCheckWeakened, fmt.Sprintf("removes %d of %d assertions from %s", was-is, was, p))
			}
		}
	}
}

// runsTestFile reports whether an action runs a script named as a test
// (python test_x.py).
func runsTestFile(a *act) bool {
	for _, s := range a.scripts {
		if isTestFile(s) {
			return true
		}
	}
	return false
}

// alwaysTrueIn returns the bounds in s.buf of an assertion that cannot
// fail, in a test file; 0, 0 when there is none.
func (s *signaller) alwaysTrueIn(test bool) (int, int) {
	if !test {
		return 0, 0
	}
	return findNearIndex(alwaysTrue(), s.buf, alwaysTrueWords, 16, 48)
}

// settingIn returns the bounds in s.buf of a setting that turns checks
// off: in a file that holds settings, or a whole-file switch (// @ts-nocheck,
// # pylint: disable) in any file; 0, 0 when there is none.
func (s *signaller) settingIn(p string) (int, int) {
	if isSettingsFile(p) {
		return findNearIndex(checkOffSetting(), s.buf, settingWords, 24, 40)
	}
	for _, w := range [...]string{"@ts-nocheck", "pylint: disable"} {
		if i := bytes.Index(s.buf, []byte(w)); i >= 0 {
			return i, i + len(w)
		}
	}
	return 0, 0
}

// isSettingsFile reports whether a file holds settings: configuration of
// a tool, a build or a CI job.
func isSettingsFile(p string) bool {
	if isConfigFile(p) || isCheckConfig(p) || strings.Contains(p, "workflows/") {
		return true
	}
	b := p[strings.LastIndexByte(p, '/')+1:]
	if strings.HasPrefix(b, ".") || strings.Contains(b, ".config.") || strings.Contains(b, "rc.") {
		return true
	}
	switch b[strings.LastIndexByte(b, '.')+1:] {
	case "json", "toml", "yaml", "yml", "ini", "cfg", "conf":
		return true
	}
	return false
}

// tailClip shortens a path to its last n bytes or so, marking the cut
// with "…": the end names the file.
func tailClip(p string, n int) string {
	if len(p) <= n {
		return p
	}
	cut := len(p) - n
	for cut < len(p) && p[cut]&0xc0 == 0x80 {
		cut++
	}
	return "…" + p[cut:]
}

// isProse reports whether a file holds text rather than code or settings
// (README.md, notes.txt), where markers and settings mean nothing.
func isProse(p string) bool {
	switch p[strings.LastIndexByte(p, '.')+1:] {
	case "md", "txt", "rst", "adoc", "csv", "svg", "html", "lock":
		return true
	}
	return false
}

// isCheckConfig reports whether a file configures linters or type
// checkers.
func isCheckConfig(p string) bool {
	b := p[strings.LastIndexByte(p, '/')+1:]
	return strings.HasPrefix(b, ".eslintrc") || strings.HasPrefix(b, "eslint.config") || strings.HasPrefix(b, "tsconfig") ||
		strings.HasPrefix(b, ".prettierrc") || b == "ruff.toml" || b == ".ruff.toml" || b == ".pylintrc" ||
		strings.HasPrefix(b, "jest.config") || strings.HasPrefix(b, "vitest.config") || strings.HasPrefix(b, "next.config") ||
		strings.HasPrefix(b, ".husky") || strings.Contains(p, ".husky/")
}

// mayAssert reports whether a text may hold an assertion: a cheap test
// before the lines are matched one by one.
func mayAssert(text string) bool {
	return strings.Contains(text, "assert") || strings.Contains(text, "expect(") || strings.Contains(text, "require.") ||
		strings.Contains(text, "t.Error") || strings.Contains(text, "t.Fatal")
}

// assertions counts the lines of a text that check something.
func assertions(text string) int {
	n := 0
	for line := range strings.Lines(text) {
		if assertion().MatchString(line) {
			n++
		}
	}
	return n
}
