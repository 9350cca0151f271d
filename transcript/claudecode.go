package transcript

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Claude Code session files (~/.claude/projects/<slug>/<session>.jsonl):
// one JSON object per line with a "type". Conversation lines (user,
// assistant, attachment, system) carry uuid and parentUuid; the rest is
// metadata. One API response is written as several assistant lines, one
// per content block, sharing message.id: the reader merges them into one
// assistant message, also when tool results, attachments or system lines
// come between them (those follow the message). See the integrations
// spec, §1.1.

// ccLine is one line, as far as the reader uses it.
type ccLine struct {
	Type                      string          `json:"type" fast:"of=assistant|user|attachment|system|progress"`
	Subtype                   string          `json:"subtype"`
	UUID                      string          `json:"uuid" fast:"recent"`
	ParentUUID                string          `json:"parentUuid" fast:"recent"`
	LogicalParentUUID         string          `json:"logicalParentUuid"`
	Timestamp                 string          `json:"timestamp" fast:"func=fastTimestamp"`
	SessionID                 string          `json:"sessionId" fast:"recent"`
	CWD                       string          `json:"cwd" fast:"recent"`
	IsMeta                    bool            `json:"isMeta"`
	IsCompactSummary          bool            `json:"isCompactSummary"`
	IsVisibleInTranscriptOnly bool            `json:"isVisibleInTranscriptOnly"`
	IsAPIErrorMessage         bool            `json:"isApiErrorMessage"`
	Message                   *ccMessage      `json:"message" fast:"into=msg"`
	Content                   json.RawMessage `json:"content"`
	Attachment                *ccAttachment   `json:"attachment"`
	Rendered                  []ccRendered    `json:"rendered"`
	RenderedRole              string          `json:"renderedRole"`
	CompactMetadata           *ccCompactMeta  `json:"compactMetadata"`
	Summary                   string          `json:"summary"`
	LeafUUID                  string          `json:"leafUuid"`
	// msg holds Message on the fast path, so that a reused line does not
	// allocate it; the fast path parses Timestamp into t.
	msg     ccMessage
	t       time.Time
	stamped bool
}

// fastTimestamp reads the timestamp on the fast path, straight into t.
func (l *ccLine) fastTimestamp(d *jdec) { l.t, l.stamped = d.stamp(), true }

// time returns when the line was written.
func (l *ccLine) time() time.Time {
	if l.stamped {
		return l.t
	}
	return parseStamp(l.Timestamp)
}

// ccAttachment is what the reader uses of an attachment line's attachment.
// Hook attachments (hook_additional_context, hook_blocking_error) name
// their hook and carry the text the hook returned: Content, a list of
// strings for additional context, and BlockingError for a block. Both are
// kept raw and decoded only for hook attachments, since other types use
// the names for other shapes.
type ccAttachment struct {
	Type          string          `json:"type"`
	HookName      string          `json:"hookName"`
	HookEvent     string          `json:"hookEvent"`
	ToolUseID     string          `json:"toolUseID"`
	Content       json.RawMessage `json:"content"`
	BlockingError json.RawMessage `json:"blockingError"`
}

// ccCompactMeta describes a compaction.
type ccCompactMeta struct {
	PreTokens        int64 `json:"preTokens"`
	PreservedSegment *struct {
		HeadUUID string `json:"headUuid"`
	} `json:"preservedSegment"`
}

// ccMessage is the Anthropic Messages API object a user or assistant line
// carries.
type ccMessage struct {
	ID         string          `json:"id" fast:"recent"`
	Role       string          `json:"role" fast:"of=assistant|user"`
	Model      string          `json:"model" fast:"recent"`
	Content    json.RawMessage `json:"content"`
	StopReason string          `json:"stop_reason" fast:"of=tool_use|end_turn"`
	Usage      *ccUsage        `json:"usage"`
}

// ccUsage is a reply's token usage.
type ccUsage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
}

