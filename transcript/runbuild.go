package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// runBuilder turns the messages of a format that has no entry tree of its
// own into one run's entries: it links each entry to the one before (a
// linear chain), numbers the assistant replies so that calls a format
// records only as text get ids, and remembers which calls are still
// waiting for their results.
type runBuilder struct {
	d *decodeState
	// prev is the id of the last entry emitted in this run.
	prev string
	// replies counts the assistant replies of this run.
	replies int
	// open lists the ids of calls without a result yet, oldest first.
	open []string
	// stopped is set when the consumer stopped; the reader must return.
	stopped bool
}

// start begins a run: it emits info and forgets the previous run.
func (b *runBuilder) start(info RunInfo) bool {
	if b.stopped {
		return false
	}
	b.prev, b.replies, b.open = "", 0, nil
	if !b.d.emit(Item{Run: &info}) {
		b.stopped = true
	}
	return !b.stopped
}

// add emits one entry after the previous one.
func (b *runBuilder) add(id string, t time.Time, body session.Body) bool {
	if b.stopped {
		return false
	}
	e := session.Entry{ID: id, ParentID: b.prev, Time: t, Body: body}
	b.prev = id
	if !b.d.emit(Item{Entry: e}) {
		b.stopped = true
	}
	return !b.stopped
}

// user emits a user message holding text.
func (b *runBuilder) user(id string, t time.Time, text string) bool {
	return b.add(id, t, &session.Message{Message: llm.UserText(text)})
}

// reply emits an assistant reply. Its calls become the open ones: a
// reply's calls are answered before the model speaks again, so calls left
// open by an earlier reply are dropped.
func (b *runBuilder) reply(id string, t time.Time, m *session.Message) bool {
	b.open = b.open[:0]
	for _, c := range m.Message.Content {
		if c.Type == llm.BlockToolCall {
			b.open = append(b.open, c.ID)
		}
	}
	return b.add(id, t, m)
}

// nextReply counts a new assistant reply and returns its number, from 1.
func (b *runBuilder) nextReply() int {
	b.replies++
	return b.replies
}

// callID makes the id of the k-th of n calls of reply number r, for a
// format that records calls without ids: "call-3", or "call-3-2" when the
// reply makes several.
func callID(r, k, n int) string {
	if n <= 1 {
		return "call-" + strconv.Itoa(r)
	}
	return fmt.Sprintf("call-%d-%d", r, k+1)
}

// results emits a user message answering the calls ids with the same
// text, and closes them.
func (b *runBuilder) results(id string, t time.Time, ids []string, text string, isError bool) bool {
	blocks := make([]llm.Block, 0, len(ids))
	for _, c := range ids {
		blocks = append(blocks, llm.ToolResult(c, isError, llm.Text(text)))
		if i := slices.Index(b.open, c); i >= 0 {
			b.open = slices.Delete(b.open, i, i+1)
		}
	}
	return b.add(id, t, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: blocks}})
}

// end emits the entry that closes a run with how it ended, when the format
// records that: a custom entry of type "exit" that is shown but not sent to
// a model. details are small facts about the outcome, such as the exit
// status and the instance id; empty values are left out. Nothing is
// emitted when every value is empty.
func (b *runBuilder) end(id string, details map[string]any) bool {
	for k, v := range details {
		if v == "" || v == nil {
			delete(details, k)
		}
	}
	if len(details) == 0 {
		return !b.stopped
	}
	raw, err := json.Marshal(details)
	if err != nil {
		return !b.stopped
	}
	text := "run ended"
	if s, ok := details["exit_status"].(string); ok {
		text = "exit status: " + s
	}
	return b.add(id, time.Time{}, &session.Custom{
		CustomType: "exit",
		Content:    []llm.Block{llm.Text(text)},
		Display:    true,
		Details:    raw,
	})
}

// callArgs is a tool call's arguments as a format records them: a JSON
// string holding an object (OpenAI's way), or the object itself.
type callArgs json.RawMessage

// decodeFast keeps the value as it is, on the fast path: a copy, since
// the input is a line that goes.
func (a *callArgs) decodeFast(d *jdec) { *a = callArgs(bytes.Clone(d.raw())) }

// UnmarshalJSON keeps the value as it is.
func (a *callArgs) UnmarshalJSON(b []byte) error {
	*a = append((*a)[:0], b...)
	return nil
}

// object returns the arguments as a JSON object. Text that is not one is
// kept under "raw"; no arguments give {}.
func (a callArgs) object() json.RawMessage {
	raw := bytes.TrimSpace(a)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = bytes.TrimSpace([]byte(s))
	}
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) == nil && obj != nil {
		return json.RawMessage(raw)
	}
	out, _ := json.Marshal(map[string]string{"raw": string(raw)})
	return out
}

// commandArguments returns {"command": cmd}, the arguments of the bash
// calls made from actions recorded as text.
func commandArguments(cmd string) json.RawMessage {
	raw, _ := json.Marshal(map[string]string{"command": cmd})
	return raw
}

// unixTime converts seconds since the epoch, as Python's time.time() writes
// them, to a UTC time to the millisecond; 0 gives the zero time.
func unixTime(sec float64) time.Time {
	if sec <= 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(sec * 1000)).UTC()
}

// returnCodeTag finds the exit code that mini-swe-agent's observation
// template writes.
var returnCodeTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`) })

// failedReturnCode reports whether text shows a non-zero return code in a
// <returncode> tag; ok is false when it shows none.
func failedReturnCode(text string) (failed, ok bool) {
	m := returnCodeTag().FindStringSubmatch(text)
	if m == nil {
		return false, false
	}
	return m[1] != "0", true
}

// stopReason maps an OpenAI-style finish_reason to vigil's stop reason.
func stopReason(finish string) llm.StopReason {
	switch finish {
	case "stop":
		return llm.StopEndTurn
	case "tool_calls", "function_call":
		return llm.StopToolUse
	case "length":
		return llm.StopMaxTokens
	case "content_filter":
		return llm.StopRefusal
	}
	return ""
}
