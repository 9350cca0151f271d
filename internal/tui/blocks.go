package tui

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// kind says what a transcript block shows.
type kind int

const (
	kindUser kind = iota
	kindAssistant
	kindThinking
	kindTool
	kindNote
	kindInfo
	kindError
)

// maxResultBytes bounds the result text a tool block keeps (its tail).
const maxResultBytes = 64 << 10

// block is one item of the transcript. Its rendering is cached per width
// and dropped when the block changes.
type block struct {
	kind kind
	// label qualifies user blocks ("steer", "follow-up", "continue") and
	// info blocks.
	label string
	text  string
	// streaming says the text is still arriving.
	streaming bool

	// Tool calls: the call and, once done, its result.
	callID, tool, args string
	result             string
	done, isError      bool
	interrupted        bool
	denied             bool
	details            *tools.Details
	// started is when a tool call began running (zero when unknown);
	// elapsed the running time shown and spin the spinner's frame, both
	// advanced each second while it runs.
	started time.Time
	elapsed time.Duration
	spin    int

	// Notes: the advisory's severity and how it was delivered.
	severity, delivery string

	// cache is the rendering at cacheWidth with cacheFlags.
	cache      []string
	cacheWidth int
	cacheFlags int
	// md caches the markdown of a streaming text's finished paragraphs.
	md      []string
	mdUpTo  int
	mdWidth int
}

// changed drops the cached rendering.
func (b *block) changed() { b.cache = nil }

// transcript is the UI's list of blocks and the index of tool blocks by
// call id.
type transcript struct {
	blocks []*block
	calls  map[string]*block
	// streamText and streamThinking are the blocks the current reply
	// streams into.
	streamText, streamThinking *block
}

func newTranscript() *transcript {
	return &transcript{calls: map[string]*block{}}
}

func (t *transcript) add(b *block) *block {
	b.text, b.args, b.result = sanitize(b.text), sanitize(b.args), sanitize(b.result)
	t.blocks = append(t.blocks, b)
	if b.kind == kindTool && b.callID != "" {
		t.calls[b.callID] = b
	}
	return b
}

// info adds a line of the UI's own (a command's reply, a notice).
func (t *transcript) info(text string) { t.add(&block{kind: kindInfo, text: text}) }

// fail adds an error in place.
func (t *transcript) fail(text string) { t.add(&block{kind: kindError, text: text}) }

// load rebuilds the transcript from a session branch.
func (t *transcript) load(entries []session.Entry) {
	*t = *newTranscript()
	for _, e := range entries {
		t.entry(e, "")
	}
}

// entry adds the blocks of one session entry; label qualifies a user
// message (a steer, a follow-up).
func (t *transcript) entry(e session.Entry, label string) {
	switch b := e.Body.(type) {
	case *session.Message:
		t.message(b.Message, label)
		t.resultDetails(b)
	case *session.Custom:
		t.custom(b)
	case *session.Compaction:
		t.add(&block{kind: kindInfo, label: "compacted", text: firstLine(b.Summary)})
	case *session.BranchSummary:
		t.add(&block{kind: kindInfo, label: "branch", text: firstLine(b.Summary)})
	case *session.ModelChange:
		t.add(&block{kind: kindInfo, label: "model", text: b.Model.String()})
	}
}

// message adds a message's blocks: the user's text, the assistant's
// thinking, text and tool calls, and tool results into their calls.
func (t *transcript) message(m llm.Message, label string) {
	for _, c := range m.Content {
		switch c.Type {
		case llm.BlockText:
			if strings.TrimSpace(c.Text) == "" {
				continue
			}
			k := kindAssistant
			if m.Role == llm.RoleUser {
				k = kindUser
			}
			t.add(&block{kind: k, label: label, text: c.Text})
		case llm.BlockThinking:
			if strings.TrimSpace(c.Text) != "" {
				t.add(&block{kind: kindThinking, text: c.Text})
			}
		case llm.BlockToolCall:
			t.add(&block{kind: kindTool, callID: c.ID, tool: c.Name, args: argsSummary(c.Name, c.Arguments)})
		case llm.BlockToolResult:
			t.result(c.ID, llm.Message{Content: c.Content}.Text(), c.IsError, nil)
		}
	}
}

