package transcript

import (
	"bytes"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// mini-swe-agent writes a run as one JSON document (<instance>.traj.json):
//
//	{"info": {"exit_status", "submission", "model_stats", "mini_version",
//	          "config": {"model": {"model_name"}, "environment": {"cwd"}, ...}},
//	 "messages": [{"role", "content", "extra", ...}, ...],
//	 "trajectory_format": "mini-swe-agent-1", "instance_id": ...}
//
// Older tools keep only the messages, as a bare JSON array. Messages are
// chat messages: a system prompt, the task as the first user message, then
// assistant replies and what the harness answers. Version 1 replies write
// their one command as a ```bash block in the text and get its output back
// as the next user message; version 2 replies use tool calls (role "tool"
// answers carry tool_call_id) or list their parsed commands in
// extra.actions, and the run ends with a message of role "exit".
//
// Mapping:
//   - the system prompt is skipped (noted); the first user message is the
//     task, a user message;
//   - a reply becomes an assistant message: its text (with a ```bash action
//     block taken out), its reasoning as thinking, and one call per action
//     (tool calls keep their ids and names; text actions become "bash"
//     calls with {"command": ...} and ids "call-<reply>");
//   - an observation answers the oldest open call with a tool result, an
//     error when it shows a non-zero <returncode> (or extra.returncode), an
//     exception, or a timeout;
//   - a format error the harness sends back answers the calls it rejected
//     with error results; when the reply made no call the harness could
//     run (no action, or several ```bash blocks in version 1), it is a user
//     message, so the reply stays a step without calls;
//   - the submission (role "exit", or version 1's last user message) answers
//     the submitting call;
//   - the exit status and the instance id, which the file records outside
//     the messages, end the run as a custom "exit" entry.
//
// RunInfo gets the model and working folder from info.config when info
// comes before the messages, as mini-swe-agent writes it. Entry ids are the
// message's position in the list, from 1; times come from extra.timestamp.

// sniffMiniSWEAgent recognises the dict form by its leading "info" or
// "messages" key together with a mini-swe-agent marker (or the .traj.json
// name), and the list form by a first element that is a chat message.
func sniffMiniSWEAgent(head []byte, name string) bool {
	s := sniffJSONShape(head, 1)
	switch s.kind {
	case '{':
		if len(s.keys) == 0 || (s.keys[0] != "info" && s.keys[0] != "messages") {
			return false
		}
		return bytes.Contains(head, []byte("mini_version")) ||
			bytes.Contains(head, []byte("minisweagent")) ||
			bytes.Contains(head, []byte(`"mini-swe-agent`)) ||
			strings.HasSuffix(name, ".traj.json")
	case '[':
		o, ok := s.first[""]
		if !ok || o.hasAny("source", "kind", "action", "observation", "agent", "message_type") {
			return false
		}
		switch o["role"] {
		case "system", "user", "assistant":
			return true
		}
	}
	return false
}

// miniInfo is the part of info a reader uses.
type miniInfo struct {
	ExitStatus  string `json:"exit_status"`
	MiniVersion string `json:"mini_version"`
	Config      struct {
		Model struct {
			ModelName string `json:"model_name"`
		} `json:"model"`
		Environment struct {
			Cwd string `json:"cwd"`
		} `json:"environment"`
	} `json:"config"`
}

// miniMessage is one element of messages.
type miniMessage struct {
	Role       string       `json:"role" fast:"of=assistant|user|tool|system|exit"`
	Content    flexText     `json:"content"`
	ToolCalls  []openAICall `json:"tool_calls"`
	ToolCallID string       `json:"tool_call_id" fast:"recent"`
	Extra      miniExtra    `json:"extra"`
	Reasoning  string       `json:"reasoning_content"`
}

// openAICall is a tool call as OpenAI's Chat Completions API writes it.
type openAICall struct {
	ID       string `json:"id" fast:"recent"`
	Function struct {
		Name      string   `json:"name" fast:"recent"`
		Arguments callArgs `json:"arguments"`
	} `json:"function"`
}

type miniExtra struct {
	Actions  []miniAction `json:"actions"`
	Response struct {
		Model   string       `json:"model" fast:"recent"`
		Choices []miniChoice `json:"choices"`
		Usage   openAIUsage  `json:"usage"`
	} `json:"response"`
	Returncode    *int    `json:"returncode"`
	ExceptionInfo string  `json:"exception_info"`
	InterruptType string  `json:"interrupt_type"`
	ExitStatus    string  `json:"exit_status"`
	Timestamp     float64 `json:"timestamp"`
}

// miniAction is a command mini-swe-agent parsed out of a reply.
type miniAction struct {
	Command    string `json:"command"`
	ToolCallID string `json:"tool_call_id" fast:"recent"`
}

// miniChoice is a choice of the model's response.
type miniChoice struct {
	FinishReason string `json:"finish_reason" fast:"of=tool_calls|stop"`
	Message      struct {
		ReasoningContent string `json:"reasoning_content"`
	} `json:"message"`
}

// openAIUsage is token usage as OpenAI-compatible APIs (through LiteLLM)
// report it.
type openAIUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	// CacheCreationInputTokens is what LiteLLM adds for Anthropic models:
	// prompt tokens written to the cache, counted in PromptTokens.
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

func (u openAIUsage) usage() llm.Usage {
	cached := min(u.PromptTokensDetails.CachedTokens, u.PromptTokens)
	written := min(u.CacheCreationInputTokens, u.PromptTokens-cached)
	return llm.Usage{Input: u.PromptTokens - cached - written, CacheRead: cached, CacheWrite: written, Output: u.CompletionTokens}
}

// bashBlock is the action mini-swe-agent 1 parses out of a reply.
var bashBlock = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("(?s)```bash\\s*\\n(.*?)\\n```") })

