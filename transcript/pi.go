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

// pi and omp session files (~/.pi/agent/sessions/…, ~/.omp/agent/sessions/…):
// a header line {type:"session", version, id, timestamp, cwd}, then one
// entry per line forming a tree through id and parentId. omp writes the
// same format with a fixed-width title slot before the header, a few more
// entry types and roles, and model_change as "provider/id". See the
// integrations spec, §3.1–3.2. An edit call in omp's hashline form (lines
// named by number, not quoted) gets the canonical arguments other edits
// have besides its own (hashline.go).

// piVersion is the newest pi session version the reader has seen.
const piVersion = 3

// piLine is one line, as far as the reader uses it.
type piLine struct {
	Type      string          `json:"type" fast:"of=message|model_change|thinking_level_change|custom|compaction"`
	ID        string          `json:"id" fast:"recent"`
	ParentID  string          `json:"parentId" fast:"recent"`
	Timestamp string          `json:"timestamp" fast:"func=fastTimestamp"`
	Message   *piMessage      `json:"message" fast:"into=msg"`
	Version   *int            `json:"version"`
	CWD       string          `json:"cwd"`
	Title     string          `json:"title"`
	Name      string          `json:"name"`
	Provider  string          `json:"provider"`
	ModelID   string          `json:"modelId"`
	Model     string          `json:"model"`
	Summary   string          `json:"summary"`
	FirstKept string          `json:"firstKeptEntryId"`
	Tokens    int64           `json:"tokensBefore"`
	FromID    string          `json:"fromId"`
	Details   json.RawMessage `json:"details"`
	Custom    string          `json:"customType"`
	Content   json.RawMessage `json:"content"`
	Display   bool            `json:"display"`
	// omp's header fields, and its extra entry types' marker fields.
	TitleSource string `json:"titleSource"`
	PromptKey   string `json:"providerPromptCacheKey"`
	// msg holds Message on the fast path, so that a reused line does not
	// allocate it; the fast path parses Timestamp into t.
	msg     piMessage
	t       time.Time
	stamped bool
}

// fastTimestamp reads the timestamp on the fast path, straight into t.
func (l *piLine) fastTimestamp(d *jdec) { l.t, l.stamped = d.stamp(), true }

// time returns when the line was written.
func (l *piLine) time() time.Time {
	if l.stamped {
		return l.t
	}
	return parseStamp(l.Timestamp)
}

// piMessage is an AgentMessage: the roles share one struct.
type piMessage struct {
	Role               string          `json:"role" fast:"of=assistant|user|toolResult"`
	Content            json.RawMessage `json:"content"`
	Provider           string          `json:"provider" fast:"recent"`
	Model              string          `json:"model" fast:"recent"`
	StopReason         string          `json:"stopReason" fast:"of=stop|toolUse"`
	Usage              *piUsage        `json:"usage"`
	ToolCallID         string          `json:"toolCallId" fast:"recent"`
	IsError            bool            `json:"isError"`
	CustomType         string          `json:"customType"`
	Display            bool            `json:"display"`
	Details            json.RawMessage `json:"details"`
	Command            string          `json:"command"`
	Code               string          `json:"code"`
	Output             string          `json:"output"`
	ExitCode           *int            `json:"exitCode"`
	ExcludeFromContext bool            `json:"excludeFromContext"`
	Summary            string          `json:"summary"`
	FromID             string          `json:"fromId"`
	TokensBefore       int64           `json:"tokensBefore"`
}

// piUsage is a reply's token usage.
type piUsage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	CacheRead  int64 `json:"cacheRead"`
	CacheWrite int64 `json:"cacheWrite"`
}

// piBlock is a content block.
type piBlock struct {
	Type      string          `json:"type" fast:"of=text|toolCall|thinking"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"thinkingSignature"`
	Data      string          `json:"data"`
	MimeType  string          `json:"mimeType"`
	ID        string          `json:"id" fast:"recent"`
	Name      string          `json:"name" fast:"recent"`
	Arguments json.RawMessage `json:"arguments"`
}