// resultDetails gives the tool block of a recorded result what the live
// event gave it: the diff, the exit code, the interrupted mark.
func (t *transcript) resultDetails(m *session.Message) {
	if len(m.Details) == 0 {
		return
	}
	var rd agent.ResultDetails
	if json.Unmarshal(m.Details, &rd) != nil {
		return
	}
	for _, c := range m.Message.Content {
		if b := t.calls[c.ID]; c.Type == llm.BlockToolResult && b != nil {
			d := rd.Details
			b.details, b.interrupted = &d, rd.Interrupted
			b.changed()
		}
	}
}

// result completes the tool block of call id.
func (t *transcript) result(id, text string, isError bool, d *tools.Details) *block {
	b := t.calls[id]
	if b == nil {
		b = t.add(&block{kind: kindTool, callID: id, tool: "tool"})
	}
	if len(text) > maxResultBytes {
		text = text[len(text)-maxResultBytes:]
	}
	b.result, b.isError, b.done, b.details = sanitize(text), isError, true, d
	b.changed()
	return b
}

// custom adds a custom entry the user is shown: advisor notes, the
// interrupt marker, a resume.
func (t *transcript) custom(c *session.Custom) {
	text := llm.Message{Content: c.Content}.Text()
	switch {
	case agent.IsAdvisorNote(c.CustomType):
		delivery := noteDelivery(c.Details)
		notes := agent.ParseAdvisories(text)
		if len(notes) == 0 {
			t.add(&block{kind: kindNote, delivery: delivery, text: text})
		}
		for _, n := range notes {
			t.add(&block{kind: kindNote, delivery: delivery, severity: n.Severity, label: n.Advisor, text: n.Body})
		}
	case c.CustomType == "advisor_warning":
		t.add(&block{kind: kindError, text: "advisor: " + text})
	case c.CustomType == agent.CustomAborted:
		t.add(&block{kind: kindInfo, label: "interrupted", text: strings.Trim(text, "[]")})
	case c.CustomType == agent.CustomShell:
		t.shell(c, text)
	case c.CustomType == agent.CustomResume:
		t.add(&block{kind: kindUser, label: "continue", text: text})
	case c.Display && strings.TrimSpace(text) != "":
		t.add(&block{kind: kindInfo, label: c.CustomType, text: text})
	}
}

// shell shows a command the user ran (!command) as a call of its own:
// the block the UI opened for it when it is the last one, or a new one
// (a resumed session).
func (t *transcript) shell(c *session.Custom, text string) {
	var d agent.ShellDetails
	_ = json.Unmarshal(c.Details, &d) // without them: the text alone
	// The model's text repeats the command first: the block shows it.
	if _, out, ok := strings.Cut(text, "\n$ "+d.Command+"\n"); ok {
		text = out
	}
	var b *block
	if n := len(t.blocks); n > 0 && t.blocks[n-1].kind == kindTool && t.blocks[n-1].tool == "!" && !t.blocks[n-1].done {
		b = t.blocks[n-1]
	} else {
		b = t.add(&block{kind: kindTool, tool: "!", args: d.Command})
	}
	det := d.Details
	if len(text) > maxResultBytes {
		text = text[len(text)-maxResultBytes:]
	}
	b.args, b.result, b.done, b.details, b.interrupted = sanitize(d.Command), sanitize(text), true, &det, d.Interrupted
	b.isError = d.Interrupted || (det.ExitCode != nil && *det.ExitCode != 0)
	b.changed()
}

// noteDelivery reads the note's delivery (aside, steer, card, withheld)
// from its details.
func noteDelivery(details json.RawMessage) string {
	var d struct {
		Delivery string `json:"delivery"`
	}
	if json.Unmarshal(details, &d) != nil || d.Delivery == "" {
		return "aside"
	}
	return d.Delivery
}

