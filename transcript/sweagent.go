package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// SWE-agent writes a run as one JSON document (<instance_id>.traj):
//
//	{"trajectory": [{"action", "observation", "response", "thought", ...}],
//	 "history": [{"role", "content", "message_type", "thought", "action",
//	              "tool_calls", "tool_call_ids", "is_demo", ...}],
//	 "info": {"exit_status", "submission", "model_stats", ...},
//	 "replay_config": "<the run's config as a JSON string>",
//	 "environment": "..."}
//
// (0.x files start with "environment" and lack replay_config.) A retry
// agent writes "attempts" first, each attempt a document of that shape,
// followed by a copy of the best attempt.
//
// The history is read: it holds the task and exactly what the model saw.
// The trajectory, which comes first in the file, holds one step per model
// reply, including the replies SWE-agent re-queried (a format error, a
// blocked command, an edit its linter rejected or whose text was not
// found): those are kept out of the history, yet each is a turn of the
// model and, for an edit, an attempt that failed. The reader keeps each
// step's action, observation, thought and state (not the rest: a 1.x step
// also holds every message sent, a copy of the history so far) and puts
// the steps the history lacks back before the reply that follows them:
// each is answered with its observation as an error, followed by the state
// line the history's observations end with; a step without an action (a
// reply SWE-agent could not parse, whose error it does not record) is a
// reply without a call. When the trajectory comes after the history, or
// its kept text passes sweTrajLimit, the missing steps are only counted in
// a note.
//
// Mapping of history items:
//   - the system prompt and demonstrations are skipped (noted); other user
//     messages with no call waiting, the task first, are user messages;
//   - an assistant item becomes an assistant message: its thought as text,
//     its thinking blocks as thinking, and its action as a call: recorded
//     tool calls keep their ids, names and arguments; a text action
//     becomes a "bash" call with {"command": action} and id "call-<reply>";
//   - the observation that follows (role "user", or "tool" with
//     tool_call_ids) answers the call with a tool result. SWE-agent records
//     no exit code, so a result is an error only when the harness says the
//     command timed out;
//   - the exit status, the instance id and the model, which the file
//     records after the history (info, replay_config), end the run as a
//     custom "exit" entry.
//
// SWE-agent records no times. Entry ids are the history position, from 1,
// prefixed with the attempt's number in a retry file ("2.14"); a reply put
// back from the trajectory is "t" and the step's position ("t9"), its
// result that with ".1".

// sniffSWEAgent recognises the document by its leading keys: a trajectory
// whose steps have actions and observations, a history of chat messages
// tagged with their agent, or a retry file's attempts.
func sniffSWEAgent(head []byte, name string) bool {
	s := sniffJSONShape(head, 3)
	if s.kind != '{' || len(s.keys) == 0 {
		return false
	}
	if t, ok := s.first["trajectory"]; ok && t.hasAny("action", "observation", "response") {
		return true
	}
	if h, ok := s.first["history"]; ok && h.hasAny("role") && h.hasAny("agent", "message_type") && !h.hasAny("source", "kind") {
		return true
	}
	if s.keys[0] == "attempts" {
		return bytes.Contains(head, []byte(`"trajectory"`)) || bytes.Contains(head, []byte(`"history"`))
	}
	// An empty trajectory or history says little: the leading key and the
	// .traj name settle it.
	switch s.keys[0] {
	case "environment", "trajectory", "history":
		return strings.HasSuffix(name, ".traj")
	}
	return false
}

// sweItem is one element of history.
type sweItem struct {
	Role           string        `json:"role" fast:"of=assistant|user|tool|system"`
	Content        flexText      `json:"content"`
	MessageType    string        `json:"message_type" fast:"of=action|observation|thought"`
	IsDemo         bool          `json:"is_demo"`
	Thought        *string       `json:"thought"`
	Action         *string       `json:"action"`
	ToolCalls      []openAICall  `json:"tool_calls"`
	ToolCallIDs    []string      `json:"tool_call_ids" fast:"recent"`
	ThinkingBlocks []sweThinking `json:"thinking_blocks"`
}

