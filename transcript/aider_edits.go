package transcript

import (
	"encoding/json"
	"strings"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"

	"github.com/vigil-dev/vigil/internal/lazyre"
)

// Aider's edits. A reply in aider's diff edit format changes files with
// SEARCH/REPLACE blocks, each after the name of its file:
//
//	calc.py
//	```python
//	<<<<<<< SEARCH
//	    return a - b
//	=======
//	    return a + b
//	>>>>>>> REPLACE
//	```
//
// and aider's output after the reply says how they went: "Applied edit to
// calc.py", or "# 1 SEARCH/REPLACE block failed to match!" followed by each
// block that failed ("## SearchReplaceNoExactMatch: This SEARCH block
// failed to exactly match lines in calc.py" and the block) and "The SEARCH
// section must exactly match an existing block of lines…", which aider
// also sends the model as the next message. The reader makes each block an
// "edit" call ({"path", "old_text", "new_text"}, ids "call-<reply>-<k>")
// and the output after the reply their results: an error for a block the
// output names as failed (every block, when the output says blocks failed
// but names none the reader can match).
//
// Aider writes a message of several lines to the history with "> " on its
// first line only. The rest of a failure message would read as the model's
// words, so the reader takes the lines after "# N SEARCH/REPLACE block(s)
// failed to match!" as output up to that message's last line.

// aiderEdit is one SEARCH/REPLACE block of a reply.
type aiderEdit struct {
	path, search, replace string
}

const (
	aiderSearch  = "<<<<<<< SEARCH"
	aiderDivider = "======="
	aiderReplace = ">>>>>>> REPLACE"
)

// aiderEdits returns the SEARCH/REPLACE blocks of a reply's text, read as
// aider's editblock coder reads them: a block's file is named on one of
// the three lines before it (through fence lines), or is the previous
// block's. A block without its divider or end is not an edit, nor is any
// after it (aider rejects the reply from there).
func aiderEdits(text string) []aiderEdit {
	if !strings.Contains(text, aiderSearch) {
		return nil
	}
	lines := strings.Split(text, "\n")
	var edits []aiderEdit
	current := ""
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != aiderSearch {
			continue
		}
		path := aiderFilename(lines[max(0, i-3):i])
		if path == "" {
			path = current
		}
		var search, replace strings.Builder
		j := i + 1
		for j < len(lines) && strings.TrimSpace(lines[j]) != aiderDivider {
			search.WriteString(lines[j] + "\n")
			j++
		}
		k := j + 1
		for k < len(lines) && strings.TrimSpace(lines[k]) != aiderReplace {
			replace.WriteString(lines[k] + "\n")
			k++
		}
		if path == "" || j >= len(lines) || k >= len(lines) {
			break
		}
		current = path
		edits = append(edits, aiderEdit{path: path, search: search.String(), replace: replace.String()})
		i = k
	}
	return edits
}

// aiderFilename finds a block's file in the lines before it, nearest
// first: the first that names one, looking past fence lines only.
func aiderFilename(before []string) string {
	for i := len(before) - 1; i >= 0; i-- {
		line := strings.TrimSpace(before[i])
		if name := aiderStripFilename(line); name != "" {
			return name
		}
		if !strings.HasPrefix(line, "```") {
			return ""
		}
	}
	return ""
}

// aiderStripFilename returns the file a line names, as aider reads it
// ("calc.py", "`calc.py`:", "# calc.py"); "" for a fence or "...".
func aiderStripFilename(line string) string {
	if line == "..." || strings.HasPrefix(line, "```") {
		return ""
	}
	line = strings.TrimRight(line, ":")
	line = strings.TrimLeft(line, "#")
	line = strings.TrimSpace(line)
	line = strings.Trim(line, "`*")
	return strings.ReplaceAll(line, `\_`, "_")
}

// aiderEditCalls returns the calls of reply number r for its edits.
func aiderEditCalls(r int, edits []aiderEdit) []llm.Block {
	calls := make([]llm.Block, len(edits))
	for k, e := range edits {
		args, _ := json.Marshal(map[string]string{"path": e.path, "old_text": e.search, "new_text": e.replace})
		calls[k] = llm.ToolCall(callID(r, k, len(edits)), "edit", args)
	}
	return calls
}

// aiderFailedBlocks matches the line that opens aider's message about
// blocks that did not apply.
var aiderFailedBlocks = lazyre.Regexp{Expr: `^# \d+ SEARCH/REPLACE blocks? failed to match!$`}

// aiderResults answers the calls ids, made for edits, with aider's output
// after the reply.
func aiderResults(ids []string, edits []aiderEdit, output string) *session.Message {
	failed := strings.Contains(output, "SEARCH/REPLACE block") && strings.Contains(output, "failed to match!")
	named := false
	if failed {
		for _, e := range edits {
			if aiderNamesFailed(output, e) {
				named = true
				break
			}
		}
	}
	blocks := make([]llm.Block, len(ids))
	for k, id := range ids {
		isErr := failed && (!named || aiderNamesFailed(output, edits[k]))
		blocks[k] = llm.ToolResult(id, isErr, llm.Text(output))
	}
	return &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: blocks}}
}

// aiderNamesFailed reports whether aider's output lists edit among the
// blocks that failed to match.
func aiderNamesFailed(output string, e aiderEdit) bool {
	return strings.Contains(output, "failed to exactly match lines in "+e.path+"\n"+aiderSearch+"\n"+e.search+aiderDivider)
}

// errorLine takes a line that may continue aider's message about blocks
// that failed to match (see the top of this file), whose first line is
// the output block being gathered. It reports whether it took the line;
// when not, the message has ended and the line is read as any other.
func (st *aiderState) errorLine(line string) bool {
	if strings.HasPrefix(line, aiderHeader) || strings.HasPrefix(line, "#### ") || line == "####" ||
		strings.HasPrefix(line, "> ") || line == ">" {
		st.errBody = 0
		return false
	}
	text := strings.TrimSuffix(line, "  ")
	switch st.errBody {
	case errBlocks:
		st.lines = append(st.lines, text)
		if strings.HasPrefix(text, "The SEARCH section must exactly match") {
			st.errBody = errEnd
		}
		return true
	case errEnd:
		// The message may go on, after a blank line, with the blocks that
		// did apply.
		if strings.TrimSpace(text) == "" {
			st.errBody = errBlank
			return true
		}
	case errBlank:
		if strings.HasPrefix(text, "# The other ") {
			st.lines = append(st.lines, "", text)
			st.errBody = errApplied
			return true
		}
		st.errBody = 0
		st.flush() // the blank line held back ends the output
		return false
	case errApplied:
		st.lines = append(st.lines, text)
		if strings.HasPrefix(text, "Just reply with fixed versions") {
			st.errBody = 0
		}
		return true
	}
	st.errBody = 0
	return false
}

// Where errorLine is in a failure message.
const (
	errBlocks  = 1 + iota // the failed blocks, up to "The SEARCH section must…"
	errEnd                // after that line
	errBlank              // after a blank line after it
	errApplied            // in the note on the blocks that applied
)