// miniState is one run being read.
type miniState struct {
	b          runBuilder
	info       miniInfo
	started    bool
	sawTask    bool
	exitStatus string
	instanceID string
	// at is the message being read, from 1; 0 outside the messages.
	at int
}

func readMiniSWEAgent(d *decodeState) error {
	st := &miniState{b: runBuilder{d: d}}
	err := st.read(newJSONDoc(d.in))
	return docResult(d, st.at, err)
}

// read walks the document. Its errors are the decoder's: the caller tells
// a cut-off document from a failed read.
func (st *miniState) read(doc *jsonDoc) error {
	d := st.b.d
	kind, err := doc.open()
	if err != nil {
		return err
	}
	switch kind {
	case '[':
		return st.messages(doc, true)
	case '{':
	default:
		return fmt.Errorf("not a mini-swe-agent trajectory: neither an object nor a list")
	}
	for doc.more() {
		key, err := doc.key()
		if err != nil {
			return err
		}
		switch key {
		case "info":
			err = doc.decode(&st.info)
			if wrongShape(err) {
				d.note(0, "info of an unexpected shape")
				err = nil
			}
			st.exitStatus = st.info.ExitStatus
		case "messages":
			err = st.messages(doc, false)
		case "instance_id":
			st.instanceID, err = doc.str()
		case "trajectory_format":
			var f string
			if f, err = doc.str(); err == nil && f != "mini-swe-agent-1" && f != "mini-swe-agent-1.1" {
				d.note(0, fmt.Sprintf("unknown trajectory_format %q", f))
			}
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
	if !st.started {
		d.note(0, "no messages")
		return nil
	}
	st.b.end("exit", map[string]any{"exit_status": st.exitStatus, "instance_id": st.instanceID})
	return nil
}

// messages reads the messages array, whose '[' comes next or, when
// entered, has just been read.
func (st *miniState) messages(doc *jsonDoc, entered bool) error {
	d := st.b.d
	if !entered {
		isArray, err := doc.enterArray()
		if err != nil || !isArray {
			if err == nil {
				d.note(0, "messages is not a list")
			}
			return err
		}
	}
	if st.started {
		d.note(0, "second messages list skipped")
		return doc.skipRest('[')
	}
	if !st.start() {
		return nil
	}
	err := doc.elements(func(n int) error {
		st.at = n
		var m miniMessage
		if err := doc.decode(&m); wrongShape(err) {
			d.note(n, "message of an unexpected shape")
		} else if err != nil {
			return err
		}
		st.message(n, &m)
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

// start begins the run with what info, read before the messages, says.
func (st *miniState) start() bool {
	st.started = true
	return st.b.start(RunInfo{
		Format: FormatMiniSWEAgent,
		ID:     st.instanceID,
		Task:   st.instanceID,
		Model:  st.info.Config.Model.ModelName,
		CWD:    st.info.Config.Environment.Cwd,
	})
}

// message maps message n (from 1).
func (st *miniState) message(n int, m *miniMessage) {
	d, b := st.b.d, &st.b
	id := strconv.Itoa(n)
	t := unixTime(m.Extra.Timestamp)
	text := string(m.Content)
	switch m.Role {
	case "system":
		d.note(n, "system prompt skipped")
	case "assistant":
		b.reply(id, t, st.reply(m))
	case "tool":
		callID := m.ToolCallID
		if callID == "" && len(b.open) > 0 {
			callID = b.open[0]
		}
		if callID == "" {
			d.note(n, "tool message answering no call")
			b.user(id, t, text)
			return
		}
		b.results(id, t, []string{callID}, text, observationFailed(m))
	case "user":
		switch {
		case !st.sawTask && len(b.open) == 0:
			st.sawTask = true
			b.user(id, t, text)
		case len(b.open) == 0:
			if strings.TrimSpace(text) == "" {
				d.note(n, "empty user message skipped")
				return
			}
			b.user(id, t, text)
		case m.Extra.InterruptType == "FormatError":
			b.results(id, t, append([]string(nil), b.open...), text, true)
		default:
			b.results(id, t, []string{b.open[0]}, text, observationFailed(m))
		}
	case "exit":
		if m.Extra.ExitStatus != "" {
			st.exitStatus = m.Extra.ExitStatus
		}
		if len(b.open) > 0 {
			b.results(id, t, append([]string(nil), b.open...), text, false)
		}
	default:
		d.note(n, fmt.Sprintf("unknown role %q", m.Role))
	}
}

// reply builds the assistant message for m.
func (st *miniState) reply(m *miniMessage) *session.Message {
	r := st.b.nextReply()
	text := string(m.Content)
	var calls []llm.Block
	switch {
	case len(m.ToolCalls) > 0:
		for k, c := range m.ToolCalls {
			id := c.ID
			if id == "" {
				id = callID(r, k, len(m.ToolCalls))
			}
			calls = append(calls, llm.ToolCall(id, c.Function.Name, c.Function.Arguments.object()))
		}
	case len(m.Extra.Actions) > 0:
		for k, a := range m.Extra.Actions {
			id := a.ToolCallID
			if id == "" {
				id = callID(r, k, len(m.Extra.Actions))
			}
			calls = append(calls, llm.ToolCall(id, "bash", commandArguments(a.Command)))
		}
		text = withoutSingleBlock(text)
	default:
		if found := bashBlock().FindAllStringSubmatchIndex(text, 2); len(found) == 1 {
			cmd := strings.TrimSpace(text[found[0][2]:found[0][3]])
			calls = append(calls, llm.ToolCall(callID(r, 0, 1), "bash", commandArguments(cmd)))
			text = strings.TrimSpace(text[:found[0][0]] + text[found[0][1]:])
		}
	}
	msg := &session.Message{Message: llm.Message{Role: llm.RoleAssistant}}
	reasoning := m.Reasoning
	resp := m.Extra.Response
	if len(resp.Choices) > 0 {
		if reasoning == "" {
			reasoning = resp.Choices[0].Message.ReasoningContent
		}
		msg.StopReason = stopReason(resp.Choices[0].FinishReason)
	}
	if reasoning != "" {
		msg.Message.Content = append(msg.Message.Content, llm.Thinking(reasoning, ""))
	}
	if text != "" {
		msg.Message.Content = append(msg.Message.Content, llm.Text(text))
	}
	msg.Message.Content = append(msg.Message.Content, calls...)
	model := resp.Model
	if model == "" {
		model = st.info.Config.Model.ModelName
	}
	msg.Model = llm.Ref{Model: model}
	msg.Usage = resp.Usage.usage()
	return msg
}

// withoutSingleBlock takes the ```bash block out of text when it holds
// exactly one.
func withoutSingleBlock(text string) string {
	found := bashBlock().FindAllStringIndex(text, 2)
	if len(found) != 1 {
		return text
	}
	return strings.TrimSpace(text[:found[0][0]] + text[found[0][1]:])
}

// observationFailed reports whether an observation shows that its command
// failed: a non-zero return code, an exception, a timeout, an interrupt
// other than a submission, or, with no return code, nothing but refusals
// (onlyDenials).
func observationFailed(m *miniMessage) bool {
	if rc := m.Extra.Returncode; rc != nil {
		return *rc != 0
	}
	text := string(m.Content)
	if failed, ok := failedReturnCode(text); ok {
		return failed
	}
	if m.Extra.ExceptionInfo != "" || strings.HasPrefix(text, "<exception>") {
		return true
	}
	if strings.HasPrefix(text, "The last command <command>") && strings.Contains(text, "timed out") {
		return true
	}
	switch m.Extra.InterruptType {
	case "", "Submitted":
		return onlyDenials(text)
	}
	return true
}
