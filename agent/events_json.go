package agent

import (
	"encoding/json"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// eventWire is the JSON form of an Event: snake_case keys, empty fields
// left out, entries in the shape of the session file.
type eventWire struct {
	Type         EventType       `json:"type"`
	Turn         int             `json:"turn,omitempty"`
	Step         int             `json:"step,omitempty"`
	Cause        TurnCause       `json:"cause,omitempty"`
	Delta        DeltaKind       `json:"delta,omitempty"`
	Text         string          `json:"text,omitempty"`
	Entry        *entryWire      `json:"entry,omitempty"`
	Entries      []entryWire     `json:"entries,omitempty"`
	ToolCallID   string          `json:"tool_call_id,omitempty"`
	Tool         string          `json:"tool,omitempty"`
	Arguments    json.RawMessage `json:"arguments,omitempty"`
	Summary      string          `json:"summary,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	Interrupted  bool            `json:"interrupted,omitempty"`
	Skipped      bool            `json:"skipped,omitempty"`
	Denied       bool            `json:"denied,omitempty"`
	Decision     Decision        `json:"decision,omitempty"`
	Details      *tools.Details  `json:"details,omitempty"`
	Interrupt    bool            `json:"interrupt,omitempty"`
	Reason       string          `json:"reason,omitempty"`
	StopReason   llm.StopReason  `json:"stop_reason,omitempty"`
	Usage        *llm.Usage      `json:"usage,omitempty"`
	TokensBefore int64           `json:"tokens_before,omitempty"`
	TokensAfter  int64           `json:"tokens_after,omitempty"`
	Error        string          `json:"error,omitempty"`
	SubagentID   string          `json:"subagent_id,omitempty"`
	Subagent     *Event          `json:"event,omitempty"`
}

// entryWire is an entry as docs/session-format.md spells it, without the
// fields that do not apply to its type.
type entryWire struct {
	Type         string          `json:"type"`
	ID           string          `json:"id,omitempty"`
	ParentID     string          `json:"parentId,omitempty"`
	Timestamp    string          `json:"timestamp,omitempty"`
	Message      *llm.Message    `json:"message,omitempty"`
	Model        string          `json:"model,omitempty"`
	Usage        *llm.Usage      `json:"usage,omitempty"`
	StopReason   llm.StopReason  `json:"stopReason,omitempty"`
	CustomType   string          `json:"customType,omitempty"`
	Content      []llm.Block     `json:"content,omitempty"`
	Display      bool            `json:"display,omitempty"`
	InContext    bool            `json:"inContext,omitempty"`
	Summary      string          `json:"summary,omitempty"`
	FirstKeptID  string          `json:"firstKeptId,omitempty"`
	TokensBefore int64           `json:"tokensBefore,omitempty"`
	FromID       string          `json:"fromId,omitempty"`
	Thinking     string          `json:"thinking,omitempty"`
	Details      json.RawMessage `json:"details,omitempty"`
}

// MarshalJSON encodes the event for vigil's JSON output mode: keys in
// snake_case, zero fields left out, Err as its text and entries in the
// shape of the session file (docs/session-format.md). The format is
// described in docs/agent-events.md.
func (e Event) MarshalJSON() ([]byte, error) {
	w := eventWire{
		Type: e.Type, Turn: e.Turn, Step: e.Step, Cause: e.Cause, Delta: e.Delta, Text: e.Text,
		ToolCallID: e.ToolCallID, Tool: e.Tool, Arguments: e.Arguments, Summary: e.Summary,
		IsError: e.IsError, Interrupted: e.Interrupted, Skipped: e.Skipped, Denied: e.Denied, Decision: e.Decision, Details: e.Details,
		Interrupt: e.Interrupt, Reason: e.Reason, StopReason: e.StopReason, Usage: e.Usage,
		TokensBefore: e.TokensBefore, TokensAfter: e.TokensAfter,
		SubagentID: e.SubagentID, Subagent: e.Subagent,
	}
	if e.Err != nil {
		w.Error = e.Err.Error()
	}
	if e.Entry != nil {
		ew := wireOf(*e.Entry)
		w.Entry = &ew
	}
	for _, en := range e.Entries {
		w.Entries = append(w.Entries, wireOf(en))
	}
	return json.Marshal(w)
}

func wireOf(e session.Entry) entryWire {
	w := entryWire{Type: e.Type(), ID: e.ID, ParentID: e.ParentID}
	if !e.Time.IsZero() {
		w.Timestamp = e.Time.UTC().Format(time.RFC3339Nano)
	}
	switch b := e.Body.(type) {
	case *session.Message:
		w.Message = &b.Message
		if b.Model != (llm.Ref{}) {
			w.Model = b.Model.String()
		}
		if b.Usage != (llm.Usage{}) {
			w.Usage = &b.Usage
		}
		w.StopReason = b.StopReason
	case *session.Custom:
		w.CustomType, w.Content, w.Display, w.InContext, w.Details = b.CustomType, b.Content, b.Display, b.InContext, b.Details
	case *session.Compaction:
		w.Summary, w.FirstKeptID, w.TokensBefore, w.Details = b.Summary, b.FirstKeptID, b.TokensBefore, b.Details
	case *session.BranchSummary:
		w.FromID, w.Summary, w.Details = b.FromID, b.Summary, b.Details
	case *session.ModelChange:
		w.Model, w.Thinking = b.Model.String(), string(b.Thinking)
	}
	return w
}
