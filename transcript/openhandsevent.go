package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// OpenHands events, in the three shapes a reader meets:
//
//   - V0 (the OpenHands app): {"id", "timestamp", "source", "message",
//     "action": "run", "args": {...}, "tool_call_metadata": {...}} for an
//     action, {"cause", "observation": "run", "content", "extras": {...}}
//     for its observation;
//   - early resolver and evaluation output: the same without ids, times or
//     sources, the args and extras written at the top;
//   - V1 (the software agent SDK): {"kind": "ActionEvent", "id",
//     "timestamp", "source", "action": {...}, "tool_call_id", "tool_name",
//     "tool_call", "llm_response_id"}, answered by an "ObservationEvent"
//     with the same tool_call_id; "MessageEvent" for chat messages.
//
// An agent action becomes an assistant reply with its thought as text and
// one call: the recorded tool call id and function name where there is
// one, else "call-<event id>" (or "call-<reply>") and the action's type,
// with the action's arguments. Actions that came from one model response
// (the same response id, one after another; or, in V0, the number of calls
// the response made) make one reply, so a step is one model turn. An
// observation becomes the result of the call it answers (its tool call id,
// its cause, or else the oldest open call): an error when it is an error
// observation, a rejection, or shows a non-zero exit code or a timeout. A
// command's output reads as OpenHands shows it to the model, with the
// exit code after it (ohCommandText).
// Messages from the user are user messages, the agent's are replies without
// calls. System prompts, state changes, condensations and recalls are
// noted and skipped.

// ohSkipActions and ohSkipObservations are V0 event types that carry no
// conversation.
var (
	ohSkipActions = map[string]bool{
		"system": true, "recall": true, "condensation": true, "condensation_request": true,
		"change_agent_state": true, "null": true,
	}
	ohSkipObservations = map[string]bool{
		"agent_state_changed": true, "null": true, "recall": true, "condense": true,
	}
)

// ohArgsLeftOut are V0 action arguments that are bookkeeping, not what the
// model asked for.
var ohArgsLeftOut = []string{
	"thought", "final_thought", "impl_source", "translated_ipython_code", "security_risk",
	"confirmation_state", "is_confirmed", "kernel_init_code", "hidden", "blocking",
	"action", "keep_prompt", "action_risk", "wait_for_response", "images_urls", "image_urls",
}

// ohCall is one action as a call, before it joins a reply.
type ohCall struct {
	entryID  string
	t        time.Time
	respID   string
	expect   int // calls the model response made, when recorded
	thought  string
	thinking []llm.Block
	call     llm.Block
	model    string
	usage    llm.Usage
	stop     llm.StopReason
}

// ohResult is one observation as a result, before it is emitted.
type ohResult struct {
	entryID string
	t       time.Time
	callID  string
	text    string
	isError bool
}

// ohReply gathers the calls of one model response and the results that
// arrive before its last call.
type ohReply struct {
	calls []ohCall
	held  []ohResult
}

// maxHeld bounds how many results wait for the rest of a reply.
const maxHeld = 64

// event maps one event.
func (st *ohState) event(f ohFields) {
	if kind := f.str("kind"); kind != "" && st.v1Kind(kind) {
		st.v1Event(kind, f)
		return
	}
	action, observation := f.str("action"), f.str("observation")
	switch {
	case action != "":
		st.v0Action(action, f)
	case observation != "":
		st.v0Observation(observation, f)
	default:
		st.flush()
		st.d.note(st.at, "event of no known kind skipped")
	}
}

// v1Kind reports whether kind is a V1 event's discriminator rather than an
// early event's own field of that name.
func (st *ohState) v1Kind(kind string) bool {
	return len(kind) > 0 && kind[0] >= 'A' && kind[0] <= 'Z'
}

