package transcript

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/vigil-dev/vigil/session"
)

// The output of `claude -p --output-format stream-json --verbose`: one JSON
// object per line, what Claude Code prints as a headless run goes, not its
// session file. An init line ({"type":"system","subtype":"init", cwd,
// session_id, model, tools, …}) opens it; then the session's assistant
// lines (one per content block, sharing message.id, as in the session
// file) and user lines with tool results, each with session_id, uuid and
// parent_tool_use_id (set on a subagent's lines); a result line
// ({"type":"result", subtype, is_error, num_turns, result, total_cost_usd,
// permission_denials, …}) closes it. There are no times and no parent
// links: the lines are in the order the run happened, and the reader
// chains them. With --include-partial-messages, stream_event lines carry
// the deltas of replies that the assistant lines give whole.
//
// The reader feeds the conversation lines to the Claude Code reader
// (claudecode.go), so a reply is merged and its results held back the
// same way. A subagent's lines are left out, noted, as a session file
// keeps them in a file of their own; the result line becomes a custom
// "exit" entry with how the run ended.

// csLine is one line of stream-json output, as far as the reader uses it.
type csLine struct {
	Type            string          `json:"type"`
	Subtype         string          `json:"subtype"`
	UUID            string          `json:"uuid"`
	SessionID       string          `json:"session_id"`
	CWD             string          `json:"cwd"`
	Model           string          `json:"model"`
	ParentToolUseID *string         `json:"parent_tool_use_id"`
	Message         *ccMessage      `json:"message"`
	Content         json.RawMessage `json:"content"`
	CompactMetadata *ccCompactMeta  `json:"compact_metadata"`
	IsError         bool            `json:"is_error"`
	NumTurns        int             `json:"num_turns"`
	TotalCostUSD    float64         `json:"total_cost_usd"`
}

// csProbe is what detection reads of a line.
type csProbe struct {
	Type          string          `json:"type"`
	SessionID     string          `json:"session_id"`
	FileSessionID string          `json:"sessionId"`
	Payload       json.RawMessage `json:"payload"`
}

// csTypes are the line types stream-json output has, and csStateTypes
// those of them that hold nothing the model was sent or did.
var (
	csTypes      = map[string]bool{"system": true, "assistant": true, "user": true, "result": true, "stream_event": true}
	csStateTypes = map[string]bool{
		"stream_event": true, "rate_limit_event": true, "tool_progress": true, "auth_status": true,
		"keep_alive": true, "control_request": true, "control_response": true, "control_cancel_request": true,
	}
)

// sniffClaudeStream recognises stream-json output by its first lines: a
// type it prints with a session_id (a session file names it sessionId).
func sniffClaudeStream(head []byte, name string) bool {
	for _, line := range headLines(head, 3) {
		var p csProbe
		if json.Unmarshal(line, &p) != nil || p.Payload != nil || p.FileSessionID != "" {
			return false
		}
		if csTypes[p.Type] && p.SessionID != "" {
			return true
		}
	}
	return false
}

// csReader chains the lines of one run for the Claude Code reader.
type csReader struct {
	cc *ccReader
	l  csLine // the line being read, reused
	// prev is the uuid of the last conversation line.
	prev string
}

func readClaudeStream(d *decodeState) error {
	run := RunInfo{Format: FormatClaudeStream}
	for _, line := range headLines(peekHead(d), ccProbeLines) {
		var p csLine
		if json.Unmarshal(line, &p) != nil {
			continue
		}
		if run.ID == "" {
			run.ID = p.SessionID
		}
		if p.Type == "system" && p.Subtype == "init" {
			run.CWD = p.CWD
			if run.Model == "" {
				run.Model = p.Model
			}
		}
		if run.Model == "" && p.Type == "assistant" && p.Message != nil && p.Message.Model != "<synthetic>" {
			run.Model = p.Message.Model
		}
	}
	if !d.emit(Item{Run: &run}) {
		return nil
	}
	r := &csReader{cc: &ccReader{d: d}}
	err := eachLine(d, r.line)
	if err == nil && !r.cc.flush() {
		return nil
	}
	return err
}

// line reads one line.
func (r *csReader) line(n int, raw []byte) error {
	r.l = csLine{}
	l := &r.l
	// encoding/json: the lines' own fields are few, and the blocks, most
	// of a line, are decoded on the fast path by the Claude Code reader.
	if err := json.Unmarshal(raw, l); err != nil {
		return malformed(err)
	}
	if l.Type == "" {
		return malformed(fmt.Errorf("line has no type"))
	}
	id := l.UUID
	if id == "" {
		id = "line-" + strconv.Itoa(n)
	}
	switch {
	case l.Type == "assistant" || l.Type == "user":
		if l.ParentToolUseID != nil && *l.ParentToolUseID != "" {
			r.cc.d.note(n, "subagent line skipped")
			return nil
		}
		cl := ccLine{Type: l.Type, UUID: id, ParentUUID: r.prev, Message: l.Message}
		r.prev = id
		return r.cc.take(n, &cl)
	case l.Type == "system" && l.Subtype == "init":
		return nil
	case l.Type == "system":
		cl := ccLine{Type: l.Type, Subtype: l.Subtype, UUID: id, ParentUUID: r.prev, Content: l.Content}
		if m := l.CompactMetadata; m != nil {
			cl.CompactMetadata = m
		}
		r.prev = id
		return r.cc.take(n, &cl)
	case l.Type == "result":
		return r.result(id, l)
	case csStateTypes[l.Type]:
		return nil
	default:
		r.cc.d.note(n, fmt.Sprintf("unknown line type %q", l.Type))
		return nil
	}
}

// result emits how the run ended, as a custom "exit" entry that is shown
// but not sent to a model.
func (r *csReader) result(id string, l *csLine) error {
	details := map[string]any{"exit_status": l.Subtype, "num_turns": l.NumTurns}
	if l.IsError {
		details["is_error"] = true
	}
	if l.TotalCostUSD != 0 {
		details["total_cost_usd"] = l.TotalCostUSD
	}
	raw, _ := json.Marshal(details)
	text := "exit status: " + l.Subtype
	if l.IsError {
		text += " (error)"
	}
	cl := ccLine{UUID: id, ParentUUID: r.prev}
	r.prev = id
	return r.cc.put(r.cc.entry(&cl, &session.Custom{CustomType: "exit", Content: textBlocks(text), Display: true, Details: raw}), false)
}
