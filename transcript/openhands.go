package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"
)

// OpenHands keeps a conversation as events (see openhandsevent.go), and
// writes them in several layouts, all read here:
//
//   - a JSON array of events (an exported trajectory);
//   - one event per file, or per line (V0 events/<id>.json, V1
//     events/event-<n>-<id>.json, or those files concatenated);
//   - evaluation and resolver output (output.jsonl): one run per line, an
//     object with "instance_id" (or the resolver's "issue"),
//     "instruction", "metadata" and a "history" of events. A file of such
//     lines yields one run per line, with Index, ID (the instance id, or
//     owner/repo#number for an issue), Task and Model filled in. The
//     instruction is the run's first user message unless the history
//     starts with the user's own message, and the line's error and success
//     close the run as a custom "exit" entry.
//
// Loose events make one run. Lines are read one at a time and a run's
// history one event at a time; a line that is not JSON is noted and
// skipped, and a cut-off last line ends the file. Entry ids are the events'
// ids, prefixed with the run's index ("3:17") in output files.

// sniffOpenHands recognises an event by its "source" together with an
// action, an observation or a V1 kind, and an output line by its
// "instance_id" (or a resolver's "issue") next to a history, an
// instruction or evaluation fields.
func sniffOpenHands(head []byte, name string) bool {
	s := sniffJSONShape(head, 24)
	switch s.kind {
	case '[':
		o, ok := s.first[""]
		return ok && ohLooksLikeEvent(o)
	case '{':
		top := s.top()
		if ohLooksLikeEvent(top) {
			return true
		}
		if top.hasAny("instance_id") {
			return top.hasAny("history", "instruction", "test_result", "metadata", "instance")
		}
		return top.hasAny("issue") && top.hasAny("issue_type", "history")
	}
	return false
}

// ohLooksLikeEvent reports whether an object's members are an OpenHands
// event's.
func ohLooksLikeEvent(o shapeObj) bool {
	if !o.hasAny("source") {
		return false
	}
	if o["kind"] != "" || o["action"] != "" || o["observation"] != "" {
		return true
	}
	// A V1 event whose kind comes after a member too long for the head.
	return o.hasAny("id", "timestamp") && o.hasAny("llm_message", "system_prompt", "tool_call_id", "llm_response_id")
}

// ohState reads one OpenHands file.
type ohState struct {
	d   *decodeState
	dec jdec
	b   runBuilder
	// at is the line or element being read, from 1.
	at int
	// runs counts the runs opened.
	runs int

	// The open run.
	inRun   bool
	started bool           // its RunInfo has been emitted
	info    RunInfo        // emitted at its first entry
	task    string         // its instruction, until the history shows whether it opens with the user's message
	prefix  string         // entry id prefix
	model   string         // model the run records, for replies that do not name theirs
	exit    map[string]any // what closes it; nil for loose events
	seq     int            // events read, for events without ids
	pending ohReply        // the reply being gathered
}

func readOpenHands(d *decodeState) error {
	st := &ohState{d: d, b: runBuilder{d: d}}
	head, _ := d.in.Peek(sniffSize)
	lead := bytes.TrimLeft(head, " \t\r\n\ufeff")
	var err error
	switch {
	case len(lead) > 0 && lead[0] == '[':
		err = docResult(d, st.at, st.readList())
	case ohOneValuePerLine(lead):
		err = st.readLines()
	default:
		err = docResult(d, st.at, st.readValues())
	}
	if err != nil {
		return err
	}
	st.endRun()
	return nil
}

// ohOneValuePerLine reports whether a file whose head is lead holds one
// JSON value per line, rather than values spread over lines.
func ohOneValuePerLine(lead []byte) bool {
	nl := bytes.IndexByte(lead, '\n')
	if nl < 0 {
		return true // one line, longer than the head or the whole file
	}
	return json.Valid(bytes.TrimRight(lead[:nl], "\r"))
}

// readList reads a JSON array of events (or of output runs).
func (st *ohState) readList() error {
	doc := newJSONDoc(st.d.in)
	isArray, err := doc.array(func(n int) error {
		st.at = n
		var raw json.RawMessage
		if err := doc.decode(&raw); err != nil {
			return err
		}
		if err := st.value(raw); err != nil {
			return err
		}
		return st.stopped()
	})
	if err == nil && !isArray {
		return fmt.Errorf("not an OpenHands event list")
	}
	return err
}