func (st *ohState) v0Action(action string, f ohFields) {
	args := f.sub("args")
	if args == nil {
		args = f // early output: the arguments are at the top
	}
	source := st.source(f, action)
	switch {
	case ohSkipActions[action]:
		st.flush()
		st.d.note(st.at, fmt.Sprintf("OpenHands %q action skipped", action))
	case action == "message" && source == "user":
		st.flush()
		st.user(f, firstNonEmpty(args.text("content"), f.str("message")))
	case action == "message":
		st.flush()
		st.reply([]ohCall{{entryID: st.entryID(f), t: st.time(f), thought: firstNonEmpty(args.text("content"), f.str("message"))}})
	case source != "agent":
		st.flush()
		st.d.note(st.at, fmt.Sprintf("OpenHands %q action from %s skipped", action, source))
	default:
		c := ohCall{entryID: st.entryID(f), t: st.time(f)}
		c.thought = firstNonEmpty(args.text("thought"), args.text("final_thought"))
		name, callID := action, ""
		if meta := f.sub("tool_call_metadata"); meta != nil {
			name = firstNonEmpty(meta.str("function_name"), action)
			callID = meta.str("tool_call_id")
			c.expect, _ = meta.num("total_calls_in_response")
			if resp := meta.sub("model_response"); resp != nil {
				c.respID, c.model = resp.str("id"), resp.str("model")
				c.usage, c.stop = ohResponseUsage(meta["model_response"])
			}
		}
		arguments := args.without(ohArgsLeftOut...)
		if callID == "" {
			callID = st.syntheticCallID(f)
		} else if asked, ok := ohAskedArguments(f.sub("tool_call_metadata")["model_response"], callID); ok {
			arguments = asked
		}
		if name == "run_ipython" || name == "execute_ipython_cell" {
			if edit, ok := ohSkillEdit(arguments); ok {
				name, arguments = "str_replace_editor", edit
			}
		}
		c.call = llm.ToolCall(callID, name, arguments)
		st.action(c)
	}
}

func (st *ohState) v0Observation(observation string, f ohFields) {
	if ohSkipObservations[observation] {
		st.flush()
		st.d.note(st.at, fmt.Sprintf("OpenHands %q observation skipped", observation))
		return
	}
	r := ohResult{entryID: st.entryID(f), t: st.time(f), text: f.text("content")}
	if meta := f.sub("tool_call_metadata"); meta != nil {
		r.callID = meta.str("tool_call_id")
	}
	if r.callID == "" {
		if cause := f.id("cause"); cause != "" {
			r.callID = "call-" + cause
		}
	}
	extras := f.sub("extras")
	if extras == nil {
		extras = f
	}
	if meta := extras.sub("metadata"); meta != nil || observation != "run" {
		r.text = ohCommandText(r.text, meta)
	} else {
		r.text = ohEarlyCommandText(r.text, extras)
	}
	r.isError = observation == "error" || observation == "user_rejected" ||
		observation == "run_ipython" && ohIPythonFailed(r.text)
	code, hasExit := extras.num("exit_code")
	if hasExit && failedExit(code) {
		r.isError = true
	}
	if code, ok := extras.sub("metadata").num("exit_code"); ok {
		hasExit = true
		if failedExit(code) {
			r.isError = true
		}
	}
	if ok, present := f.flag("success"); present && !ok {
		r.isError = true
	}
	if !hasExit && onlyDenials(r.text) {
		r.isError = true
	}
	st.observation(r)
}

