package history

// How a tool result's outcome is decided: "ok" or "error" on its tool
// line.

import (
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

// failed reports whether a result reports a failure, from its error flag
// (which the transcript readers set from what the harness recorded) or,
// when the harness said so only in text, from that text: Codex's
// sandbox refusals and execution errors, a declined approval, an exit
// code other than 0 in the marker a harness writes around a command's
// output, "permission denied", and, for a call that edits files (edit
// true), an editor saying it did not apply the edit. text is the result's
// text, cleaned; only its head and tail are read, so the time is bounded.
func failed(r *llm.Block, text string, edit bool) bool {
	if r.IsError {
		return true
	}
	head, tail := text, ""
	if len(text) > outcomeWindow {
		head, tail = text[:outcomeWindow], text[len(text)-outcomeWindow:]
	}
	trimmed := strings.TrimLeft(head, " \t\n")
	for _, p := range failurePrefixes {
		if strings.HasPrefix(trimmed, p) {
			return true
		}
	}
	if strings.HasSuffix(firstLine(trimmed), "rejected by user") {
		return true
	}
	if code, ok := harnessExitCode(head, tail); ok {
		return code != "0"
	}
	if permissionDenied(firstLine(trimmed)) || permissionDenied(lastLine(text)) {
		return true
	}
	if edit {
		for _, s := range editRefusals {
			if strings.Contains(head, s) {
				return true
			}
		}
	}
	return false
}

// outcomeWindow is how many bytes at each end of a result failed reads.
const outcomeWindow = 512

// failurePrefixes open the results with which a harness reports a command
// it did not run or that failed outside the command's own output: Codex's
// sandbox ("failed in sandbox LinuxSeccomp with execution error: …, exit
// code: 1, …" or "failed in sandbox: …", often with no exit code) and its
// execution errors, and Claude Code's answer when the user declined a
// call. (Codex's is a first line that ends "rejected by user": "exec
// command rejected by user", "patch rejected by user".)
var failurePrefixes = []string{"failed in sandbox", "execution error: ",
	"The user doesn't want to proceed with this tool use", "The user doesn't want to take this action"}

// exitMarkers come before the exit code a harness writes around a
// command's output, at the start of a line: Codex's header, vigil's
// "[exit code N]", mini-swe-agent's <returncode>, pi's and omp's, and
// OpenHands'. They are the transcript readers' and the rules' markers.
var exitMarkers = []string{
	"Exit code: ", "Process exited with code ", "[exit code ", "<returncode>",
	"Command exited with code ", "[The command completed with exit code ", "[Command finished with exit code ",
}

// harnessExitCode returns the exit code of the first marker at the start
// of a line in head, else of the last one in tail.
func harnessExitCode(head, tail string) (string, bool) {
	code, ok := "", false
	scan := func(s string, first bool) {
		for line := range strings.SplitSeq(s, "\n") {
			for _, m := range exitMarkers {
				if !strings.HasPrefix(line, m) {
					continue
				}
				rest := line[len(m):]
				n := 0
				for n < len(rest) && (rest[n] >= '0' && rest[n] <= '9' || n == 0 && rest[n] == '-') {
					n++
				}
				if n > 0 && rest[:n] != "-" {
					code, ok = rest[:n], true
					if first {
						return
					}
				}
			}
		}
	}
	if scan(head, true); ok {
		return code, true
	}
	scan(tail, false)
	return code, ok
}

// permissionDenied reports whether a line is an operating system's
// refusal: "PROGRAM: PATH: Permission denied", "permission denied: …",
// Node's "EACCES: permission denied, open …".
func permissionDenied(line string) bool {
	l := strings.ToLower(strings.TrimSpace(line))
	return strings.HasSuffix(l, ": permission denied") || strings.HasPrefix(l, "permission denied") ||
		strings.Contains(l, "eacces: permission denied")
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\n")
	return s[strings.LastIndexByte(s, '\n')+1:]
}

// editRefusals are what editors write when they did not apply an edit
// (SWE-agent's and OpenHands' str_replace_editor, Codex's apply_patch, and
// edit tools that report errors in text), as the rules read them.
var editRefusals = []string{
	"Your proposed edit has introduced new syntax error",
	"Your changes have NOT been applied",
	"No replacement was performed",
	"did not appear verbatim",
	"old_text not found",
	"String to replace not found",
	"Found multiple matches",
	"matches of the string to replace, but replace_all is false",
	"Could not find the exact text",
	"Failed to find expected lines",
	"apply_patch verification failed",
	"Invalid patch",
	"patch does not apply",
	"No exact match found",
}

// editTool reports whether a call edits files, by its tool's name or the
// arguments only edits have.
func editTool(name string, args []arg) bool {
	switch strings.ToLower(name) {
	case "edit", "multiedit", "multi_edit", "notebookedit", "write", "write_file", "create_file", "apply_patch",
		"str_replace_editor", "str_replace_based_edit_tool", "text_editor", "editor", "edit_file", "str_replace":
		return true
	}
	for _, a := range args {
		switch a.key {
		case "old_string", "old_text", "oldText", "old_str", "edits":
			return true
		}
	}
	return false
}