// piBlocks is a list of content blocks.
type piBlocks []piBlock

// piStopReasons maps pi's stop reasons to vigil's; others pass through.
var piStopReasons = map[string]llm.StopReason{
	"stop": llm.StopEndTurn, "toolUse": llm.StopToolUse, "length": llm.StopMaxTokens,
}

// piStateTypes are entry types that hold settings or extension state, not
// anything the model is sent.
var piStateTypes = map[string]bool{
	"thinking_level_change": true, "custom": true, "label": true, "session_info": true,
}

// ompTypes are the entry types only omp writes; seeing one marks the file
// as omp's.
var ompTypes = map[string]bool{
	"title": true, "service_tier_change": true, "reset_boundary": true, "title_change": true,
	"ttsr_injection": true, "credential_pin": true, "session_init": true, "mode_change": true,
}

// sniffPi recognises pi's header (type "session" with a "timestamp"; vigil's
// has "created"), or omp's title slot followed by that header.
func sniffPi(head []byte, name string) bool {
	lines := headLines(head, 2)
	if len(lines) == 0 {
		return false
	}
	var first piLine
	if json.Unmarshal(lines[0], &first) != nil {
		return false
	}
	if first.Type == "title" && len(lines) == 2 {
		if json.Unmarshal(lines[1], &first) != nil {
			return false
		}
	}
	if first.Type == "session" {
		return first.ID != "" && first.Timestamp != "" && !strings.Contains(string(lines[0]), `"created"`)
	}
	return piHeaderless(&first, lines[0])
}

// piNoHeader is the note on a pi session file that does not start with
// its session header: the run is read from its entries, without the
// session's id and folder.
const piNoHeader = "no session header: read as a pi session from its entries"

// piHeaderless reports whether the first line of a file, l decoded from
// raw, is an entry of a pi session whose header line is missing: its
// tree's id, parentId and timestamp, on an entry pi writes and vigil,
// whose entries share that shape, does not (a model change by provider
// and modelId, a thinking level, a message stamped in milliseconds).
// Claude Code's entries name their parent parentUuid.
func piHeaderless(l *piLine, raw []byte) bool {
	if l.ID == "" || l.Timestamp == "" || !bytes.Contains(raw, []byte(`"parentId"`)) {
		return false
	}
	switch l.Type {
	case "model_change":
		return l.ModelID != ""
	case "thinking_level_change":
		return true
	case "message":
		var probe struct {
			Message struct {
				Timestamp json.RawMessage `json:"timestamp"`
			} `json:"message"`
		}
		if l.Message == nil || l.Message.Role == "" || json.Unmarshal(raw, &probe) != nil {
			return false
		}
		stamp := probe.Message.Timestamp
		return len(stamp) > 0 && stamp[0] >= '0' && stamp[0] <= '9'
	}
	return false
}

// piReader holds a run's bookkeeping.
type piReader struct {
	d       *decodeState
	dec     jdec
	l       piLine   // the line being read, reused
	bs      piBlocks // its blocks, reused
	run     RunInfo
	links   lineage
	started bool
	// hl is what the run has shown of files, for omp's hashline edits
	// (hashline.go).
	hl hlState
}

func readPi(d *decodeState) error {
	r := &piReader{d: d, run: RunInfo{Format: FormatPi}}
	for i, line := range headLines(peekHead(d), 100) {
		var l piLine
		if decodeJSON(&r.dec, line, &l) != nil {
			continue
		}
		if ompTypes[l.Type] || (l.Type == "model_change" && l.Model != "") || (i <= 1 && l.Type == "session" && (l.TitleSource != "" || l.PromptKey != "")) {
			r.run.Format = FormatOmp
		}
		switch {
		case l.Type == "title" && r.run.Task == "":
			r.run.Task = l.Title
		case l.Type == "model_change" && r.run.Model == "":
			r.run.Model = piModel(&l).String()
		case l.Type == "message" && l.Message != nil && l.Message.Role == "assistant" && r.run.Model == "":
			r.run.Model = llm.Ref{Provider: l.Message.Provider, Model: l.Message.Model}.String()
		}
	}
	return eachLine(d, r.line)
}