// ccBlock is one content block of a message or of a tool result.
type ccBlock struct {
	Type      string          `json:"type" fast:"of=text|tool_use|tool_result|thinking"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id" fast:"recent"`
	Name      string          `json:"name" fast:"recent"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id" fast:"recent"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *ccSource       `json:"source"`
}

// ccBlocks is a list of content blocks.
type ccBlocks []ccBlock

// ccSource is an image's data.
type ccSource struct {
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
}

// ccRendered is the text an attachment put into the model's context.
type ccRendered struct {
	Content json.RawMessage `json:"content"`
}

// ccMetadataTypes are line types that hold no conversation: titles, undo
// snapshots, queued prompts, request bookkeeping, subagent progress.
var ccMetadataTypes = map[string]bool{
	"queue-operation": true, "last-prompt": true, "cost-state": true,
	"file-history-snapshot": true, "file-history-delta": true, "summary": true,
	"custom-title": true, "ai-title": true, "tag": true, "agent-name": true,
	"permission-mode": true, "pr-link": true, "worktree-state": true,
	"saved_hook_context": true, "fork-context-ref": true, "progress": true,
	"api-request": true, "api-request-shape": true, "api-request-blob": true,
}

// ccConversationTypes are the line types that take part in the tree.
var ccConversationTypes = map[string]bool{"user": true, "assistant": true, "attachment": true, "system": true}

// ccProbe is what sniffing and the run's header read of the first lines.
type ccProbe struct {
	Type       string          `json:"type" fast:"of=assistant|user|attachment|system|progress"`
	SessionID  string          `json:"sessionId" fast:"recent"`
	UUID       string          `json:"uuid"`
	ParentUUID json.RawMessage `json:"parentUuid"`
	LeafUUID   string          `json:"leafUuid"`
	MessageID  string          `json:"messageId"`
	Payload    json.RawMessage `json:"payload"`
	CWD        string          `json:"cwd" fast:"recent"`
	Timestamp  string          `json:"timestamp"`
	Message    *ccProbeMessage `json:"message"`
}

// ccProbeMessage is what the probe reads of a message.
type ccProbeMessage struct {
	Model string `json:"model" fast:"recent"`
}

// sniffClaudeCode looks at the first lines for Claude Code's envelope: a
// type with a sessionId (every conversation line and most metadata has
// one), or a title summary with its leafUuid, or an undo snapshot.
func sniffClaudeCode(head []byte, name string) bool {
	for _, line := range headLines(head, 3) {
		var p ccProbe
		if json.Unmarshal(line, &p) != nil || p.Type == "" || p.Payload != nil {
			return false
		}
		switch {
		case p.SessionID != "" && (ccConversationTypes[p.Type] || ccMetadataTypes[p.Type] || p.UUID != "" || p.ParentUUID != nil):
			return true
		case p.Type == "summary" && p.LeafUUID != "":
			return true
		case p.Type == "file-history-snapshot" && p.MessageID != "":
			return true
		}
	}
	return false
}

// ccReader holds a run's bookkeeping: an assistant message still being
// merged, the entries that arrived while it was (tool results, hook
// context), and a compaction waiting for its summary line.
type ccReader struct {
	d   *decodeState
	dec jdec
	l   ccLine // the line being read, reused
	// bufs are the decoded blocks of each depth of content, reused.
	bufs  [2]ccBlocks
	depth int
	// lastRole is the last renderedRole of an attachment, and
	// lastRoleDetails the details it gave.
	lastRole        string
	lastRoleDetails json.RawMessage
	links           lineage
	pending         *ccPending
	queue           []session.Entry
	compact         *session.Entry
	// settled is the message.id of the reply a follower's Settle completed
	// last: a later line of it is noted (see Follower.Settle).
	settled string
}

// ccPending is an assistant message whose blocks may continue on later
// lines.
type ccPending struct {
	msgID string
	entry session.Entry
	msg   *session.Message
}

// ccQueueMax bounds the entries held back behind a pending message.
const ccQueueMax = 64

// ccProbeLines is how many lines at the head of a file (within its first
// sniffSize bytes) the run's description is gathered from.
const ccProbeLines = 200

func readClaudeCode(d *decodeState) error {
	run := RunInfo{Format: FormatClaudeCode}
	var dec jdec
	for _, line := range headLines(peekHead(d), ccProbeLines) {
		ccProbeLine(&dec, line, &run)
	}
	if !d.emit(Item{Run: &run}) {
		return nil
	}
	r := &ccReader{d: d}
	err := eachLine(d, r.line)
	if err == nil && !r.flush() {
		return nil
	}
	return err
}

// ccProbeLine adds to run what one line at the head of a file tells of
// it: the session id, the working folder, when it started and its model.
func ccProbeLine(dec *jdec, line []byte, run *RunInfo) {
	var p ccProbe
	if decodeJSON(dec, line, &p) != nil {
		return
	}
	if run.ID == "" {
		run.ID = p.SessionID
	}
	if run.CWD == "" {
		run.CWD = p.CWD
	}
	if run.Started.IsZero() && ccConversationTypes[p.Type] {
		run.Started = parseStamp(p.Timestamp)
	}
	if run.Model == "" && p.Type == "assistant" && p.Message != nil && p.Message.Model != "<synthetic>" {
		run.Model = p.Message.Model
	}
}

// line reads one line.
func (r *ccReader) line(n int, raw []byte) error {
	r.l = ccLine{}
	l := &r.l
	if err := decodeJSON(&r.dec, raw, l); err != nil {
		return malformed(err)
	}
	return r.take(n, l)
}

// take reads one decoded line.
func (r *ccReader) take(n int, l *ccLine) error {
	if l.Type == "" {
		return malformed(fmt.Errorf("line has no type"))
	}
	switch {
	case l.Type == "assistant":
		return r.assistant(n, l)
	case l.Type == "user":
		return r.user(n, l)
	case l.Type == "attachment":
		return r.attachment(l)
	case l.Type == "system" && l.Subtype == "compact_boundary":
		if !r.flush() {
			return errStopped
		}
		c := &session.Compaction{}
		if m := l.CompactMetadata; m != nil {
			c.TokensBefore = m.PreTokens
			if m.PreservedSegment != nil {
				c.FirstKeptID = r.links.parent(m.PreservedSegment.HeadUUID)
			}
		}
		parent := l.LogicalParentUUID
		if parent == "" {
			parent = l.ParentUUID
		}
		r.compact = &session.Entry{ID: l.UUID, ParentID: r.links.parent(parent), Time: l.time(), Body: c}
		return nil
	case l.Type == "system":
		// Claude Code may write a system line (a turn's duration, a note)
		// between the lines of one reply: it is held behind the reply, so
		// that the reply's later lines still join it.
		text, _ := stringContent(l.Content)
		return r.put(r.entry(l, &session.Custom{
			CustomType: "system:" + l.Subtype,
			Content:    textBlocks(text),
		}), true)
	case ccMetadataTypes[l.Type]:
		r.links.drop(l.UUID, l.ParentUUID)
		return nil
	default:
		r.d.note(n, fmt.Sprintf("unknown line type %q", l.Type))
		r.links.drop(l.UUID, l.ParentUUID)
		return nil
	}
}

// entry returns an entry for line l with the given body, its parent
// resolved past dropped and merged lines.
func (r *ccReader) entry(l *ccLine, body session.Body) session.Entry {
	return session.Entry{ID: l.UUID, ParentID: r.links.parent(l.ParentUUID), Time: l.time(), Body: body}
}

func (r *ccReader) assistant(n int, l *ccLine) error {
	if l.Message == nil {
		return malformed(fmt.Errorf("assistant line has no message"))
	}
	blocks, err := r.blocks(n, l.Message.Content)
	if err != nil {
		return malformed(err)
	}
	if l.IsAPIErrorMessage {
		return r.put(r.entry(l, &session.Custom{CustomType: "api_error", Content: textOnly(blocks), Display: true}), false)
	}
	m := l.Message
	if p := r.pending; p != nil && m.ID != "" && m.ID == p.msgID {
		p.msg.Message.Content = append(p.msg.Message.Content, blocks...)
		ccReply(p.msg, m)
		r.links.drop(l.UUID, p.entry.ID)
		return nil
	}
	if r.settled != "" && m.ID == r.settled {
		r.d.note(n, "reply continued after Settle: its later blocks are read as a reply of their own")
	}
	if !r.flush() {
		return errStopped
	}
	msg := &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: blocks}}
	ccReply(msg, m)
	r.pending = &ccPending{msgID: m.ID, entry: r.entry(l, msg), msg: msg}
	return nil
}

// ccReply copies model, usage and stop reason onto msg; later lines of a
// merged response carry the final values.
func ccReply(msg *session.Message, m *ccMessage) {
	if m.Model != "" {
		msg.Model = llm.Ref{Provider: "anthropic", Model: m.Model}
		if m.Model == "<synthetic>" {
			msg.Model.Provider = ""
		}
	}
	if m.StopReason != "" {
		msg.StopReason = llm.StopReason(m.StopReason)
	}
	if u := m.Usage; u != nil {
		msg.Usage = llm.Usage{Input: u.InputTokens, Output: u.OutputTokens, CacheRead: u.CacheReadInputTokens, CacheWrite: u.CacheCreationInputTokens}
	}
}

func (r *ccReader) user(n int, l *ccLine) error {
	if l.Message == nil {
		return malformed(fmt.Errorf("user line has no message"))
	}
	blocks, err := r.blocks(n, l.Message.Content)
	if err != nil {
		return malformed(err)
	}
	if l.IsCompactSummary && r.compact != nil {
		c := r.compact.Body.(*session.Compaction)
		c.Summary = llm.Message{Content: blocks}.Text()
		r.links.drop(l.UUID, r.compact.ID)
		if !r.flush() {
			return errStopped
		}
		return nil
	}
	results := false
	for _, b := range blocks {
		results = results || b.Type == llm.BlockToolResult
	}
	if results {
		return r.put(r.entry(l, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: blocks}}), true)
	}
	text := llm.Message{Content: blocks}.Text()
	custom := func(typ string, inContext, display bool) error {
		return r.put(r.entry(l, &session.Custom{CustomType: typ, Content: blocks, InContext: inContext, Display: display}), false)
	}
	advice, isAdvice := ccStopAdvice(text)
	switch {
	case l.IsCompactSummary:
		return r.put(r.entry(l, &session.Compaction{Summary: text}), false)
	case l.IsVisibleInTranscriptOnly:
		return custom("transcript_only", false, true)
	case isAdvice:
		return r.put(r.entry(l, adviceBody("Stop", advice, nil)), false)
	case l.IsMeta:
		return custom("meta", true, false)
	case strings.HasPrefix(text, "<command-name>") || strings.HasPrefix(text, "<local-command-"):
		return custom("local_command", true, true)
	case strings.HasPrefix(strings.TrimPrefix(text, "<system-reminder>\n"), "Stop hook feedback:"):
		return custom("hook:Stop", true, false)
	}
	return r.put(r.entry(l, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: blocks}}), false)
}

// ccStopAdvice returns the advisory elements a Stop hook's block fed back
// to the model, when that is all the feedback holds. Claude Code writes
// the feedback as a user message (isMeta in 2.1) "Stop hook feedback:\n"
// followed by the hook's reason, in older versions inside a
// <system-reminder>.
func ccStopAdvice(text string) (string, bool) {
	s := strings.TrimSpace(text)
	if inner, ok := strings.CutPrefix(s, "<system-reminder>"); ok {
		s, _ = strings.CutSuffix(strings.TrimSpace(inner), "</system-reminder>")
		s = strings.TrimSpace(s)
	}
	rest, ok := strings.CutPrefix(s, "Stop hook feedback:")
	if !ok || !history.IsAdvisories(rest) {
		return "", false
	}
	return rest, true
}

// ccHookAdvice returns the advisory elements a hook attachment carries,
// when they are all the hook returned: the additional context of
// hook_additional_context (PostToolUse, PostToolUseFailure,
// UserPromptSubmit, SessionStart), or the reason of hook_blocking_error.
// It also returns the attachment's hook name and tool call id as details
// for the advice entry.
func ccHookAdvice(a *ccAttachment) (text string, details json.RawMessage, ok bool) {
	switch a.Type {
	case "hook_additional_context":
		var parts []string
		if json.Unmarshal(a.Content, &parts) != nil || len(parts) == 0 {
			return "", nil, false
		}
		for _, p := range parts {
			if !history.IsAdvisories(p) {
				return "", nil, false
			}
		}
		text = strings.Join(parts, "\n")
	case "hook_blocking_error":
		var b struct {
			BlockingError string `json:"blockingError"`
		}
		if json.Unmarshal(a.BlockingError, &b) != nil || !history.IsAdvisories(b.BlockingError) {
			return "", nil, false
		}
		text = b.BlockingError
	default:
		return "", nil, false
	}
	details, _ = json.Marshal(struct {
		HookName  string `json:"hookName,omitempty"`
		ToolUseID string `json:"toolUseID,omitempty"`
	}{a.HookName, a.ToolUseID})
	return text, details, true
}

// attachment maps context the harness or a hook attached. Only rendered
// text reaches the model; an attachment without it is state and dropped.
func (r *ccReader) attachment(l *ccLine) error {
	var blocks []llm.Block
	for _, rd := range l.Rendered {
		if s, ok := stringContent(rd.Content); ok {
			blocks = append(blocks, textBlocks(s)...)
			continue
		}
		var bs ccBlocks
		if decodeJSON(&r.dec, rd.Content, &bs) == nil {
			for _, b := range bs {
				if b.Type == "text" {
					blocks = append(blocks, textBlocks(b.Text)...)
				}
			}
		}
	}
	if len(blocks) == 0 {
		r.links.drop(l.UUID, l.ParentUUID)
		return nil
	}
	if a := l.Attachment; a != nil && strings.HasPrefix(a.Type, "hook_") {
		if advice, details, ok := ccHookAdvice(a); ok {
			channel, _, _ := strings.Cut(cmp.Or(a.HookEvent, a.HookName, "hook"), ":")
			return r.put(r.entry(l, adviceBody(channel, advice, details)), true)
		}
	}
	typ := "attachment"
	if l.Attachment != nil && l.Attachment.Type != "" {
		typ += ":" + l.Attachment.Type
	}
	var details json.RawMessage
	if l.RenderedRole != "" {
		if l.RenderedRole != r.lastRole {
			r.lastRole = l.RenderedRole
			r.lastRoleDetails, _ = json.Marshal(map[string]string{"renderedRole": l.RenderedRole})
		}
		details = bytes.Clone(r.lastRoleDetails)
	}
	return r.put(r.entry(l, &session.Custom{CustomType: typ, Content: blocks, InContext: true, Details: details}), true)
}

// blocks decodes message content: a string, or a list of blocks.
func (r *ccReader) blocks(n int, raw json.RawMessage) ([]llm.Block, error) {
	if s, ok := stringContent(raw); ok {
		return textBlocks(s), nil
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	// Blocks are decoded into a buffer kept for their depth (a tool
	// result's content is read while its message's blocks are).
	var bs ccBlocks
	if r.depth < len(r.bufs) {
		depth := r.depth
		bs = r.bufs[depth][:0]
		defer func() {
			clear(bs)
			if cap(bs) > 0 && cap(bs) <= maxKeptBlocks {
				r.bufs[depth] = bs[:0]
			}
		}()
	}
	r.depth++
	defer func() { r.depth-- }()
	if err := decodeJSON(&r.dec, raw, &bs); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	var out []llm.Block
	for _, b := range bs {
		switch b.Type {
		case "text":
			out = append(out, llm.Text(b.Text))
		case "thinking":
			out = append(out, llm.Thinking(b.Thinking, b.Signature))
		case "redacted_thinking":
			out = append(out, llm.RedactedThinking(b.Data))
		case "tool_use", "server_tool_use":
			out = append(out, llm.ToolCall(b.ID, b.Name, objectArguments(b.Input)))
		case "tool_result":
			inner, err := r.blocks(n, b.Content)
			if err != nil {
				return nil, err
			}
			out = append(out, llm.ToolResult(b.ToolUseID, b.IsError, inner...))
		case "image":
			if b.Source != nil && b.Source.Data != "" {
				out = append(out, llm.Image(b.Source.MediaType, b.Source.Data))
			}
		case "document", "tool_reference", "web_search_tool_result", "web_fetch_tool_result", "advisor_tool_result":
			// Server-side results and attachments that carry no text the
			// detectors read.
		default:
			r.d.note(n, fmt.Sprintf("unknown content block type %q", b.Type))
		}
	}
	return out, nil
}

// textOnly keeps the text blocks.
func textOnly(blocks []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range blocks {
		if b.Type == llm.BlockText {
			out = append(out, b)
		}
	}
	return out
}

// put emits e, or holds it behind a pending assistant message when it may
// arrive between that message's lines (tool results, hook context).
func (r *ccReader) put(e session.Entry, mayInterleave bool) error {
	if r.pending != nil && mayInterleave && len(r.queue) < ccQueueMax {
		r.queue = append(r.queue, e)
		return nil
	}
	if !r.flush() || !r.d.emit(Item{Entry: e}) {
		return errStopped
	}
	return nil
}

// flush emits the pending assistant message and what was held behind it,
// or the compaction waiting for its summary; it reports false when the
// consumer stopped. At most one of the two is waiting: each flushes the
// other before it starts.
func (r *ccReader) flush() bool {
	if c := r.compact; c != nil {
		r.compact = nil
		return r.d.emit(Item{Entry: *c})
	}
	if r.pending == nil {
		return true
	}
	p := r.pending
	r.pending = nil
	if !r.d.emit(Item{Entry: p.entry}) {
		return false
	}
	q := r.queue
	r.queue = r.queue[:0]
	for _, e := range q {
		if !r.d.emit(Item{Entry: e}) {
			return false
		}
	}
	return true
}
