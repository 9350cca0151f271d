package transcript

import (
	"encoding/json"
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
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
// In the whole edit format a reply gives each file it changes whole: the
// file's name on the line before a fence, then the file's new content up
// to the next fence line:
//
//	calc.py
//	```
//	def add(a, b):
//	    return a + b
//	```
//
// The reader makes each such block a "write" call ({"path", "content"}),
// as aider's whole-file coder reads them: any line starting with ``` opens
// or closes a block; a name given with a folder aider's chat does not hold
// is taken as the chat file of that base name; a block after a blank line
// or at the reply's start is the chat's one file, when it holds one; a
// block the reply does not close ends with the reply. A name that does not
// look like a file (no dot or slash, not a chat file: "Run:") makes no
// edit. The run's edit format is the one its launch output names ("Model:
// gpt-4o-mini with whole edit format"); without one the reply is read for
// SEARCH/REPLACE blocks. An edit aider did not apply because the user
// declined it ("Skipping edits to calc.py") is an error in either format.
//
// Aider writes a message of several lines to the history with "> " on its
// first line only. The rest of a failure message would read as the model's
// words, so the reader takes the lines after "# N SEARCH/REPLACE block(s)
// failed to match!" as output up to that message's last line.

// aiderEdit is one SEARCH/REPLACE block of a reply or, with whole set,
// one file the reply gives whole (its content in replace).
type aiderEdit struct {
	path, search, replace string
	whole                 bool
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

// aiderWholeEdits returns the files a reply in the whole edit format gives
// whole (see the top of this file); chat are the files aider's chat holds.
func aiderWholeEdits(text string, chat []string) []aiderEdit {
	if !strings.Contains(text, "```") {
		return nil
	}
	lines := strings.Split(text, "\n")
	var edits []aiderEdit
	var content strings.Builder
	inBlock, name := false, ""
	for i, line := range lines {
		if !strings.HasPrefix(line, "```") {
			if inBlock {
				content.WriteString(line + "\n")
			}
			continue
		}
		if inBlock {
			if name != "" {
				edits = append(edits, aiderEdit{path: name, replace: content.String(), whole: true})
			}
			inBlock, name = false, ""
			content.Reset()
			continue
		}
		inBlock = true
		if i > 0 {
			name = aiderWholeName(strings.TrimSpace(lines[i-1]), chat)
		}
		if name == "" && (i == 0 || strings.TrimSpace(lines[i-1]) == "") && len(chat) == 1 {
			name = chat[0]
		}
	}
	if inBlock && name != "" {
		// The reply ends inside the block: aider writes what it has.
		edits = append(edits, aiderEdit{path: name, replace: content.String(), whole: true})
	}
	return edits
}

// aiderWholeName returns the file a line before a fence names in the
// whole edit format, or "" when the line does not name one.
func aiderWholeName(line string, chat []string) string {
	name := aiderStripFilename(line)
	if name == "" || strings.ContainsAny(name, " \t") {
		return ""
	}
	if slices.Contains(chat, name) {
		return name
	}
	if base := path.Base(name); base != name && slices.Contains(chat, base) {
		return base // a folder the model made up, such as path/to/
	}
	if !strings.ContainsAny(name, "./") {
		return ""
	}
	return name
}

// aiderEditCalls returns the calls of reply number r for its edits: an
// "edit" for a SEARCH/REPLACE block, a "write" for a whole file.
func aiderEditCalls(r int, edits []aiderEdit) []llm.Block {
	calls := make([]llm.Block, len(edits))
	for k, e := range edits {
		if e.whole {
			args, _ := json.Marshal(map[string]string{"path": e.path, "content": e.replace})
			calls[k] = llm.ToolCall(callID(r, k, len(edits)), "write", args)
			continue
		}
		args, _ := json.Marshal(map[string]string{"path": e.path, "old_text": e.search, "new_text": e.replace})
		calls[k] = llm.ToolCall(callID(r, k, len(edits)), "edit", args)
	}
	return calls
}

// aiderFailedBlocks matches the line that opens aider's message about
// blocks that did not apply.
var aiderFailedBlocks = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^# \d+ SEARCH/REPLACE blocks? failed to match!$`) })

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
		isErr := failed && !edits[k].whole && (!named || aiderNamesFailed(output, edits[k]))
		isErr = isErr || strings.Contains(output, "Skipping edits to "+edits[k].path+"\n") || strings.HasSuffix(output, "Skipping edits to "+edits[k].path)
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
