package session

import (
	"encoding/json"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// Entry is one node of a session's tree: one line of the session file.
//
// Entries are values shared between the session and its readers: treat
// every entry, and the body it points to, as read-only.
type Entry struct {
	// ID names the entry, unique within its file. Entries of an unknown
	// type that carry no id are not part of the tree and have ID "".
	ID string
	// ParentID is the entry this one follows; "" for the root.
	ParentID string
	// Time is when the entry was appended, in UTC to the millisecond.
	Time time.Time
	// Body is what the entry holds: one of [*Message], [*Custom],
	// [*Compaction], [*BranchSummary], [*ModelChange] or [*Unknown].
	Body Body
}

// Type returns the entry's type as the file spells it, such as "message".
func (e Entry) Type() string {
	if e.Body == nil {
		return ""
	}
	return e.Body.entryType()
}

// ModelSees reports whether the entry belongs in what the model is sent:
// messages, compaction and branch summaries, and custom messages marked
// InContext. Model changes and unknown entries are settings or metadata.
func (e Entry) ModelSees() bool {
	switch b := e.Body.(type) {
	case *Message, *Compaction, *BranchSummary:
		return true
	case *Custom:
		return b.InContext
	default:
		return false
	}
}

// Body is the content of an entry. The set of bodies is closed: the
// package's own types are the only implementations.
type Body interface {
	entryType() string
}

// The entry types as the file spells them.
const (
	TypeMessage       = "message"
	TypeCustom        = "custom_message"
	TypeCompaction    = "compaction"
	TypeBranchSummary = "branch_summary"
	TypeModelChange   = "model_change"
)

// Message is a conversation message: a user prompt, an assistant reply, or
// tool results (which travel in user messages, as in [llm.Message]).
// Model, Usage and StopReason describe assistant replies and are left zero
// for other roles.
type Message struct {
	Message llm.Message
	// Model is the model that wrote the reply.
	Model llm.Ref
	// Usage is what the reply cost in tokens, as the provider reported it.
	Usage llm.Usage
	// StopReason says why the model stopped.
	StopReason llm.StopReason
	// Details, on a tool result, are its facts for user interfaces (the
	// agent's JSON: a diff, an exit code, an interrupted call), so that a
	// resumed session shows what a live one did; no model is sent them.
	Details json.RawMessage
}

// Custom is a message that does not come from the conversation itself:
// plan-mode context, an advisor card, a notice. CustomType names the kind.
// Display says whether the user is shown it; InContext whether the model
// is sent it. A card shown to the user and sent to the model has both; a
// plan context the model reads but the transcript hides has only
// InContext.
type Custom struct {
	CustomType string
	Content    []llm.Block
	Display    bool
	InContext  bool
	// Details is optional structured data for whoever renders the entry;
	// it must be valid JSON when set.
	Details json.RawMessage
}

// Compaction replaces the conversation before it with a summary. On the
// path through a compaction the model sees the summary, then the entries
// from FirstKeptID up to the compaction, then what follows it.
type Compaction struct {
	Summary string
	// FirstKeptID is the first entry before the compaction that is still
	// sent to the model; "" keeps none.
	FirstKeptID string
	// TokensBefore is the context size, in tokens, that was compacted.
	TokensBefore int64
	Details      json.RawMessage
}

// BranchSummary opens a branch with a summary of the branch that was left:
// FromID is the leaf the session moved away from.
type BranchSummary struct {
	FromID  string
	Summary string
	Details json.RawMessage
}

// ModelChange records that the session switched model or thinking level.
type ModelChange struct {
	Model    llm.Ref
	Thinking llm.ThinkingLevel
}

// Unknown is an entry of a type this version of vigil does not know,
// written by a newer one. It is kept as read, so nothing is lost, and
// copied unchanged by forks.
type Unknown struct {
	// Type is the entry's type field.
	Type string
	// Raw is the whole line, without its newline.
	Raw json.RawMessage
}

func (*Message) entryType() string       { return TypeMessage }
func (*Custom) entryType() string        { return TypeCustom }
func (*Compaction) entryType() string    { return TypeCompaction }
func (*BranchSummary) entryType() string { return TypeBranchSummary }
func (*ModelChange) entryType() string   { return TypeModelChange }
func (u *Unknown) entryType() string     { return u.Type }