// piModel returns the model a model_change entry switches to.
func piModel(l *piLine) llm.Ref {
	if l.Model != "" {
		if ref, err := llm.ParseRef(l.Model); err == nil {
			return ref
		}
		return llm.Ref{Model: l.Model}
	}
	return llm.Ref{Provider: l.Provider, Model: l.ModelID}
}

func (r *piReader) line(n int, raw []byte) error {
	r.l = piLine{}
	l := &r.l
	if err := decodeJSON(&r.dec, raw, l); err != nil {
		return malformed(err)
	}
	if l.Type == "" {
		return malformed(fmt.Errorf("line has no type"))
	}
	if !r.started {
		switch l.Type {
		case "title":
			return nil
		case "session":
			return r.header(n, l)
		}
		// The first line only: decoded again in full, as the sniffer
		// did (the fast path leaves out what it does not map).
		var first piLine
		if json.Unmarshal(raw, &first) != nil || !piHeaderless(&first, raw) {
			return fmt.Errorf("not a pi session: first entry is %q, want the session header", l.Type)
		}
		r.d.note(n, piNoHeader)
		if err := r.start(n, l.time()); err != nil {
			return err
		}
	}
	var body session.Body
	switch l.Type {
	case "message":
		if l.Message == nil {
			return malformed(fmt.Errorf("message entry has no message"))
		}
		var err error
		if body, err = r.message(n, l.Message); err != nil {
			return malformed(err)
		}
	case "model_change":
		body = &session.ModelChange{Model: piModel(l)}
	case "compaction":
		body = &session.Compaction{Summary: l.Summary, FirstKeptID: r.links.parent(l.FirstKept), TokensBefore: l.Tokens, Details: piDetails(l.Details)}
	case "reset_boundary":
		// omp's /clear: the model sees nothing from before it.
		body = &session.Compaction{}
	case "branch_summary":
		body = &session.BranchSummary{FromID: l.FromID, Summary: l.Summary, Details: piDetails(l.Details)}
	case "custom_message":
		blocks, err := r.blocks(n, l.Content)
		if err != nil {
			return malformed(err)
		}
		body = &session.Custom{CustomType: l.Custom, Content: blocks, Display: l.Display, InContext: true, Details: piDetails(l.Details)}
	case "session", "title":
		return nil
	default:
		if !piStateTypes[l.Type] && !ompTypes[l.Type] {
			r.d.note(n, fmt.Sprintf("unknown line type %q", l.Type))
		}
	}
	if body == nil {
		r.links.drop(l.ID, l.ParentID)
		return nil
	}
	e := session.Entry{ID: l.ID, ParentID: r.links.parent(l.ParentID), Time: l.time(), Body: body}
	if !r.d.emit(Item{Entry: e}) {
		return errStopped
	}
	return nil
}

// header starts the run.
func (r *piReader) header(n int, l *piLine) error {
	r.started = true
	if l.Version != nil && *l.Version > piVersion {
		r.d.note(n, fmt.Sprintf("unknown version %d", *l.Version))
	}
	if l.TitleSource != "" || l.PromptKey != "" {
		r.run.Format = FormatOmp
	}
	if l.Title != "" {
		r.run.Task = l.Title
	}
	r.run.ID, r.run.CWD = l.ID, l.CWD
	return r.start(n, l.time())
}

// start starts the run at time t.
func (r *piReader) start(n int, t time.Time) error {
	r.started = true
	r.run.Started = t
	if !r.d.emit(Item{Run: &r.run}) {
		return errStopped
	}
	return nil
}

