package transcript

import (
	"bytes"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Aider appends every session to .aider.chat.history.md as loose Markdown:
//
//	# aider chat started at 2024-08-05 19:33:32
//
//	> /path/to/aider aider/utils.py
//	> Models: claude-3-5-sonnet-20240620 with diff edit format, …
//
//	#### Use the Spinner instead of the inlined custom spinner
//
//	Certainly! … (the reply, edits as SEARCH/REPLACE blocks)
//
//	> Applied edit to aider/utils.py
//
// Each "# aider chat started at" header starts a run, its time the run's
// Started (a local time without a zone, read as UTC) and the model named in
// the launch output its Model. Lines starting "#### " are what the user
// typed, one user message per input (a blank line ends it); lines starting
// "> " are aider's own output (command output, edits applied, costs,
// confirmations), kept as custom "aider_output" entries that are shown but
// not sent to a model, because aider sends the model only some of it; all
// other text is the assistant's reply. A reply's SEARCH/REPLACE blocks
// (in the whole edit format, the files it gives whole) are its calls, and
// the output after it their results (aider_edits.go).
// Output that aider wrote over several lines carries the "> " only on its
// first, so the rest reads as reply text: the format cannot tell them
// apart, except in aider's message about edits that failed to match, which
// the reader knows, and in the launch line, whose --message of several
// lines ends in the line break. A reasoning model's thinking, which aider
// writes in the reply between <thinking-content-…> tags, is the reply's
// thinking. Text before the first header (a file cut at the front)
// is a run of its own, noted; a last line without its newline (a file cut
// at the end) is noted and left out. Entries have no times; their ids are
// the line their text starts on.

// aiderHeader starts a session.
const aiderHeader = "# aider chat started at "

// sniffAider recognises the history by a session header at the start of a
// line, by its name, or by both kinds of prefixed line aider writes, each
// ending in the two spaces of a Markdown line break.
func sniffAider(head []byte, name string) bool {
	lead := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(lead) > 0 && (lead[0] == '{' || lead[0] == '[') {
		return false
	}
	if bytes.HasPrefix(head, []byte(aiderHeader)) || bytes.Contains(head, []byte("\n"+aiderHeader)) {
		return true
	}
	if strings.HasSuffix(name, ".aider.chat.history.md") {
		return true
	}
	return aiderLines().Match(head) && aiderOutput().Match(head)
}

var (
	aiderLines  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^#### .*  \r?$`) })
	aiderOutput = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^> .*  \r?$`) })
	// aiderModel finds the model in aider's launch output: "Model: X with
	// …", "Models: X with …, weak model Y", "Main model: X with …".
	aiderModel = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:Main model|Models?): (\S+)`) })
	// aiderFormat finds the edit format there: "… X with whole edit
	// format", which aider also says when the format changes.
	aiderFormat = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:Main model|Models?): \S+ with (\S+) edit format`)
	})
	// aiderLaunchMessage finds a launch command line that gives a
	// message: aider writes the line as the command was given, with "> "
	// on its first line only, so a message of several lines goes on over
	// lines without it up to the one that ends in aider's line break.
	aiderLaunchMessage = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\S*aider\S*(?: .*)? (?:--message|--msg|-m)(?:[ =]|$)`)
	})
	// aiderChatFile finds a file added to or dropped from the chat.
	aiderChatFile = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(Added|Removed) (\S+) (?:to|from) the chat\.?$`) })
)

// aiderState reads one history file.
type aiderState struct {
	d    *decodeState
	b    runBuilder
	runs int
	// The open run.
	inRun, started bool
	info           RunInfo
	// The block being gathered: its kind ('u' user, 'o' output, 'a'
	// assistant), lines, and the line it starts on.
	kind  byte
	lines []string
	first int
	// edits are the SEARCH/REPLACE blocks of the last reply while their
	// calls wait for aider's output (aider_edits.go); errBody says where
	// a failure message is, when the block is one.
	edits   []aiderEdit
	errBody int
	// format is the open run's edit format, as its output names it ("diff",
	// "whole"; "" until named); chat the files its output added to the
	// chat.
	format string
	chat   []string
	// launchGoes is set while the launch line's message goes on over
	// lines without "> " (aiderLaunchGoesOn).
	launchGoes bool
}

func readAider(d *decodeState) error {
	st := &aiderState{d: d, b: runBuilder{d: d}}
	var buf []byte
	for n := 1; ; n++ {
		raw, err := nextTextLine(d.in, buf[:0])
		buf = raw
		if cap(buf) > 1<<20 {
			buf = nil
		}
		long, last := isLongLine(err)
		if err != nil && err != io.EOF && !long {
			return fmt.Errorf("line %d: %w", n, err)
		}
		last = last || err == io.EOF
		switch {
		case long:
			d.note(n, skippedLongNote)
		case last && len(raw) > 0:
			// aider ends every line; one without its newline was cut off.
			d.note(n, "truncated last line")
		case len(raw) > 0:
			st.line(n, strings.TrimRight(string(raw), "\r\n"))
		}
		if st.b.stopped {
			return nil
		}
		if last {
			break
		}
	}
	st.flush()
	st.endRun()
	return nil
}

// line takes line n of the file.
func (st *aiderState) line(n int, line string) {
	if st.errBody != 0 && st.errorLine(line) {
		return
	}
	if st.launchGoes {
		if !strings.HasPrefix(line, aiderHeader) && !strings.HasPrefix(line, "> ") && !strings.HasPrefix(line, "####") && line != ">" {
			// The message's last line ends in aider's line break.
			st.launchGoes = !strings.HasSuffix(line, "  ")
			st.lines = append(st.lines, strings.TrimSuffix(line, "  "))
			return
		}
		st.launchGoes = false
	}
	switch {
	case strings.HasPrefix(line, aiderHeader):
		st.flush()
		st.endRun()
		st.openRun(strings.TrimSpace(strings.TrimPrefix(line, aiderHeader)))
	case strings.HasPrefix(line, "#### ") || line == "####":
		st.add(n, 'u', aiderUnmark(line, "####"))
	case strings.HasPrefix(line, "> ") || line == ">":
		text := aiderUnmark(line, ">")
		st.add(n, 'o', text)
		if aiderFailedBlocks().MatchString(text) {
			st.errBody = errBlocks
		}
		st.launchGoes = !st.started && !strings.HasSuffix(line, "  ") && aiderLaunchMessage().MatchString(text)
	case strings.TrimSpace(line) == "":
		if st.kind == 'a' {
			st.lines = append(st.lines, "")
		} else {
			st.flush()
		}
	default:
		st.add(n, 'a', line)
	}
}

// aiderUnmark returns a user or output line without its marker and the
// two spaces aider ends it with; a line with nothing else is "".
func aiderUnmark(line, marker string) string {
	rest := strings.TrimSuffix(strings.TrimPrefix(line, marker+" "), "  ")
	if strings.TrimSpace(rest) == "" || rest == marker {
		return ""
	}
	return rest
}

// add puts a line in the block of its kind, ending a block of another.
func (st *aiderState) add(n int, kind byte, text string) {
	if st.kind != kind {
		st.flush()
		st.kind, st.first = kind, n
	}
	st.lines = append(st.lines, text)
}

// flush emits the block being gathered.
func (st *aiderState) flush() {
	kind, lines := st.kind, st.lines
	st.kind, st.lines = 0, st.lines[:0]
	if kind == 0 {
		return
	}
	text := strings.Trim(strings.Join(lines, "\n"), "\n")
	if strings.TrimSpace(text) == "" {
		return
	}
	if !st.inRun {
		st.d.note(st.first, "text before the first session header")
		st.openRun("")
	}
	if !st.started && kind == 'o' && st.info.Model == "" {
		for _, l := range lines {
			if m := aiderModel().FindStringSubmatch(l); m != nil {
				st.info.Model = strings.TrimSuffix(m[1], ",")
				break
			}
		}
	}
	if kind == 'o' {
		st.output(lines)
	}
	if !st.begin() {
		return
	}
	id := strconv.Itoa(st.first)
	switch kind {
	case 'u':
		st.edits = nil
		st.b.user(id, time.Time{}, text)
	case 'o':
		if len(st.edits) > 0 && len(st.b.open) == len(st.edits) {
			// The output after a reply with edits says how they went.
			ids := slices.Clone(st.b.open)
			st.b.open = st.b.open[:0]
			st.b.add(id, time.Time{}, aiderResults(ids, st.edits, text))
			st.edits = nil
			return
		}
		st.b.add(id, time.Time{}, &session.Custom{
			CustomType: "aider_output",
			Content:    []llm.Block{llm.Text(text)},
			Display:    true,
		})
	case 'a':
		r := st.b.nextReply()
		thinking, text := aiderThinking(text)
		if st.format == "whole" {
			st.edits = aiderWholeEdits(text, st.chat)
		} else {
			st.edits = aiderEdits(text)
		}
		var content []llm.Block
		if thinking != "" {
			content = append(content, llm.Thinking(thinking, ""))
		}
		if text != "" {
			content = append(content, llm.Text(text))
		}
		content = append(content, aiderEditCalls(r, st.edits)...)
		st.b.reply(id, time.Time{}, &session.Message{
			Message: llm.Message{Role: llm.RoleAssistant, Content: content},
			Model:   llm.Ref{Model: st.info.Model},
		})
	}
}

// output takes what aider's output says of the run: its edit format and
// the files in its chat.
func (st *aiderState) output(lines []string) {
	for _, l := range lines {
		if m := aiderFormat().FindStringSubmatch(l); m != nil {
			st.format = m[1]
		}
		if m := aiderChatFile().FindStringSubmatch(l); m != nil {
			st.chat = slices.DeleteFunc(st.chat, func(f string) bool { return f == m[2] })
			if m[1] == "Added" && len(st.chat) < maxAiderChat {
				st.chat = append(st.chat, m[2])
			}
		}
	}
}

// maxAiderChat bounds the chat files a run remembers.
const maxAiderChat = 256

// openRun opens a run whose header gave started ("" before any header).
func (st *aiderState) openRun(started string) {
	st.format, st.chat = "", nil
	st.inRun, st.started = true, false
	st.info = RunInfo{Format: FormatAider, Index: st.runs}
	st.runs++
	if started == "" {
		return
	}
	if t, err := time.Parse("2006-01-02 15:04:05", started); err == nil {
		st.info.Started = t
	} else {
		st.d.note(0, "session header with a time of an unknown form")
	}
}

// begin emits the open run's RunInfo before its first entry.
func (st *aiderState) begin() bool {
	if !st.started {
		st.started = true
		return st.b.start(st.info)
	}
	return !st.b.stopped
}

// endRun closes the open run; a run with no entries is still emitted.
func (st *aiderState) endRun() {
	if st.inRun {
		st.begin()
	}
	st.inRun = false
}

// aiderThinkingTag opens the tag aider writes a reasoning model's
// thinking in, in the reply: <thinking-content-HEX>, closed by the same
// name after a slash.
const aiderThinkingTag = "<thinking-content-"

// aiderThinking splits a reply into the thinking aider wrote between its
// tags and the rest. A thinking whose closing tag never came (a file cut
// off) runs to the end of the reply.
func aiderThinking(text string) (thinking, rest string) {
	start := strings.Index(text, aiderThinkingTag)
	if start < 0 {
		return "", text
	}
	end := strings.IndexByte(text[start:], '>')
	if end < 0 {
		return "", text
	}
	open := text[start : start+end+1]
	closing := "</" + open[1:]
	body := text[start+len(open):]
	after := ""
	if i := strings.Index(body, closing); i >= 0 {
		body, after = body[:i], body[i+len(closing):]
	}
	rest = strings.Trim(text[:start]+after, "\n")
	return strings.TrimSpace(body), rest
}
