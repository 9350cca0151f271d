package transcript

import "strings"

// Refusals of the system rather than of a harness: a command the shell
// could not run or a file a program could not touch for want of
// permission. Formats that record an exit code fail such a command by
// it; the others (SWE-agent, an OpenHands observation without one, a
// mini-swe-agent observation without a return code, a Codex output
// without its header) hold only the text, and a text that is nothing but
// refusals is a failure.

// deniedWords are what a refusal line says, in lower case.
var deniedWords = []string{"permission denied", "operation not permitted", "read-only file system"}

// deniedLimit bounds the text onlyDenials looks at: refusals are short,
// and a long output that holds some is a program's, which its exit code
// judges.
const deniedLimit = 4096

// onlyDenials reports whether every line of text, leaving out blank
// lines and the harnesses' frame around an output (frameLine), is a
// refusal, and there is one.
func onlyDenials(text string) bool {
	if len(text) > deniedLimit {
		return false
	}
	seen := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || frameLine(line) {
			continue
		}
		lower := strings.ToLower(line)
		denied := false
		for _, w := range deniedWords {
			if strings.Contains(lower, w) {
				denied = true
				break
			}
		}
		if !denied {
			return false
		}
		seen = true
	}
	return seen
}

// frameLine reports whether line is one a harness puts around an output:
// the word SWE-agent 1.x opens an observation with and the lines SWE-agent
// ends one with (the open file, the current folder and the prompt), and
// mini-swe-agent's <output> tags.
func frameLine(line string) bool {
	return strings.HasPrefix(line, "(Open file:") || strings.HasPrefix(line, "(Current directory:") ||
		line == "bash-$" || line == "OBSERVATION:" || line == "<output>" || line == "</output>"
}