// message maps an AgentMessage; a nil body drops the entry.
func (r *piReader) message(n int, m *piMessage) (session.Body, error) {
	blocks, err := r.blocks(n, m.Content)
	if err != nil {
		return nil, err
	}
	custom := func(typ string, inContext bool) session.Body {
		return &session.Custom{CustomType: typ, Content: blocks, Display: true, InContext: inContext, Details: piDetails(m.Details)}
	}
	switch m.Role {
	case "user":
		return &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: blocks}}, nil
	case "assistant":
		for i := range blocks {
			if blocks[i].Type == llm.BlockToolCall {
				r.hl.call(&blocks[i])
			}
		}
		msg := &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: blocks}}
		if m.Model != "" {
			msg.Model = llm.Ref{Provider: m.Provider, Model: m.Model}
		}
		if u := m.Usage; u != nil {
			msg.Usage = llm.Usage{Input: u.Input, Output: u.Output, CacheRead: u.CacheRead, CacheWrite: u.CacheWrite}
		}
		msg.StopReason = llm.StopReason(m.StopReason)
		if s, ok := piStopReasons[m.StopReason]; ok {
			msg.StopReason = s
		}
		return msg, nil
	case "toolResult":
		r.hl.result(m.ToolCallID, m.IsError, blocks)
		result := llm.ToolResult(m.ToolCallID, m.IsError, blocks...)
		return &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{result}}}, nil
	case "bashExecution", "pythonExecution":
		// A command the user ran (! in pi, $ in omp); its output goes to
		// the model unless excluded.
		code := m.Command
		if code == "" {
			code = m.Code
		}
		text := "$ " + code + "\n" + m.Output
		if m.ExitCode != nil && *m.ExitCode != 0 {
			text += fmt.Sprintf("\n(exit code %d)", *m.ExitCode)
		}
		blocks = textBlocks(text)
		typ := "bash_execution"
		if m.Role == "pythonExecution" {
			typ = "python_execution"
		}
		return custom(typ, !m.ExcludeFromContext), nil
	case "custom", "hookMessage":
		c := custom(m.CustomType, true).(*session.Custom)
		c.Display = m.Display
		return c, nil
	case "developer", "fileMention":
		return custom(m.Role, true), nil
	case "branchSummary":
		return &session.BranchSummary{FromID: m.FromID, Summary: m.Summary}, nil
	case "compactionSummary":
		return &session.Compaction{Summary: m.Summary, TokensBefore: m.TokensBefore}, nil
	default:
		r.d.note(n, fmt.Sprintf("unknown message role %q", m.Role))
		return nil, nil
	}
}

// blocks decodes content: a string, or a list of blocks.
func (r *piReader) blocks(n int, raw json.RawMessage) ([]llm.Block, error) {
	if s, ok := stringContent(raw); ok {
		return textBlocks(s), nil
	}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	bs := r.bs[:0]
	defer func() {
		clear(bs)
		if cap(bs) > 0 && cap(bs) <= maxKeptBlocks {
			r.bs = bs[:0]
		}
	}()
	if err := decodeJSON(&r.dec, raw, &bs); err != nil {
		return nil, fmt.Errorf("content: %w", err)
	}
	out := make([]llm.Block, 0, len(bs))
	for _, b := range bs {
		switch b.Type {
		case "text":
			out = append(out, llm.Text(b.Text))
		case "thinking":
			out = append(out, llm.Thinking(b.Thinking, b.Signature))
		case "redactedThinking":
			out = append(out, llm.RedactedThinking(b.Data))
		case "toolCall":
			out = append(out, llm.ToolCall(b.ID, b.Name, objectArguments(b.Arguments)))
		case "image":
			out = append(out, llm.Image(b.MimeType, b.Data))
		default:
			r.d.note(n, fmt.Sprintf("unknown content block type %q", b.Type))
		}
	}
	return out, nil
}

// piDetails keeps details only when they are a JSON value worth keeping,
// as a copy: raw may be a slice of the line.
func piDetails(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" || !validJSON(raw) {
		return nil
	}
	return bytes.Clone(raw)
}
