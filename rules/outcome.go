package rules

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// judge settles whether an answered action failed, from its result: the
// tool result's error flag (already in Failed), else the exit code its
// text shows, else, for runs, the text itself.
func (a *Action) judge() {
	if code, ok := exitCode(a.Output); ok {
		a.ExitCode = code
		if code != 0 {
			a.Failed = true
		}
		if code == 1 && a.Kind == KindSearch && noOutput(a.Output) {
			// grep and friends exit 1 when they find nothing: an answer,
			// not a failure.
			a.Failed = false
		}
	}
	if !a.Failed && a.Kind == KindEdit && a.ExitCode < 0 {
		// Editors that answer in text say so when they refused an edit.
		for _, m := range editRefusals {
			if strings.Contains(a.Output, m) {
				a.Failed = true
				break
			}
		}
	}
	if a.Failed || !a.Run {
		return
	}
	// A run whose exit code is unknown, or hidden behind a pipe
	// (python x.py | tail), failed when its output ends in a traceback or
	// in a test summary that counts failures.
	if a.ExitCode < 0 || strings.Contains(a.canonical, "|") || strings.Contains(a.Command, "|") {
		a.Failed = endsInError(a.Output) || a.Test && testsFailed(a.Output)
	}
}

// editRefusals are what editors write when they did not apply an edit:
// SWE-agent's edit command and str_replace_editor, and edit tools that
// report errors in text.
var editRefusals = []string{
	"Your proposed edit has introduced new syntax error",
	"Your changes have NOT been applied",
	"No replacement was performed",
	"did not appear verbatim",
	"old_text not found",
	"String to replace not found",
	"Found multiple matches", // not unique
	"matches of the string to replace, but replace_all is false",
	"is not unique",
	"must be unique",
	"Could not find the exact text",
	"Failed to find expected lines",
	"apply_patch verification failed",
	"Invalid patch",
	"patch does not apply",
	"No changes made",
	"The edit was rejected",
}

// exitCode finds the exit code that a harness writes around a command's
// output: mini-swe-agent's <returncode>, vigil's "[exit code N]", Claude
// Code's "Exit code N", Codex's "Process exited with code N". It looks
// only at the first and last few hundred bytes.
func exitCode(out string) (int, bool) {
	parts := [2]string{out}
	if len(out) > 512 {
		parts = [2]string{out[:256], out[len(out)-256:]}
	}
	// Every marker names a code or a status: a part with neither has none.
	for k, part := range parts {
		if !strings.Contains(part, "code") && !strings.Contains(part, "status") {
			parts[k] = ""
		}
	}
	if parts[0] == "" && parts[1] == "" {
		return 0, false
	}
	for _, m := range exitMarkers {
		for _, part := range parts {
			if part == "" {
				continue
			}
			i := strings.Index(part, m.prefix)
			if i < 0 {
				continue
			}
			rest := part[i+len(m.prefix):]
			j := 0
			for j < len(rest) && (rest[j] == '-' && j == 0 || rest[j] >= '0' && rest[j] <= '9') {
				j++
			}
			if n, err := strconv.Atoi(rest[:j]); err == nil {
				return n, true
			}
		}
	}
	return 0, false
}

// exitMarkers are the texts that come before an exit code. Each contains
// "code" or "status", which exitCode relies on.
var exitMarkers = []struct{ prefix string }{
	{"<returncode>"},
	{"[exit code "},
	{"Process exited with code "},
	{"Exit code: "},
	{"Exit code "},
	{"exit status "},
	{"exit_code: "},
	{"Command exited with code "},              // pi, omp
	{"[The command completed with exit code "}, // OpenHands
	{"[Command finished with exit code "},      // OpenHands
}

// errorLine matches the last line of a Python traceback or a shell error.
var errorLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)(?::|$)|Traceback \(most recent call last\)|.*: command not found$|.*[Ss]egmentation fault|FAILED\b|FAIL\b|panic: |fatal error: |error(?:\[E\d+\])?: )`)
})

// endsInError reports whether output ends in an error: one of its last
// three lines is an exception, a failure summary or a shell error.
func endsInError(out string) bool {
	var buf [3]string
	for _, l := range appendLastLines(buf[:0], out, 3) {
		if errorLine().MatchString(l) {
			return true
		}
	}
	return false
}

// testFailure matches the summary lines with which test runners report
// failures: pytest's "2 failed", unittest's "FAILED (failures=1)", go's
// "FAIL", jest's "Tests: 1 failed", cargo's "test result: FAILED".
var testFailure = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)(?:\b[1-9]\d* (?:failed|errors?)\b|^FAILED \((?:failures|errors)=|^FAIL\b|^--- FAIL|Tests:\s+[1-9]\d* failed|test result: FAILED|^ERROR: )`)
})

// testsFailed reports whether the tail of a test run's output reports
// failing tests.
func testsFailed(out string) bool {
	if len(out) > tailSize {
		out = out[len(out)-tailSize:]
	}
	if !strings.Contains(out, "fail") && !strings.Contains(out, "FAIL") && !strings.Contains(out, "error") && !strings.Contains(out, "ERROR") {
		return false
	}
	return testFailure().MatchString(out)
}

// noOutput reports whether a result holds nothing but what harnesses write
// around an empty output: a placeholder for it, the exit status, Codex's
// header, omp's wall time.
func noOutput(out string) bool {
	if len(out) > 512 {
		return false
	}
	for line := range strings.SplitSeq(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || isWrapperLine(line) || slices.Contains(noOutputLines, line) {
			continue
		}
		if !hasAnyPrefix(line, noOutputPrefixes) {
			return false
		}
	}
	return true
}

// noOutputLines are the placeholders harnesses write for an empty output.
var noOutputLines = []string{
	"(no output)",                     // vigil, pi, omp
	"(Bash completed with no output)", // Claude Code
	"Your command ran successfully and did not produce any output.", // SWE-agent
	"Output:", // Codex, after its header
}

// noOutputPrefixes open the status lines harnesses write with an output.
var noOutputPrefixes = []string{
	"Chunk ID: ", "Wall time: ", "Original token count: ", "Exit code: ", "Process exited with code ", // Codex
	"Command exited with code ",                                                   // pi, omp
	"[The command completed with exit code ", "[Command finished with exit code ", // OpenHands
	"OBSERVATION:", // SWE-agent
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// harnessRefused reports whether a failed result is a harness rejecting
// the call in words the format-errors expression does not know: the
// OpenHands SDK's answer to arguments its tool's model refused.
func harnessRefused(out string) bool {
	return strings.HasPrefix(out, "Error validating args ") && strings.Contains(out[:min(len(out), refusalLimit)], " for tool '")
}
