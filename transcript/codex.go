package transcript

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"

	"github.com/vigil-dev/vigil/history"
)

// Codex rollout files ($CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl):
// every line is {timestamp, type, payload}. response_item lines hold the
// model-visible history as Responses API items (one item per line: a
// reply's reasoning, text and function calls are separate lines, merged
// here into one assistant message); event_msg lines repeat much of it for
// the UI and add runtime events. Lines carry no parent: entries are
// chained in file order. See the integrations spec, §2.1.

// cxLine is one line.
type cxLine struct {
	Timestamp string          `json:"timestamp" fast:"func=fastTimestamp"`
	Type      string          `json:"type" fast:"of=response_item|event_msg|turn_context"`
	Payload   json.RawMessage `json:"payload" fast:"func=fastPayload"`
	Metadata  *cxLineMeta     `json:"metadata"`
	// item and event, when set, are where the fast path may decode the
	// payload with the line; decoded says it did. The fast path parses
	// Timestamp into t.
	item    *cxItem
	event   *cxEvent
	decoded bool
	t       time.Time
	stamped bool
}

// fastTimestamp reads the timestamp on the fast path, straight into t.
func (l *cxLine) fastTimestamp(d *jdec) { l.t, l.stamped = d.stamp(), true }

// fastPayload reads the payload on the fast path: decoded with the line
// when its type came first, as Codex writes it, and kept raw otherwise.
func (l *cxLine) fastPayload(d *jdec) {
	var into fastDecoder
	switch {
	case l.Type == "response_item" && l.item != nil:
		into = l.item
	case l.Type == "event_msg" && l.event != nil:
		into = l.event
	}
	if into == nil || d.peek() != '{' {
		l.Payload = d.raw()
		return
	}
	start := d.i
	into.decodeFast(d)
	l.Payload = d.b[start:d.i:d.i]
	l.decoded = true
}

// time returns when the line was written.
func (l *cxLine) time() time.Time {
	if l.stamped {
		return l.t
	}
	return parseStamp(l.Timestamp)
}

// cxLineMeta is a line's metadata.
type cxLineMeta struct {
	// CompactionOutput marks the reply to a compaction request.
	CompactionOutput bool `json:"compaction_output"`
}

// cxItem is a response_item payload, as far as the reader uses it.
type cxItem struct {
	Type      string          `json:"type" fast:"of=message|reasoning|function_call|function_call_output|custom_tool_call|custom_tool_call_output"`
	Role      string          `json:"role" fast:"of=assistant|user|developer"`
	Content   json.RawMessage `json:"content"`
	Summary   []cxText        `json:"summary"`
	Encrypted string          `json:"encrypted_content"`
	Name      string          `json:"name" fast:"recent"`
	Arguments json.RawMessage `json:"arguments"`
	Input     json.RawMessage `json:"input"`
	Action    json.RawMessage `json:"action"`
	CallID    string          `json:"call_id" fast:"recent"`
	ID        string          `json:"id"`
	Output    json.RawMessage `json:"output"`
	Internal  *cxInternal     `json:"internal_chat_message_metadata_passthrough"`
}

// cxInternal says where the parts of a message came from.
type cxInternal struct {
	ContentItemMetadata []cxItemMeta `json:"content_item_metadata"`
}

type cxItemMeta struct {
	Provenance struct {
		Type string `json:"type"`
	} `json:"provenance"`
}