// event applies one agent event. It returns what the UI must do besides:
// reload the transcript after a history rewrite.
func (t *transcript) event(ev agent.Event) (reload bool) {
	switch ev.Type {
	case agent.EventTurnStart:
		t.endStream()
		if ev.Entry != nil {
			label := ""
			if ev.Cause == agent.CauseFollowUp {
				label = "follow-up"
			}
			t.entry(*ev.Entry, label)
		}
	case agent.EventMessageDelta:
		t.delta(ev.Delta, ev.Text)
	case agent.EventMessageEnd:
		t.dropStream()
		if ev.Entry != nil {
			t.entry(*ev.Entry, "")
		}
	case agent.EventToolStart:
		if b := t.calls[ev.ToolCallID]; b == nil {
			t.add(&block{kind: kindTool, callID: ev.ToolCallID, tool: ev.Tool, args: argsSummary(ev.Tool, ev.Arguments)})
		}
	case agent.EventToolEnd:
		text := ev.Summary
		if ev.Entry != nil {
			if m, ok := ev.Entry.Body.(*session.Message); ok {
				for _, c := range m.Message.Content {
					if c.Type == llm.BlockToolResult && c.ID == ev.ToolCallID {
						text = llm.Message{Content: c.Content}.Text()
					}
				}
			}
		}
		b := t.result(ev.ToolCallID, text, ev.IsError, ev.Details)
		b.interrupted, b.denied = ev.Interrupted, ev.Denied
		if b.tool == "tool" && ev.Tool != "" {
			b.tool = ev.Tool
		}
	case agent.EventSteerDelivered:
		if ev.Entry != nil {
			if _, ok := ev.Entry.Body.(*session.Message); ok {
				t.entry(*ev.Entry, "steer")
			} else {
				t.entry(*ev.Entry, "")
			}
		}
	case agent.EventFollowUpDelivered:
		// The follow-up opens the next turn, whose turn_start shows it.
	case agent.EventInjectionDelivered, agent.EventCustomAppended, agent.EventAborted:
		if ev.Entry != nil {
			t.entry(*ev.Entry, "")
		}
	case agent.EventRequestAborted:
		// The reply streamed so far is dropped: the request is sent
		// again with the steer that aborted it.
		t.dropStream()
		if ev.Entry != nil {
			t.entry(*ev.Entry, "")
		}
	case agent.EventTurnEnd:
		t.endStream()
		if ev.Err != nil && !isAbort(ev.Err) {
			t.fail(ev.Err.Error())
		}
	case agent.EventCompactionStart:
		t.add(&block{kind: kindInfo, label: "compacting", text: "summarising older history (" + ev.Reason + ")"})
	case agent.EventCompactionEnd:
		if ev.Err != nil {
			t.fail("compaction failed: " + ev.Err.Error())
		}
	case agent.EventHistoryRewritten:
		return true
	case agent.EventSubagent:
		if s := ev.Subagent; s != nil && s.Type == agent.EventToolStart {
			t.add(&block{kind: kindInfo, label: "subagent " + ev.SubagentID, text: s.Tool + " " + argsSummary(s.Tool, s.Arguments)})
		}
	}
	return false
}

// delta appends streamed text or thinking to the current reply.
func (t *transcript) delta(k agent.DeltaKind, text string) {
	target := &t.streamText
	kd := kindAssistant
	if k == agent.DeltaThinking {
		target, kd = &t.streamThinking, kindThinking
	}
	if *target == nil {
		*target = t.add(&block{kind: kd, streaming: true})
	}
	b := *target
	b.text += sanitize(text)
	b.changed()
}

// endStream marks the streaming blocks finished.
func (t *transcript) endStream() {
	for _, b := range []*block{t.streamText, t.streamThinking} {
		if b != nil {
			b.streaming = false
			b.changed()
		}
	}
	t.streamText, t.streamThinking = nil, nil
}

// dropStream removes the streaming blocks: the reply's entry replaces
// them with its final content.
func (t *transcript) dropStream() {
	for _, s := range []*block{t.streamText, t.streamThinking} {
		if s == nil {
			continue
		}
		for i := len(t.blocks) - 1; i >= 0; i-- {
			if t.blocks[i] == s {
				t.blocks = append(t.blocks[:i], t.blocks[i+1:]...)
				break
			}
		}
	}
	t.streamText, t.streamThinking = nil, nil
}

func isAbort(err error) bool {
	return err != nil && (strings.Contains(err.Error(), agent.ErrAborted.Error()) || strings.Contains(err.Error(), "context canceled"))
}

// argsSummary is a tool call's arguments on one line: the command, the
// path, the pattern; or the JSON, shortened.
func argsSummary(tool string, raw json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil {
		return oneLine(string(raw), 200)
	}
	for _, k := range []string{"command", "path", "file_path", "pattern", "query", "question", "description", "url"} {
		if s, ok := m[k].(string); ok && s != "" {
			out := s
			if k == "pattern" {
				if p, ok := m["path"].(string); ok && p != "" {
					out += " in " + p
				}
			}
			return oneLine(out, 200)
		}
	}
	return oneLine(string(raw), 200)
}

// oneLine is s with its line breaks as spaces, cut to n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		cut := n
		for cut > 0 && (s[cut]&0xC0) == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return oneLine(line, 200)
}