func (st *ohState) v1Event(kind string, f ohFields) {
	switch kind {
	case "MessageEvent":
		st.flush()
		msg := f.sub("llm_message")
		text := msg.text("content")
		if f.str("source") == "user" || msg.str("role") == "user" {
			st.user(f, text)
			return
		}
		c := ohCall{entryID: st.entryID(f), t: st.time(f), thought: text, respID: f.str("llm_response_id")}
		c.thinking = ohThinking(msg.str("reasoning_content"), msg["thinking_blocks"])
		st.reply([]ohCall{c})
	case "ActionEvent":
		c := ohCall{entryID: st.entryID(f), t: st.time(f), respID: f.str("llm_response_id")}
		c.thought = f.text("thought")
		c.thinking = ohThinking(f.str("reasoning_content"), f["thinking_blocks"])
		callID := f.str("tool_call_id")
		if callID == "" {
			callID = st.syntheticCallID(f)
		}
		action := f.sub("action")
		name := firstNonEmpty(f.str("tool_name"), action.str("kind"))
		args := action.without("kind")
		if tc := f.sub("tool_call"); tc != nil {
			if raw, ok := tc["arguments"]; ok {
				// A copy: raw may be a slice of a line that is reused.
				args = callArgs(bytes.Clone(raw)).object()
			}
		}
		c.call = llm.ToolCall(callID, name, args)
		st.action(c)
	case "ObservationEvent":
		obs := f.sub("observation")
		r := ohResult{entryID: st.entryID(f), t: st.time(f), callID: f.str("tool_call_id")}
		r.text = firstNonEmpty(obs.str("output"), obs.text("content"), obs.str("message"))
		r.text = ohCommandText(r.text, obs.sub("metadata"))
		r.isError = ohV1Failed(obs)
		st.observation(r)
	case "AgentErrorEvent":
		st.observation(ohResult{entryID: st.entryID(f), t: st.time(f), callID: f.str("tool_call_id"), text: f.str("error"), isError: true})
	case "UserRejectObservation":
		st.observation(ohResult{entryID: st.entryID(f), t: st.time(f), callID: f.str("tool_call_id"), text: f.str("rejection_reason"), isError: true})
	default:
		st.flush()
		st.d.note(st.at, fmt.Sprintf("OpenHands %s skipped", kind))
	}
}

// ohV1Failed reports whether a V1 observation says its call failed.
func ohV1Failed(obs ohFields) bool {
	if v, _ := obs.flag("is_error"); v {
		return true
	}
	if v, _ := obs.flag("error"); v || obs.str("error") != "" {
		return true
	}
	if v, _ := obs.flag("timeout"); v {
		return true
	}
	if code, ok := obs.num("exit_code"); ok {
		return failedExit(code)
	}
	if code, ok := obs.sub("metadata").num("exit_code"); ok {
		return failedExit(code)
	}
	return false
}

// ohCommandText returns a command's output as OpenHands shows it to the
// model: between the prefix and suffix its shell metadata holds (the
// suffix says "[The command completed with exit code N.]"), followed by
// "[Command finished with exit code N]" once the command has ended. The
// working folder and interpreter lines that follow are left out: they say
// nothing about the command. Without metadata (not a command's output),
// text is returned as it is.
func ohCommandText(text string, meta ohFields) string {
	if meta == nil {
		return text
	}
	out := meta.str("prefix") + text + meta.str("suffix")
	if code, ok := meta.num("exit_code"); ok && code != -1 {
		out += "\n[Command finished with exit code " + strconv.Itoa(code) + "]"
	}
	return out
}

// ohPromptRE matches the shell prompt the early resolver's command output
// ends with ("root@4f3a9c2b1d0e:/workspace # ").
var ohPromptRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[\w.-]+@[\w.-]+:\S*\s?[#$] ?$`)
})

// ohEarlyCommandText returns a command's output as the early resolver's
// agent was shown it: without the shell prompt its output ends with, and
// with the exit code its observation records at the top.
func ohEarlyCommandText(text string, f ohFields) string {
	start := strings.LastIndexByte(text, '\n') + 1
	if last := text[start:]; len(last) < 256 && ohPromptRE().MatchString(last) {
		text = strings.TrimSuffix(text[:start], "\n")
		text = strings.TrimSuffix(text, "\r")
	}
	if code, ok := f.num("exit_code"); ok && code != -1 {
		text += "\n[Command finished with exit code " + strconv.Itoa(code) + "]"
	}
	return text
}

// action takes an agent action: it joins the reply being gathered when it
// comes from the same model response, or starts a new one.
func (st *ohState) action(c ohCall) {
	g := &st.pending
	if len(g.calls) > 0 && c.respID != "" && c.respID == g.calls[0].respID {
		g.calls = append(g.calls, c)
		if len(g.calls) >= maxHeld {
			st.flush()
		}
		return
	}
	st.flush()
	g.calls = []ohCall{c}
}

// observation takes a result: it waits while the reply being gathered
// expects more calls, else it is emitted at once.
func (st *ohState) observation(r ohResult) {
	g := &st.pending
	if len(g.calls) > 0 && g.calls[0].expect > len(g.calls) && len(g.held) < maxHeld {
		g.held = append(g.held, r)
		return
	}
	st.flush()
	st.result(r)
}