// cxText is a content item of a message or a reasoning summary.
type cxText struct {
	Type     string `json:"type" fast:"of=input_text|output_text|summary_text"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// cxTextList is message content or a reasoning summary as a list.
type cxTextList []cxText

// cxUsage is a token count as Codex records it: input includes cached
// tokens, output includes reasoning.
type cxUsage struct {
	InputTokens     int64 `json:"input_tokens"`
	CachedInput     int64 `json:"cached_input_tokens"`
	CacheWriteInput int64 `json:"cache_write_input_tokens"`
	OutputTokens    int64 `json:"output_tokens"`
}

func (u cxUsage) usage() llm.Usage {
	in := u.InputTokens - u.CachedInput - u.CacheWriteInput
	if in < 0 {
		in = 0
	}
	return llm.Usage{Input: in, Output: u.OutputTokens, CacheRead: u.CachedInput, CacheWrite: u.CacheWriteInput}
}

// cxEvent is an event_msg payload, as far as the reader uses it.
type cxEvent struct {
	Type     string       `json:"type" fast:"of=token_count|exec_command_end|agent_message|agent_reasoning|user_message|exec_command_begin"`
	CallID   string       `json:"call_id"`
	ExitCode *int         `json:"exit_code"`
	Info     *cxEventInfo `json:"info"`
	Item     *cxEventItem `json:"item"`
}

// cxUsageRecord, cxTurnContext and cxCompacted are what the reader uses
// of the payloads of those line types.
type cxUsageRecord struct {
	Usage *cxUsage `json:"usage"`
}

type cxTurnContext struct {
	Model string `json:"model"`
}

type cxCompacted struct {
	Message string `json:"message"`
}

// cxEventInfo is a token_count event's info.
type cxEventInfo struct {
	Last *cxUsage `json:"last_token_usage"`
}

// cxEventItem is an item_completed event's item.
type cxEventItem struct {
	Type     string `json:"type"`
	ID       string `json:"id"`
	Status   string `json:"status"`
	ExitCode *int   `json:"exit_code"`
}

// cxEventTypes are the event_msg types the reader knows; most repeat
// response items for the UI or report runtime state.
var cxEventTypes = map[string]bool{
	"user_message": true, "agent_message": true, "agent_reasoning": true,
	"agent_reasoning_raw_content": true, "agent_reasoning_section_break": true,
	"token_count": true, "exec_command_begin": true, "exec_command_end": true,
	"patch_apply_begin": true, "patch_apply_end": true, "mcp_tool_call_begin": true,
	"mcp_tool_call_end": true, "web_search_begin": true, "web_search_end": true,
	"task_started": true, "task_complete": true, "turn_started": true,
	"turn_complete": true, "turn_aborted": true, "context_compacted": true,
	"thread_rolled_back": true, "thread_name_updated": true, "item_started": true,
	"item_completed": true, "entered_review_mode": true, "exited_review_mode": true,
	"image_generation_end": true, "error": true, "stream_error": true,
	"thread_settings_applied": true, "plan_update": true, "background_event": true,
	"view_image_tool_call": true, "collab_agent_spawn_end": true,
}

// cxProbe is what sniffing and the run's header read of the first lines.
type cxProbe struct {
	Type    string          `json:"type" fast:"of=response_item|event_msg|turn_context|session_meta"`
	Payload *cxProbePayload `json:"payload"`
}

// cxProbePayload is what the probe reads of a payload.
type cxProbePayload struct {
	ID            string `json:"id"`
	CWD           string `json:"cwd"`
	Timestamp     string `json:"timestamp"`
	ModelProvider string `json:"model_provider"`
	Model         string `json:"model"`
}

// cxLineTypes are the top-level line types of a rollout.
var cxLineTypes = map[string]bool{"session_meta": true, "response_item": true, "event_msg": true, "turn_context": true, "compacted": true}

// sniffCodex looks for rollout lines: a known type with a payload object.
// The first line, session_meta, can be longer than the head when the base
// instructions are long, so its opening is accepted as well.
func sniffCodex(head []byte, name string) bool {
	lines := headLines(head, 2)
	if len(lines) == 0 {
		start := head[:min(len(head), 200)]
		return strings.Contains(string(start), `"type":"session_meta","payload":{`)
	}
	for _, line := range lines {
		var p cxProbe
		if json.Unmarshal(line, &p) != nil || !cxLineTypes[p.Type] || p.Payload == nil {
			return false
		}
	}
	return true
}

// cxReader holds a run's bookkeeping: the assistant message being built
// from a reply's items, the model the turn runs (the provider from the
// session_meta line, the model from the latest turn_context), and the
// exit status of commands whose output has not been read yet.
type cxReader struct {
	d       *decodeState
	dec     jdec
	l       cxLine // the line being read, reused
	it      cxItem // its payload when it is an item, reused
	ev      cxEvent
	last    string // id of the last entry emitted
	model   llm.Ref
	meta    bool // a session_meta line was read
	pending *session.Entry
	failed  map[string]bool // call id → the command failed
}

// cxFailedMax bounds the call ids remembered between a command's end
// event and its output item.
const cxFailedMax = 1024

// cxProbeLines is how many lines at the head of a file (within its first
// sniffSize bytes) the run's description is gathered from.
const cxProbeLines = 100

func readCodex(d *decodeState) error {
	run := RunInfo{Format: FormatCodex}
	r := newCXReader(d)
	for _, line := range headLines(peekHead(d), cxProbeLines) {
		cxProbeLine(&r.dec, line, &run)
	}
	if !d.emit(Item{Run: &run}) {
		return nil
	}
	err := eachLine(d, r.rawLine)
	if err == nil && !r.flush() {
		return nil
	}
	return err
}

// newCXReader returns a reader of one run that emits through d.
func newCXReader(d *decodeState) *cxReader {
	return &cxReader{d: d, failed: map[string]bool{}}
}

// cxProbeLine adds to run what one line at the head of a file tells of
// it: the session's id, working folder and start from session_meta, the
// model from the first turn_context.
func cxProbeLine(dec *jdec, line []byte, run *RunInfo) {
	var p cxProbe
	if decodeJSON(dec, line, &p) != nil || p.Payload == nil {
		return
	}
	switch p.Type {
	case "session_meta":
		if run.ID == "" {
			run.ID, run.CWD, run.Started = p.Payload.ID, p.Payload.CWD, parseStamp(p.Payload.Timestamp)
		}
	case "turn_context":
		if run.Model == "" {
			run.Model = p.Payload.Model
		}
	}
}

// rawLine decodes and reads line n.
func (r *cxReader) rawLine(n int, raw []byte) error {
	r.l, r.it, r.ev = cxLine{}, cxItem{}, cxEvent{}
	r.l.item, r.l.event = &r.it, &r.ev
	if err := decodeJSON(&r.dec, raw, &r.l); err != nil {
		return malformed(err)
	}
	if r.l.Type == "" {
		return malformed(fmt.Errorf("line has no type"))
	}
	return r.line(n, &r.l)
}

func (r *cxReader) line(n int, l *cxLine) error {
	switch l.Type {
	case "response_item":
		if !l.decoded {
			r.it = cxItem{}
			if err := decodeJSON(&r.dec, l.Payload, &r.it); err != nil {
				return malformed(err)
			}
		}
		return r.item(n, l, &r.it)
	case "event_msg":
		if !l.decoded {
			r.ev = cxEvent{}
			if err := decodeJSON(&r.dec, l.Payload, &r.ev); err != nil {
				return malformed(err)
			}
		}
		r.event(n, &r.ev)
		return nil
	case "token_usage_record":
		var rec cxUsageRecord
		if decodeJSON(&r.dec, l.Payload, &rec) == nil && rec.Usage != nil && r.pending != nil {
			r.pending.Body.(*session.Message).Usage = rec.Usage.usage()
		}
		return nil
	case "turn_context":
		var tc cxTurnContext
		if decodeJSON(&r.dec, l.Payload, &tc) == nil && tc.Model != "" {
			r.model.Model = tc.Model
		}
		return nil
	case "compacted":
		var c cxCompacted
		if err := decodeJSON(&r.dec, l.Payload, &c); err != nil {
			return malformed(err)
		}
		return r.put(n, l, &session.Compaction{Summary: c.Message})
	case "session_meta":
		// The first names the provider; a resumed or forked session may
		// repeat it.
		var p cxProbePayload
		if !r.meta && decodeJSON(&r.dec, l.Payload, &p) == nil {
			r.meta = true
			r.model.Provider = p.ModelProvider
		}
		return nil
	default:
		r.d.note(n, fmt.Sprintf("unknown line type %q", l.Type))
		return nil
	}
}

// item maps one response item.
func (r *cxReader) item(n int, l *cxLine, it *cxItem) error {
	switch it.Type {
	case "message":
		return r.message(n, l, it)
	case "reasoning":
		var text []string
		for _, s := range it.Summary {
			text = append(text, s.Text)
		}
		if len(text) == 0 {
			for _, c := range cxTexts(it.Content) {
				text = append(text, c.Text)
			}
		}
		if len(text) == 0 && it.Encrypted != "" {
			return r.reply(n, l, llm.RedactedThinking(it.Encrypted))
		}
		return r.reply(n, l, llm.Thinking(strings.Join(text, "\n\n"), it.Encrypted))
	case "function_call":
		var args string
		if s, ok := stringContent(it.Arguments); ok {
			args = s
		} else {
			args = string(it.Arguments)
		}
		return r.reply(n, l, llm.ToolCall(it.CallID, it.Name, stringArguments(args)))
	case "custom_tool_call":
		input, _ := stringContent(it.Input)
		args, _ := json.Marshal(map[string]string{"input": input})
		return r.reply(n, l, llm.ToolCall(it.CallID, it.Name, args))
	case "local_shell_call":
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		return r.reply(n, l, llm.ToolCall(id, "local_shell", objectArguments(it.Action)))
	case "web_search_call":
		return r.reply(n, l, llm.ToolCall(it.ID, "web_search", objectArguments(it.Action)))
	case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
		text, isErr := cxOutput(it.Output)
		if r.failed[it.CallID] {
			isErr = true
		}
		delete(r.failed, it.CallID)
		block := llm.ToolResult(it.CallID, isErr, textBlocks(text)...)
		return r.put(n, l, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{block}}})
	case "compaction", "compaction_summary":
		// Remote compaction: the summary is encrypted for the provider.
		return r.put(n, l, &session.Compaction{})
	case "ghost_snapshot":
		return nil
	default:
		r.d.note(n, fmt.Sprintf("unknown response_item type %q", it.Type))
		return nil
	}
}

// cxHarnessTags open the user messages the harness writes, not the user.
var cxHarnessTags = []string{"environment_context", "user_instructions", "hook_prompt", "turn_aborted", "user_shell_command", "subagent_notification"}

func (r *cxReader) message(n int, l *cxLine, it *cxItem) error {
	var blocks []llm.Block
	for _, c := range cxTexts(it.Content) {
		switch {
		case c.Type == "input_image" && c.ImageURL != "":
			blocks = append(blocks, llm.Text("[image: "+cxShortURL(c.ImageURL)+"]"))
		case c.Text != "":
			blocks = append(blocks, llm.Text(c.Text))
		}
	}
	switch it.Role {
	case "assistant":
		if l.Metadata != nil && l.Metadata.CompactionOutput {
			// The reply to a compaction request; its text comes back in
			// the compacted line.
			return nil
		}
		return r.reply(n, l, blocks...)
	case "developer", "system":
		// A hook's additional context is a developer message of its own.
		if it.Role == "developer" {
			if text := (llm.Message{Content: blocks}).Text(); history.IsAdvisories(text) {
				return r.put(n, l, adviceBody("additionalContext", text, nil))
			}
		}
		return r.put(n, l, &session.Custom{CustomType: it.Role, Content: blocks, InContext: true})
	case "user":
		typ := cxHarnessType(it, blocks)
		if typ == "hook_prompt" {
			if advice, ok := cxStopAdvice(blocks); ok {
				return r.put(n, l, adviceBody("Stop", advice, nil))
			}
		}
		if typ != "" {
			return r.put(n, l, &session.Custom{CustomType: typ, Content: blocks, InContext: true})
		}
		return r.put(n, l, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: blocks}})
	default:
		r.d.note(n, fmt.Sprintf("unknown message role %q", it.Role))
		return nil
	}
}

// cxStopAdvice returns the advisory elements a Stop hook's block fed back
// to the model, when they are all it holds. Codex writes the block as a
// user message of <hook_prompt hook_run_id="…">REASON</hook_prompt>
// elements, one a blocking hook, each reason XML-escaped.
func cxStopAdvice(blocks []llm.Block) (string, bool) {
	reasons, ok := unwrapElements(llm.Message{Content: blocks}.Text(), "hook_prompt")
	if !ok {
		return "", false
	}
	for _, r := range reasons {
		if !history.IsAdvisories(r) {
			return "", false
		}
	}
	return strings.Join(reasons, "\n"), true
}

// cxHarnessType names the origin of a user message the harness wrote
// (environment context, AGENTS.md, hook prompts), or returns "" for the
// user's own.
func cxHarnessType(it *cxItem, blocks []llm.Block) string {
	text := strings.TrimSpace(llm.Message{Content: blocks}.Text())
	for _, tag := range cxHarnessTags {
		if strings.HasPrefix(text, "<"+tag+">") || strings.HasPrefix(text, "<"+tag+" ") {
			return tag
		}
	}
	if strings.HasPrefix(text, "# AGENTS.md instructions") {
		return "agents_md"
	}
	if it.Internal != nil && len(it.Internal.ContentItemMetadata) > 0 {
		for _, m := range it.Internal.ContentItemMetadata {
			if m.Provenance.Type == "user" || m.Provenance.Type == "" {
				return ""
			}
		}
		return "harness"
	}
	return ""
}

// event reads the events that add to the history: usage, and the exit
// status of commands.
func (r *cxReader) event(n int, ev *cxEvent) {
	switch {
	case ev.Type == "token_count":
		if ev.Info != nil && ev.Info.Last != nil && r.pending != nil {
			m := r.pending.Body.(*session.Message)
			if m.Usage == (llm.Usage{}) {
				m.Usage = ev.Info.Last.usage()
			}
		}
	case ev.Type == "exec_command_end" && ev.ExitCode != nil && *ev.ExitCode != 0:
		r.fail(ev.CallID)
	case ev.Type == "item_completed" && ev.Item != nil && (ev.Item.Type == "CommandExecution" || ev.Item.Type == "FileChange"):
		// A command or change the user declined ran nothing: a failure.
		if ev.Item.Status == "failed" || ev.Item.Status == "declined" || (ev.Item.ExitCode != nil && *ev.Item.ExitCode != 0) {
			r.fail(ev.Item.ID)
		}
	case !cxEventTypes[ev.Type]:
		r.d.note(n, fmt.Sprintf("unknown event_msg type %q", ev.Type))
	}
}

func (r *cxReader) fail(callID string) {
	if len(r.failed) >= cxFailedMax {
		clear(r.failed)
	}
	r.failed[callID] = true
}

// reply adds blocks to the assistant message being built, starting one if
// none is.
func (r *cxReader) reply(n int, l *cxLine, blocks ...llm.Block) error {
	if r.pending == nil {
		msg := &session.Message{Message: llm.Message{Role: llm.RoleAssistant}, Model: r.model}
		r.pending = &session.Entry{ID: "L" + strconv.Itoa(n), ParentID: r.last, Time: l.time(), Body: msg}
		r.last = r.pending.ID
	}
	m := r.pending.Body.(*session.Message)
	m.Message.Content = append(m.Message.Content, blocks...)
	if len(m.Message.ToolCalls()) > 0 {
		m.StopReason = llm.StopToolUse
	} else {
		m.StopReason = llm.StopEndTurn
	}
	return nil
}

// put emits an entry for line n after the assistant message being built.
func (r *cxReader) put(n int, l *cxLine, body session.Body) error {
	if !r.flush() {
		return errStopped
	}
	e := session.Entry{ID: "L" + strconv.Itoa(n), ParentID: r.last, Time: l.time(), Body: body}
	r.last = e.ID
	if !r.d.emit(Item{Entry: e}) {
		return errStopped
	}
	return nil
}

// flush emits the assistant message being built; false means the consumer
// stopped.
func (r *cxReader) flush() bool {
	if r.pending == nil {
		return true
	}
	e := *r.pending
	r.pending = nil
	return r.d.emit(Item{Entry: e})
}
