package transcript

// How a Codex rollout's item contents read: message texts, command
// outputs (with the header Codex puts before them) and refusals.

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// cxTexts decodes message content: a list of content items, or a string.
func cxTexts(raw json.RawMessage) []cxText {
	if s, ok := stringContent(raw); ok {
		return []cxText{{Type: "input_text", Text: s}}
	}
	var items cxTextList
	_ = decodeJSON(nil, raw, &items)
	return items
}

// cxExitRE finds the exit status in a command's output, as the shell
// tools of different versions print it.
var cxExitRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:?) (-?\d+)`)
})

// cxOutput returns a tool output's text and whether it reports a failure:
// a command that exited with another code than 0, or a call Codex refused
// (cxRefused). The output is a string (plain, or JSON holding output and
// exit status), a list of content items, or an object {content,
// success}. The header Codex writes before a command's output keeps its
// facts but loses its volatile lines (cxQuiet).
func cxOutput(raw json.RawMessage) (string, bool) {
	text, ok := stringContent(raw)
	if !ok {
		var obj struct {
			Content json.RawMessage `json:"content"`
			Success *bool           `json:"success"`
		}
		if json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
			t, failed := cxOutput(obj.Content)
			return t, failed || (obj.Success != nil && !*obj.Success)
		}
		var parts []string
		for _, c := range cxTexts(raw) {
			if c.Text != "" {
				parts = append(parts, c.Text)
			}
		}
		text = strings.Join(parts, "\n")
	}
	var shell struct {
		Output   *string `json:"output"`
		Metadata *struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if strings.HasPrefix(text, "{") && json.Unmarshal([]byte(text), &shell) == nil && shell.Output != nil {
		failed := shell.Metadata != nil && shell.Metadata.ExitCode != nil && *shell.Metadata.ExitCode != 0
		return *shell.Output, failed
	}
	if cxRefused(text) {
		return text, true
	}
	// The expression's words are looked for first: the expression is
	// slow on long outputs, which seldom hold them.
	if !strings.Contains(text, "Process exited with code") && !strings.Contains(text, "Exit code") {
		return cxQuiet(text, cxHeaderDepth), onlyDenials(text)
	}
	failed := false
	if m := cxExitRE().FindStringSubmatch(text); m != nil {
		failed = m[1] != "0"
	}
	return cxQuiet(text, cxHeaderDepth), failed
}

// cxRefusals open the outputs with which Codex answers a call it did not
// run: a tool it does not have, arguments it could not parse. The output
// is that message alone, and Codex records it as a plain string, with no
// status.
var cxRefusals = []string{"unsupported call: ", "unsupported custom tool call: ", "failed to parse function arguments"}

// cxDenials open the outputs with which Codex answers a call its sandbox
// refused or ran and failed ("failed in sandbox LinuxSeccomp with
// execution error: sandbox denied exec error, exit code: 1, stdout: …",
// with no header and no exit status), one the user declined to approve,
// or one it could not start. They are failures like a non-zero exit.
var cxDenials = []string{"failed in sandbox ", "failed in sandbox: ", "sandbox error: ", "exec command rejected by user",
	"patch rejected by user", "exec_command failed: "}

// cxRefused reports whether an output is Codex refusing the call, or
// denying it (cxDenials).
func cxRefused(text string) bool {
	for _, p := range cxRefusals {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	for _, p := range cxDenials {
		if strings.HasPrefix(text, p) {
			return true
		}
	}
	return false
}

// cxHeaderLines open the lines of the header Codex writes before a
// command's output, which ends with the line "Output:" (from Codex's
// unified exec, and "Exit code:" and "Total output lines:" from its older
// shell tool). cxVolatile are those of them that differ from one run of
// the same command to the next whatever the command printed: a random
// chunk id and the wall time.
var (
	cxHeaderLines = []string{"Command: ", "Chunk ID: ", "Wall time: ", "Process exited with code ",
		"Process running with session ID ", "Original token count: ", "Exit code: ", "Total output lines: "}
	cxVolatile = []string{"Chunk ID: ", "Wall time: "}
)

// cxHeaderDepth is how many headers in a row cxQuiet looks at: Codex runs
// an apply_patch given to exec_command itself, and its output, with a
// header of its own, follows exec_command's header.
const cxHeaderDepth = 2

// cxQuiet returns a command's output without the volatile lines of the
// header before it, so that two runs of a command that print the same read
// the same: the exit code, a running process's session, the token count
// and the output stay. Only a header of the lines Codex writes there, up
// to "Output:", is touched, and up to depth headers in a row; any other
// text is returned as it is.
func cxQuiet(text string, depth int) string {
	end := cxHeaderEnd(text)
	if end < 0 {
		return text
	}
	rest := text[end:]
	if depth > 1 {
		rest = cxQuiet(rest, depth-1)
	}
	head := text[:end]
	// Codex writes the volatile lines first (after a command line, when
	// there is one), so the common header loses a prefix and the text
	// needs no copy.
	skip := 0
	for skip < len(head) && cxHasPrefix(head[skip:], cxVolatile) {
		skip += strings.IndexByte(head[skip:], '\n') + 1
	}
	if !cxHasVolatileLine(head[skip:]) {
		if len(rest) == len(text)-end {
			return text[skip:]
		}
		return head[skip:] + rest
	}
	var b strings.Builder
	b.Grow(len(head) + len(rest))
	for line := range strings.SplitAfterSeq(head, "\n") {
		if !cxHasPrefix(line, cxVolatile) {
			b.WriteString(line)
		}
	}
	b.WriteString(rest)
	return b.String()
}

// cxHeaderEnd returns where the header at the start of text ends, after
// its "Output:" line; -1 when text does not start with one: a line that is
// not a header line comes first, or no "Output:" line comes within the
// header's few lines.
func cxHeaderEnd(text string) int {
	if !cxHasPrefix(text, cxHeaderLines) {
		return -1
	}
	at := 0
	for range len(cxHeaderLines) + 1 {
		line := text[at:]
		next := len(text)
		if i := strings.IndexByte(line, '\n'); i >= 0 {
			line, next = line[:i], at+i+1
		}
		switch {
		case line == "Output:":
			return next
		case next == len(text) || !cxHasPrefix(line, cxHeaderLines):
			return -1
		}
		at = next
	}
	return -1
}

// cxHasVolatileLine reports whether one of the lines of head is volatile.
func cxHasVolatileLine(head string) bool {
	for _, p := range cxVolatile {
		if strings.Contains(head, "\n"+p) || strings.HasPrefix(head, p) {
			return true
		}
	}
	return false
}

// cxHasPrefix reports whether s starts with one of prefixes.
func cxHasPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// cxShortURL keeps data: URLs from filling a text block with base64.
func cxShortURL(u string) string {
	if strings.HasPrefix(u, "data:") {
		if i := strings.IndexByte(u, ','); i >= 0 {
			return u[:i]
		}
	}
	return u
}