// sweThinking is a thinking block of a reply.
type sweThinking struct {
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

// sweInfo is the part of info a reader uses.
type sweInfo struct {
	ExitStatus string `json:"exit_status"`
	ModelStats struct {
		InstanceCost float64 `json:"instance_cost"`
		APICalls     int     `json:"api_calls"`
	} `json:"model_stats"`
}

// sweReplay is the part of replay_config a reader uses.
type sweReplay struct {
	Agent struct {
		Model struct {
			Name string `json:"name"`
		} `json:"model"`
	} `json:"agent"`
	ProblemStatement struct {
		ID string `json:"id"`
	} `json:"problem_statement"`
}

// sweState reads one SWE-agent file.
type sweState struct {
	b runBuilder
	// at is the history item being read, from 1; 0 elsewhere.
	at int
	// runs counts the runs started.
	runs int
}

// sweRun is what one run's document says outside its history.
type sweRun struct {
	prefix    string // "" or "<attempt>."
	started   bool
	trajSteps int
	// traj are the trajectory's steps when it came before the history
	// (nil when it did not, or its text passed sweTrajLimit); next is the
	// first not yet matched with a history reply.
	traj      []sweTrajStep
	trajBytes int
	next      int
	info      sweInfo
	replay    sweReplay
}

// sweTrajItem is what the reader decodes of a trajectory step: not the
// messages sent, the response or the time it took.
type sweTrajItem struct {
	Action      string          `json:"action"`
	Observation string          `json:"observation"`
	Thought     string          `json:"thought"`
	State       json.RawMessage `json:"state"`
}

// sweTrajStep is what the reader keeps of a trajectory step.
type sweTrajStep struct {
	action, observation, thought string
	// state is the step's state as recorded, when it names the open file.
	state string
}

// sweStepState is a trajectory step's state, which SWE-agent writes as a JSON
// string (an object in some versions).
type sweStepState struct {
	OpenFile   string `json:"open_file"`
	WorkingDir string `json:"working_dir"`
}

// sweTrajLimit bounds the text kept of a trajectory's steps, so that a
// reader's memory does not grow with the file: a run whose steps hold more
// is read without the replies only the trajectory has. sweObservationLimit
// bounds each step's observation: the steps put back are re-queried ones,
// whose observations are the harness's short complaints.
const (
	sweTrajLimit        = 2 << 20
	sweObservationLimit = 4 << 10
)

func readSWEAgent(d *decodeState) error {
	st := &sweState{b: runBuilder{d: d}}
	err := st.read(newJSONDoc(d.in))
	return docResult(d, st.at, err)
}

func (st *sweState) read(doc *jsonDoc) error {
	kind, err := doc.open()
	if err != nil {
		return err
	}
	if kind != '{' {
		return fmt.Errorf("not a SWE-agent trajectory: not a JSON object")
	}
	return st.object(doc, "", true)
}

// object reads the members of a run's document, whose '{' has just been
// read: the whole file, or one attempt of a retry file.
func (st *sweState) object(doc *jsonDoc, prefix string, top bool) error {
	d := st.b.d
	run := &sweRun{prefix: prefix}
	attempts := false
	for doc.more() {
		key, err := doc.key()
		if err != nil {
			return err
		}
		switch {
		case key == "attempts" && top:
			attempts = true
			err = st.attempts(doc)
		case attempts && (key == "trajectory" || key == "history" || key == "info" || key == "replay_config" || key == "environment"):
			err = doc.skip() // the best attempt again
		case key == "trajectory":
			var isArray bool
			isArray, err = doc.array(func(int) error { run.trajSteps++; return run.keepStep(doc, d) })
			if err == nil && !isArray {
				d.note(0, "trajectory is not a list")
			}
		case key == "history":
			err = st.history(doc, run)
		case key == "info":
			err = doc.decode(&run.info)
			if wrongShape(err) {
				d.note(0, "info of an unexpected shape")
				err = nil
			}
		case key == "replay_config":
			var ok bool
			if ok, err = decodeReplay(doc, &run.replay); err == nil && !ok {
				d.note(0, "replay_config of an unexpected shape")
			}
		case key == "environment":
			err = doc.skip()
		default:
			d.note(0, fmt.Sprintf("unknown key %q", key))
			err = doc.skip()
		}
		if err != nil || st.b.stopped {
			return err
		}
	}
	if err := doc.close(); err != nil {
		return err
	}
	if attempts {
		return nil
	}
	if !run.started {
		d.note(0, "no history")
		if run.trajSteps > 0 {
			d.note(0, "trajectory without a history skipped")
		}
		return nil
	}
	st.putBack(run, len(run.traj))
	if run.traj == nil {
		for range run.trajSteps - st.b.replies {
			d.note(0, "trajectory step missing from the history skipped")
		}
	}
	st.b.end(prefix+"exit", map[string]any{
		"exit_status": run.info.ExitStatus,
		"instance_id": run.replay.ProblemStatement.ID,
		"model":       run.replay.Agent.Model.Name,
	})
	return nil
}

// attempts reads a retry file's attempts, one run each.
func (st *sweState) attempts(doc *jsonDoc) error {
	isArray, err := doc.array(func(i int) error {
		kind, err := doc.open()
		if err != nil {
			return err
		}
		if kind != '{' {
			st.b.d.note(0, "attempt that is not an object skipped")
			if kind != 0 {
				return doc.skipRest(kind)
			}
			return nil
		}
		return st.object(doc, strconv.Itoa(i-1)+".", false)
	})
	if err == nil && !isArray {
		st.b.d.note(0, "attempts is not a list")
	}
	return err
}

// decodeReplay reads replay_config, which SWE-agent writes as a JSON
// string holding the config (an object in some files); ok is false when
// it holds something else.
func decodeReplay(doc *jsonDoc, r *sweReplay) (ok bool, err error) {
	var raw json.RawMessage
	if err := doc.decode(&raw); err != nil {
		return false, err
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = json.RawMessage(s)
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		return true, nil
	}
	return json.Unmarshal(raw, r) == nil, nil
}

// history reads the history array: the run.
func (st *sweState) history(doc *jsonDoc, run *sweRun) error {
	d := st.b.d
	isArray, err := doc.enterArray()
	if err != nil || !isArray {
		if err == nil {
			d.note(0, "history is not a list")
		}
		return err
	}
	if run.started {
		d.note(0, "second history skipped")
		return doc.skipRest('[')
	}
	run.started = true
	if !st.b.start(RunInfo{Format: FormatSWEAgent, Index: st.runs}) {
		return nil
	}
	st.runs++
	err = doc.elements(func(n int) error {
		st.at = n
		var it sweItem
		if err := doc.decode(&it); wrongShape(err) {
			d.note(n, "history item of an unexpected shape")
		} else if err != nil {
			return err
		}
		st.item(run, n, &it)
		if st.b.stopped {
			return errDocStop
		}
		return nil
	})
	if err == nil {
		st.at = 0
	}
	return err
}

// item maps history item n.
func (st *sweState) item(run *sweRun, n int, it *sweItem) {
	d, b := st.b.d, &st.b
	id := run.prefix + strconv.Itoa(n)
	text := string(it.Content)
	switch {
	case it.IsDemo || it.MessageType == "demonstration":
		d.note(n, "demonstration skipped")
	case it.Role == "system":
		d.note(n, "system prompt skipped")
	case it.Role == "assistant":
		st.putBack(run, run.match(it.Action))
		b.reply(id, time.Time{}, st.reply(it))
	case it.Role == "tool" && len(it.ToolCallIDs) > 0:
		b.results(id, time.Time{}, it.ToolCallIDs, text, sweFailed(text))
	case (it.Role == "user" || it.Role == "tool") && len(b.open) > 0:
		b.results(id, time.Time{}, []string{b.open[0]}, text, sweFailed(text))
	case it.Role == "user" || it.Role == "tool":
		if strings.TrimSpace(text) == "" {
			d.note(n, "empty user message skipped")
			return
		}
		b.user(id, time.Time{}, text)
	default:
		d.note(n, fmt.Sprintf("unknown role %q", it.Role))
	}
}

// reply builds the assistant message for a history item.
func (st *sweState) reply(it *sweItem) *session.Message {
	r := st.b.nextReply()
	content := string(it.Content)
	thought, action := content, ""
	switch {
	case it.Thought != nil:
		thought = *it.Thought
		if it.Action != nil {
			action = *it.Action
		}
	case it.Action != nil:
		action = *it.Action
		thought, _ = splitLastFence(content)
	default:
		thought, action = splitLastFence(content)
	}
	msg := &session.Message{Message: llm.Message{Role: llm.RoleAssistant}}
	for _, tb := range it.ThinkingBlocks {
		if tb.Thinking != "" {
			msg.Message.Content = append(msg.Message.Content, llm.Thinking(tb.Thinking, tb.Signature))
		}
	}
	if t := strings.TrimSpace(thought); t != "" {
		msg.Message.Content = append(msg.Message.Content, llm.Text(t))
	}
	switch {
	case len(it.ToolCalls) > 0:
		for k, c := range it.ToolCalls {
			id := c.ID
			if id == "" {
				id = callID(r, k, len(it.ToolCalls))
			}
			msg.Message.Content = append(msg.Message.Content, llm.ToolCall(id, c.Function.Name, c.Function.Arguments.object()))
		}
	case strings.TrimSpace(action) != "":
		msg.Message.Content = append(msg.Message.Content,
			llm.ToolCall(callID(r, 0, 1), "bash", commandArguments(strings.TrimSpace(action))))
	}
	return msg
}

// keepStep reads the trajectory step that comes next and, while the run
// keeps its trajectory, keeps its action, observation, thought and state.
func (run *sweRun) keepStep(doc *jsonDoc, d *decodeState) error {
	if run.started || run.trajBytes > sweTrajLimit {
		return doc.skip()
	}
	var it sweTrajItem
	if err := doc.decode(&it); wrongShape(err) {
		d.note(0, "trajectory step of an unexpected shape")
	} else if err != nil {
		return err
	}
	step := sweTrajStep{action: it.Action, observation: it.Observation, thought: it.Thought}
	if n := len(step.observation); n > sweObservationLimit {
		// A copy, so that the whole string is not kept alive.
		step.observation = strings.Clone(cutUTF8(step.observation, sweObservationLimit)) +
			"\n[" + strconv.Itoa(n-sweObservationLimit) + " more bytes in the trajectory]"
	}
	if len(it.State) < 1024 && bytes.Contains(it.State, []byte("open_file")) {
		// Decoded only for a step that is put back.
		step.state = string(it.State)
	}
	run.trajBytes += len(step.action) + len(step.observation) + len(step.thought) + len(step.state)
	if run.trajBytes > sweTrajLimit {
		run.traj = nil
		d.note(0, "trajectory too long to keep: replies missing from the history are not read")
		return nil
	}
	run.traj = append(run.traj, step)
	return nil
}

// match returns the position of the trajectory step of a history reply
// whose action is action: the first step not yet matched with that action.
// A reply whose action matches none (or that records none) is taken to be
// the next step, so that the steps between stay in step with the history.
func (run *sweRun) match(action *string) int {
	if action != nil {
		a := strings.TrimSpace(*action)
		for j := run.next; j < len(run.traj); j++ {
			if strings.TrimSpace(run.traj[j].action) == a {
				return j
			}
		}
	}
	return run.next
}

// putBack emits the trajectory steps from the next unmatched one up to
// step end (not included) as replies the history lacks, and marks end
// matched.
func (st *sweState) putBack(run *sweRun, end int) {
	if run.traj == nil {
		return
	}
	b := &st.b
	for j := run.next; j < end && j < len(run.traj) && !b.stopped; j++ {
		step := run.traj[j]
		r := b.nextReply()
		msg := &session.Message{Message: llm.Message{Role: llm.RoleAssistant}}
		if t := strings.TrimSpace(step.thought); t != "" {
			msg.Message.Content = append(msg.Message.Content, llm.Text(t))
		}
		id := run.prefix + "t" + strconv.Itoa(j+1)
		action := strings.TrimSpace(step.action)
		if action == "" {
			b.reply(id, time.Time{}, msg)
			st.b.d.note(0, "re-queried reply without an action read from the trajectory")
			continue
		}
		call := callID(r, 0, 1)
		msg.Message.Content = append(msg.Message.Content, llm.ToolCall(call, "bash", commandArguments(action)))
		b.reply(id, time.Time{}, msg)
		b.results(id+".1", time.Time{}, []string{call}, step.withState(), true)
		st.b.d.note(0, "re-queried reply read from the trajectory")
	}
	run.next = max(run.next, end+1)
}

// cutUTF8 returns the first n bytes of s, fewer when the n-th would split
// a character.
func cutUTF8(s string, n int) string {
	if n >= len(s) {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// withState returns the step's observation followed by the state line
// SWE-agent's windowed tools put after every observation in the history,
// when the step records that state.
func (step sweTrajStep) withState() string {
	raw := []byte(step.state)
	var s string
	if json.Unmarshal(raw, &s) == nil {
		raw = []byte(s)
	}
	var st sweStepState
	if json.Unmarshal(raw, &st) != nil || st.OpenFile == "" || st.WorkingDir == "" {
		return step.observation
	}
	return strings.TrimRight(step.observation, "\n") + "\n(Open file: " + st.OpenFile + ")\n(Current directory: " + st.WorkingDir + ")\nbash-$"
}

// splitLastFence splits a reply written as thought and a command in a
// fenced block, the way SWE-agent's thought-action parser reads it: the
// last fenced block is the action, the text before it the thought. Without
// a closed block, all of it is thought.
func splitLastFence(text string) (thought, action string) {
	end := strings.LastIndex(text, "```")
	if end < 0 {
		return text, ""
	}
	start := strings.LastIndex(text[:end], "```")
	if start < 0 {
		return text, ""
	}
	body := text[start+3 : end]
	// The opening fence's line may name a language.
	if nl := strings.IndexByte(body, '\n'); nl >= 0 && !strings.ContainsAny(body[:nl], " \t") {
		body = body[nl+1:]
	}
	return strings.TrimSpace(text[:start]), strings.TrimSpace(body)
}

// sweFailed reports whether an observation, which records no exit code,
// shows a failure: a timeout, or nothing but refusals (onlyDenials).
func sweFailed(text string) bool {
	return sweTimedOut(text) || onlyDenials(text)
}

// sweTimedOut reports whether an observation says its command timed out,
// in the words SWE-agent 0.x and 1.x use.
func sweTimedOut(text string) bool {
	return strings.Contains(text, "EXECUTION TIMED OUT") ||
		strings.Contains(text, "was cancelled because it took more than")
}