// flush emits the reply being gathered and the results it held.
func (st *ohState) flush() {
	g := &st.pending
	if len(g.calls) == 0 {
		return
	}
	calls, held := g.calls, g.held
	*g = ohReply{}
	st.reply(calls)
	for _, r := range held {
		st.result(r)
	}
}

// reply emits the assistant message of one model response.
func (st *ohState) reply(calls []ohCall) {
	if !st.begin(calls[0].t, false) {
		return
	}
	st.b.nextReply()
	first := calls[0]
	msg := &session.Message{Message: llm.Message{Role: llm.RoleAssistant}}
	var thoughts []string
	for _, c := range calls {
		msg.Message.Content = append(msg.Message.Content, c.thinking...)
		thoughts = append(thoughts, c.thought)
	}
	if text := joinNonEmpty(thoughts...); text != "" {
		msg.Message.Content = append(msg.Message.Content, llm.Text(text))
	}
	for _, c := range calls {
		if c.call.Type == llm.BlockToolCall {
			msg.Message.Content = append(msg.Message.Content, c.call)
		}
	}
	model := first.model
	if model == "" {
		model = st.model
	}
	msg.Model = llm.Ref{Model: model}
	msg.Usage, msg.StopReason = first.usage, first.stop
	st.b.reply(first.entryID, first.t, msg)
}

// result emits an observation as the result of the call it answers. One
// that answers no open call is kept as a user message.
func (st *ohState) result(r ohResult) {
	if !st.begin(r.t, false) {
		return
	}
	callID := r.callID
	if callID == "" && len(st.b.open) > 0 {
		callID = st.b.open[0]
	}
	for _, open := range st.b.open {
		if open == callID {
			st.b.results(r.entryID, r.t, []string{callID}, r.text, r.isError)
			return
		}
	}
	st.d.note(st.at, "observation answering no open call kept as a user message")
	st.b.user(r.entryID, r.t, r.text)
}

// user emits a user message.
func (st *ohState) user(f ohFields, text string) {
	if !st.begin(st.time(f), true) {
		return
	}
	st.b.user(st.entryID(f), st.time(f), text)
}

// ohResponseUsage reads usage and the stop reason from a V0 model response.
func ohResponseUsage(resp json.RawMessage) (llm.Usage, llm.StopReason) {
	var r struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage openAIUsage `json:"usage"`
	}
	_ = json.Unmarshal(resp, &r)
	var stop llm.StopReason
	if len(r.Choices) > 0 {
		stop = stopReason(r.Choices[0].FinishReason)
	}
	return r.Usage.usage(), stop
}

// ohAskedArguments finds the arguments the model gave call callID in a V0
// model response: what the model asked for, before OpenHands turned it
// into an action.
func ohAskedArguments(resp json.RawMessage, callID string) (json.RawMessage, bool) {
	var r struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ID       string `json:"id"`
					Function struct {
						Arguments callArgs `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if len(resp) == 0 || json.Unmarshal(resp, &r) != nil || len(r.Choices) == 0 {
		return nil, false
	}
	for _, tc := range r.Choices[0].Message.ToolCalls {
		if tc.ID == callID && len(tc.Function.Arguments) > 0 {
			return tc.Function.Arguments.object(), true
		}
	}
	return nil, false
}

// ohThinking turns reasoning content and thinking blocks into thinking.
func ohThinking(reasoning string, blocksRaw json.RawMessage) []llm.Block {
	var out []llm.Block
	var blocks []struct {
		Thinking  string `json:"thinking"`
		Signature string `json:"signature"`
	}
	if len(blocksRaw) > 0 && json.Unmarshal(blocksRaw, &blocks) == nil {
		for _, b := range blocks {
			if b.Thinking != "" {
				out = append(out, llm.Thinking(b.Thinking, b.Signature))
			}
		}
	}
	if len(out) == 0 && reasoning != "" {
		out = append(out, llm.Thinking(reasoning, ""))
	}
	return out
}

// firstNonEmpty returns the first non-empty string.
func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