// readValues reads JSON values one after another, however they are laid
// out over lines.
func (st *ohState) readValues() error {
	dec := newTokenReader(st.d.in)
	for n := 1; ; n++ {
		st.at = n
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := st.value(raw); err != nil {
			return err
		}
		if err := st.stopped(); err != nil {
			return err
		}
	}
}

// readLines reads one JSON value per line.
func (st *ohState) readLines() error {
	var buf []byte
	for n := 1; ; n++ {
		line, err := nextTextLine(st.d.in, buf[:0])
		buf = line
		if cap(buf) > 1<<20 {
			buf = nil // do not pin one huge line's memory
		}
		long, last := isLongLine(err)
		if err != nil && err != io.EOF && !long {
			return fmt.Errorf("line %d: %w", n, err)
		}
		last = last || err == io.EOF
		if long {
			st.abortRun()
			st.d.note(n, skippedLongNote)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			st.at = n
			verr := st.value(t)
			switch {
			case errors.Is(verr, errDocStop):
				return nil
			case verr != nil && last && !bytes.HasSuffix(line, []byte("\n")):
				st.abortRun()
				st.d.note(n, "truncated last line")
				return nil
			case verr != nil:
				st.abortRun()
				st.d.note(n, "malformed line")
			}
			if st.b.stopped {
				return nil
			}
		}
		if last {
			return nil
		}
	}
}

// stopped returns errDocStop when the consumer stopped.
func (st *ohState) stopped() error {
	if st.b.stopped {
		return errDocStop
	}
	return nil
}

// ohRunHead is what an output line says about its run, outside the
// history.
type ohRunHead struct {
	InstanceID  string `json:"instance_id"`
	Instruction string `json:"instruction"`
	Issue       *struct {
		Owner  string `json:"owner"`
		Repo   string `json:"repo"`
		Number int    `json:"number"`
	} `json:"issue"`
	Metadata struct {
		LLM       ohModel `json:"llm"`
		LLMConfig ohModel `json:"llm_config"`
	} `json:"metadata"`
	Error   *string    `json:"error"`
	Success *bool      `json:"success"`
	History ohPresence `json:"history"`
}

// ohModel names the model of a run.
type ohModel struct {
	Model string `json:"model"`
}

// ohPresence records that a member is there without keeping its value.
type ohPresence bool

// decodeFast notes the member unless it is null, on the fast path.
func (p *ohPresence) decodeFast(d *jdec) { *p = string(d.raw()) != "null" }

// UnmarshalJSON notes the member unless it is null.
func (p *ohPresence) UnmarshalJSON(b []byte) error {
	*p = string(b) != "null"
	return nil
}

// value reads one top-level value: an event, a pair or list of events, or
// an output run. Its errors mean the value is not well-formed JSON (or the
// consumer stopped).
func (st *ohState) value(raw []byte) error {
	switch {
	case len(raw) == 0:
		return nil
	case raw[0] == '[':
		return st.historyItem(raw)
	case raw[0] != '{':
		st.d.note(st.at, "value that is not an event skipped")
		return nil
	}
	var head ohRunHead
	if err := decodeJSON(&st.dec, raw, &head); err != nil && !wrongShape(err) {
		return err
	}
	if !head.History {
		return st.historyItem(raw)
	}
	return st.runLine(raw, &head)
}

// runLine reads one output run.
func (st *ohState) runLine(raw []byte, head *ohRunHead) error {
	id := head.InstanceID
	if id == "" && head.Issue != nil {
		id = fmt.Sprintf("%s/%s#%d", head.Issue.Owner, head.Issue.Repo, head.Issue.Number)
	}
	exit := map[string]any{"instance_id": head.InstanceID}
	if head.Error != nil {
		exit["error"] = *head.Error
	}
	if head.Success != nil {
		exit["success"] = *head.Success
	}
	st.openRun(RunInfo{ID: id, Task: id, Model: firstNonEmpty(head.Metadata.LLM.Model, head.Metadata.LLMConfig.Model)}, exit, head.Instruction)
	st.prefix = strconv.Itoa(st.info.Index) + ":"

	doc := newJSONDocBytes(raw)
	if _, err := doc.open(); err != nil {
		return err
	}
	for doc.more() {
		key, err := doc.key()
		if err != nil {
			return err
		}
		if key != "history" {
			if err := doc.skip(); err != nil {
				return err
			}
			continue
		}
		_, err = doc.array(func(int) error {
			item, err := doc.rawValue()
			if err != nil {
				return err
			}
			if err := st.historyItem(item); err != nil {
				return err
			}
			return st.stopped()
		})
		if err != nil {
			return err
		}
	}
	st.endRun()
	return st.stopped()
}

