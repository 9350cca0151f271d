package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Claude Code session files (~/.claude/projects/<slug>/<session>.jsonl):
// one JSON object per line with a "type". Conversation lines (user,
// assistant, attachment, system) carry uuid and parentUuid; the rest is
// metadata. One API response is written as several assistant lines, one
// per content block, sharing message.id: the reader merges them into one
// assistant message. See the integrations spec, §1.1.

// ccLine is one line, as far as the reader uses it.
type ccLine struct {
	Type                      string          `json:"type"`
	Subtype                   string          `json:"subtype"`
	UUID                      string          `json:"uuid"`
	ParentUUID                string          `json:"parentUuid"`
	LogicalParentUUID         string          `json:"logicalParentUuid"`
	Timestamp                 string          `json:"timestamp"`
	SessionID                 string          `json:"sessionId"`
	CWD                       string          `json:"cwd"`
	IsMeta                    bool            `json:"isMeta"`
	IsCompactSummary          bool            `json:"isCompactSummary"`
	IsVisibleInTranscriptOnly bool            `json:"isVisibleInTranscriptOnly"`
	IsAPIErrorMessage         bool            `json:"isApiErrorMessage"`
	Message                   *ccMessage      `json:"message"`
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

// time returns when the line was written.
func (l *ccLine) time() time.Time {
	if l.stamped {
		return l.t
	}
	return parseStamp(l.Timestamp)
}

// ccAttachment is what the reader uses of an attachment line's attachment.
type ccAttachment struct {
	Type string `json:"type"`
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
	ID         string          `json:"id"`
	Role       string          `json:"role"`
	Model      string          `json:"model"`
	Content    json.RawMessage `json:"content"`
	StopReason string          `json:"stop_reason"`
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
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	Data      string          `json:"data"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Source    *ccSource       `json:"source"`
}

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
	Type       string          `json:"type"`
	SessionID  string          `json:"sessionId"`
	UUID       string          `json:"uuid"`
	ParentUUID json.RawMessage `json:"parentUuid"`
	LeafUUID   string          `json:"leafUuid"`
	MessageID  string          `json:"messageId"`
	Payload    json.RawMessage `json:"payload"`
	CWD        string          `json:"cwd"`
	Timestamp  string          `json:"timestamp"`
	Message    *ccProbeMessage `json:"message"`
}

// ccProbeMessage is what the probe reads of a message.
type ccProbeMessage struct {
	Model string `json:"model"`
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

func readClaudeCode(d *decodeState) error {
	run := RunInfo{Format: FormatClaudeCode}
	var dec jdec
	for _, line := range headLines(peekHead(d), 200) {
		var p ccProbe
		if decodeJSON(&dec, line, &p) != nil {
			continue
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

// line reads one line.
func (r *ccReader) line(n int, raw []byte) error {
	r.l = ccLine{}
	l := &r.l
	if err := decodeJSON(&r.dec, raw, l); err != nil {
		return malformed(err)
	}
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
		text, _ := stringContent(l.Content)
		return r.put(r.entry(l, &session.Custom{
			CustomType: "system:" + l.Subtype,
			Content:    textBlocks(text),
		}), false)
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
	switch {
	case l.IsCompactSummary:
		return r.put(r.entry(l, &session.Compaction{Summary: text}), false)
	case l.IsVisibleInTranscriptOnly:
		return custom("transcript_only", false, true)
	case l.IsMeta:
		return custom("meta", true, false)
	case strings.HasPrefix(text, "<command-name>") || strings.HasPrefix(text, "<local-command-"):
		return custom("local_command", true, true)
	case strings.HasPrefix(strings.TrimPrefix(text, "<system-reminder>\n"), "Stop hook feedback:"):
		return custom("hook:Stop", true, false)
	}
	return r.put(r.entry(l, &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: blocks}}), false)
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

// The fast path's decoders (jsonfast.go) of the structs above.

var ccLineKeys = fieldNames("type", "subtype", "uuid", "parentUuid", "logicalParentUuid", "timestamp",
	"sessionId", "cwd", "isMeta", "isCompactSummary", "isVisibleInTranscriptOnly", "isApiErrorMessage",
	"message", "content", "attachment", "rendered", "renderedRole", "compactMetadata", "summary", "leafUuid")

func (l *ccLine) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				l.Type = d.strOf("assistant", "user", "attachment", "system", "progress")
			}
		case "subtype":
			if d.once(&seen, 1) {
				l.Subtype = d.str()
			}
		case "uuid":
			if d.once(&seen, 2) {
				l.UUID = d.strRecent()
			}
		case "parentUuid":
			if d.once(&seen, 3) {
				l.ParentUUID = d.strRecent()
			}
		case "logicalParentUuid":
			if d.once(&seen, 4) {
				l.LogicalParentUUID = d.str()
			}
		case "timestamp":
			if d.once(&seen, 5) {
				l.t, l.stamped = d.stamp(), true
			}
		case "sessionId":
			if d.once(&seen, 6) {
				l.SessionID = d.strRecent()
			}
		case "cwd":
			if d.once(&seen, 7) {
				l.CWD = d.strRecent()
			}
		case "isMeta":
			if d.once(&seen, 8) {
				l.IsMeta = d.boolean()
			}
		case "isCompactSummary":
			if d.once(&seen, 9) {
				l.IsCompactSummary = d.boolean()
			}
		case "isVisibleInTranscriptOnly":
			if d.once(&seen, 10) {
				l.IsVisibleInTranscriptOnly = d.boolean()
			}
		case "isApiErrorMessage":
			if d.once(&seen, 11) {
				l.IsAPIErrorMessage = d.boolean()
			}
		case "message":
			if d.once(&seen, 12) && d.object() {
				l.Message = &l.msg
				l.Message.decodeFast(d)
			}
		case "content":
			if d.once(&seen, 13) {
				l.Content = d.raw()
			}
		case "attachment":
			if d.once(&seen, 14) && d.object() {
				l.Attachment = &ccAttachment{}
				var seen uint64
				for d.more() {
					if string(d.key) == "type" {
						if d.once(&seen, 0) {
							l.Attachment.Type = d.str()
						}
					} else {
						d.unknown(ccAttachmentKeys)
					}
				}
			}
		case "rendered":
			if d.once(&seen, 15) && d.array() {
				l.Rendered = []ccRendered{}
				for d.next() {
					var rd ccRendered
					if d.object() {
						var seen uint64
						for d.more() {
							if string(d.key) == "content" {
								if d.once(&seen, 0) {
									rd.Content = d.raw()
								}
							} else {
								d.unknown(ccRenderedKeys)
							}
						}
					}
					l.Rendered = append(l.Rendered, rd)
				}
			}
		case "renderedRole":
			if d.once(&seen, 16) {
				l.RenderedRole = d.str()
			}
		case "compactMetadata":
			if d.once(&seen, 17) && d.object() {
				l.CompactMetadata = &ccCompactMeta{}
				l.CompactMetadata.decodeFast(d)
			}
		case "summary":
			if d.once(&seen, 18) {
				l.Summary = d.str()
			}
		case "leafUuid":
			if d.once(&seen, 19) {
				l.LeafUUID = d.str()
			}
		default:
			d.unknown(ccLineKeys)
		}
	}
}

var (
	ccAttachmentKeys = fieldNames("type")
	ccRenderedKeys   = fieldNames("content")
	ccCompactKeys    = fieldNames("preTokens", "preservedSegment")
	ccSegmentKeys    = fieldNames("headUuid")
	ccMessageKeys    = fieldNames("id", "role", "model", "content", "stop_reason", "usage")
	ccUsageKeys      = fieldNames("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
	ccBlockKeys      = fieldNames("type", "text", "thinking", "signature", "data", "id", "name", "input", "tool_use_id", "content", "is_error", "source")
	ccSourceKeys     = fieldNames("media_type", "data")
)

// decodeFast reads the members of compactMetadata, whose object has been
// entered.
func (m *ccCompactMeta) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "preTokens":
			if d.once(&seen, 0) {
				m.PreTokens = d.int64v()
			}
		case "preservedSegment":
			if d.once(&seen, 1) && d.object() {
				m.PreservedSegment = &struct {
					HeadUUID string `json:"headUuid"`
				}{}
				var seen uint64
				for d.more() {
					if string(d.key) == "headUuid" {
						if d.once(&seen, 0) {
							m.PreservedSegment.HeadUUID = d.str()
						}
					} else {
						d.unknown(ccSegmentKeys)
					}
				}
			}
		default:
			d.unknown(ccCompactKeys)
		}
	}
}

// decodeFast reads the members of a message, whose object has been
// entered.
func (m *ccMessage) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "id":
			if d.once(&seen, 0) {
				m.ID = d.strRecent()
			}
		case "role":
			if d.once(&seen, 1) {
				m.Role = d.strOf("assistant", "user")
			}
		case "model":
			if d.once(&seen, 2) {
				m.Model = d.strRecent()
			}
		case "content":
			if d.once(&seen, 3) {
				m.Content = d.raw()
			}
		case "stop_reason":
			if d.once(&seen, 4) {
				m.StopReason = d.strOf("tool_use", "end_turn")
			}
		case "usage":
			if d.once(&seen, 5) && d.object() {
				m.Usage = &ccUsage{}
				var seen uint64
				for d.more() {
					switch string(d.key) {
					case "input_tokens":
						if d.once(&seen, 0) {
							m.Usage.InputTokens = d.int64v()
						}
					case "output_tokens":
						if d.once(&seen, 1) {
							m.Usage.OutputTokens = d.int64v()
						}
					case "cache_creation_input_tokens":
						if d.once(&seen, 2) {
							m.Usage.CacheCreationInputTokens = d.int64v()
						}
					case "cache_read_input_tokens":
						if d.once(&seen, 3) {
							m.Usage.CacheReadInputTokens = d.int64v()
						}
					default:
						d.unknown(ccUsageKeys)
					}
				}
			}
		default:
			d.unknown(ccMessageKeys)
		}
	}
}

// ccBlocks is a list of content blocks.
type ccBlocks []ccBlock

func (bs *ccBlocks) decodeFast(d *jdec) {
	if !d.array() {
		if !d.fail {
			*bs = nil
		}
		return
	}
	if *bs == nil {
		*bs = ccBlocks{}
	} else {
		*bs = (*bs)[:0]
	}
	for d.next() {
		if !d.object() {
			d.giveUp()
			return
		}
		var b ccBlock
		b.decodeFast(d)
		*bs = append(*bs, b)
	}
}

// decodeFast reads the members of a block, whose object has been entered.
func (b *ccBlock) decodeFast(d *jdec) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				b.Type = d.strOf("text", "tool_use", "tool_result", "thinking")
			}
		case "text":
			if d.once(&seen, 1) {
				b.Text = d.str()
			}
		case "thinking":
			if d.once(&seen, 2) {
				b.Thinking = d.str()
			}
		case "signature":
			if d.once(&seen, 3) {
				b.Signature = d.str()
			}
		case "data":
			if d.once(&seen, 4) {
				b.Data = d.str()
			}
		case "id":
			if d.once(&seen, 5) {
				b.ID = d.strRecent()
			}
		case "name":
			if d.once(&seen, 6) {
				b.Name = d.strRecent()
			}
		case "input":
			if d.once(&seen, 7) {
				b.Input = d.raw()
			}
		case "tool_use_id":
			if d.once(&seen, 8) {
				b.ToolUseID = d.strRecent()
			}
		case "content":
			if d.once(&seen, 9) {
				b.Content = d.raw()
			}
		case "is_error":
			if d.once(&seen, 10) {
				b.IsError = d.boolean()
			}
		case "source":
			if d.once(&seen, 11) && d.object() {
				b.Source = &ccSource{}
				var seen uint64
				for d.more() {
					switch string(d.key) {
					case "media_type":
						if d.once(&seen, 0) {
							b.Source.MediaType = d.str()
						}
					case "data":
						if d.once(&seen, 1) {
							b.Source.Data = d.str()
						}
					default:
						d.unknown(ccSourceKeys)
					}
				}
			}
		default:
			d.unknown(ccBlockKeys)
		}
	}
}

var (
	ccProbeKeys        = fieldNames("type", "sessionId", "uuid", "parentUuid", "leafUuid", "messageId", "payload", "cwd", "timestamp", "message")
	ccProbeMessageKeys = fieldNames("model")
)

func (p *ccProbe) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp()
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				p.Type = d.strOf("assistant", "user", "attachment", "system", "progress")
			}
		case "sessionId":
			if d.once(&seen, 1) {
				p.SessionID = d.strRecent()
			}
		case "uuid":
			if d.once(&seen, 2) {
				p.UUID = d.str()
			}
		case "parentUuid":
			if d.once(&seen, 3) {
				p.ParentUUID = d.raw()
			}
		case "leafUuid":
			if d.once(&seen, 4) {
				p.LeafUUID = d.str()
			}
		case "messageId":
			if d.once(&seen, 5) {
				p.MessageID = d.str()
			}
		case "payload":
			if d.once(&seen, 6) {
				p.Payload = d.raw()
			}
		case "cwd":
			if d.once(&seen, 7) {
				p.CWD = d.strRecent()
			}
		case "timestamp":
			if d.once(&seen, 8) {
				p.Timestamp = d.str()
			}
		case "message":
			if d.once(&seen, 9) && d.object() {
				p.Message = &ccProbeMessage{}
				var seen uint64
				for d.more() {
					if string(d.key) != "model" {
						d.unknown(ccProbeMessageKeys)
					} else if d.once(&seen, 0) {
						p.Message.Model = d.strRecent()
					}
				}
			}
		default:
			d.unknown(ccProbeKeys)
		}
	}
}