// historyItem reads one event, or a list of events (early output kept an
// action and its observation as a pair).
func (st *ohState) historyItem(raw []byte) error {
	if len(raw) > 0 && raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil {
			return err
		}
		for _, it := range items {
			if len(it) > 0 && it[0] == '{' {
				if err := st.historyItem(it); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var f ohFields
	if err := decodeJSON(&st.dec, raw, &f); err != nil {
		if wrongShape(err) {
			st.d.note(st.at, "event that is not an object skipped")
			return nil
		}
		return err
	}
	if !st.inRun {
		st.openRun(RunInfo{}, nil, "")
	}
	st.seq++
	st.event(f)
	return st.stopped()
}

// openRun closes the open run and opens another; it is emitted at its
// first entry.
func (st *ohState) openRun(info RunInfo, exit map[string]any, task string) {
	st.endRun()
	info.Format, info.Index = FormatOpenHands, st.runs
	st.runs++
	st.inRun, st.started, st.info = true, false, info
	st.task, st.prefix, st.model, st.exit, st.seq = task, "", info.Model, exit, 0
}

// endRun emits what is left of the open run and the entry that closes it.
func (st *ohState) endRun() {
	if !st.inRun {
		return
	}
	st.flush()
	st.begin(time.Time{}, false) // a run with no events still has its task
	if st.exit != nil {
		st.b.end(st.prefix+"exit", st.exit)
	}
	st.inRun = false
}

// abortRun closes the open run after its file went bad: what was read
// stays, with no closing entry.
func (st *ohState) abortRun() {
	if !st.inRun {
		return
	}
	st.exit = nil
	st.endRun()
}

// begin emits the open run's RunInfo before its first entry, and its task
// unless the first entry is the user's own message. It reports whether
// the consumer still wants entries.
func (st *ohState) begin(t time.Time, userFirst bool) bool {
	if !st.inRun {
		st.openRun(RunInfo{}, nil, "")
	}
	if !st.started {
		st.started = true
		st.info.Started = t
		if !st.b.start(st.info) {
			return false
		}
	}
	if st.task != "" {
		task := st.task
		st.task = ""
		if !userFirst {
			st.b.user(st.prefix+"task", time.Time{}, task)
		}
	}
	return !st.b.stopped
}

// entryID is the id of the entry made from event f.
func (st *ohState) entryID(f ohFields) string {
	if id := f.id("id"); id != "" {
		return st.prefix + id
	}
	return st.prefix + "e" + strconv.Itoa(st.seq)
}

// syntheticCallID names the call made by event f when OpenHands recorded
// no tool call id: its observation names the action by id in "cause".
func (st *ohState) syntheticCallID(f ohFields) string {
	if id := f.id("id"); id != "" {
		return "call-" + id
	}
	return "call-e" + strconv.Itoa(st.seq)
}

// time reads an event's timestamp; OpenHands writes local times without a
// zone, read here as UTC.
func (st *ohState) time(f ohFields) time.Time {
	s := f.str("timestamp")
	if s == "" {
		return time.Time{}
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC().Truncate(time.Millisecond)
		}
	}
	return time.Time{}
}

// source returns who an event comes from. Early output records no source:
// its first message is the task, the user's, and everything else the
// agent's.
func (st *ohState) source(f ohFields, action string) string {
	if s := f.str("source"); s != "" {
		return s
	}
	if action == "message" && st.replies() == 0 && len(st.pending.calls) == 0 {
		return "user"
	}
	return "agent"
}

// replies counts the open run's assistant replies so far. The run builder
// starts counting anew when the run's first entry is emitted; until then
// its count is the previous run's.
func (st *ohState) replies() int {
	if !st.started {
		return 0
	}
	return st.b.replies
}
