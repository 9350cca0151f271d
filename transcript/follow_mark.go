package transcript

import (
	"strconv"
	"strings"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Mark points at an entry of a [Batch] that a follower's user must react
// to.
type Mark struct {
	// Kind says what the entry is.
	Kind MarkKind
	// Entry is the entry's index in the batch's Entries.
	Entry int
}

// MarkKind says what a marked entry is.
type MarkKind int

// The kinds of marks. An entry has at most one.
const (
	// MarkPrompt: a prompt the user wrote; not a tool result, not context
	// the harness or a hook injected, not an interrupt, not advice.
	MarkPrompt MarkKind = iota + 1
	// MarkInterrupt: the user interrupted the run. Claude Code writes a
	// user message "[Request interrupted by user]" (or "… for tool use]");
	// Codex a <turn_aborted> message, read as a custom entry of type
	// "turn_aborted".
	MarkInterrupt
	// MarkAdvice: advice vigil's own hooks injected (see the package doc):
	// never review it as the agent's or the user's.
	MarkAdvice
	// MarkCompaction: a compaction; the entries before it are replaced, in
	// what the model sees, by its summary.
	MarkCompaction
)

// String names the kind: "prompt", "interrupt", "advice", "compaction".
func (k MarkKind) String() string {
	switch k {
	case MarkPrompt:
		return "prompt"
	case MarkInterrupt:
		return "interrupt"
	case MarkAdvice:
		return "advice"
	case MarkCompaction:
		return "compaction"
	}
	return "mark(" + strconv.Itoa(int(k)) + ")"
}

// ccInterrupted opens the user message Claude Code writes when the user
// interrupts a reply or a tool.
const ccInterrupted = "[Request interrupted by user"

// markOf returns the mark an entry gets, if any.
func markOf(e session.Entry) (MarkKind, bool) {
	switch b := e.Body.(type) {
	case *session.Compaction:
		return MarkCompaction, true
	case *session.Custom:
		switch {
		case withheldAdvice(e):
			return 0, false // the agent never saw it
		case history.IsAdvice(e):
			return MarkAdvice, true
		case b.CustomType == "turn_aborted":
			return MarkInterrupt, true
		}
	case *session.Message:
		m := b.Message
		if m.Role != llm.RoleUser || len(m.Content) == 0 || hasToolResult(m.Content) {
			return 0, false
		}
		text := m.Text()
		switch {
		case history.IsAdvice(e):
			return MarkAdvice, true
		case strings.HasPrefix(strings.TrimSpace(text), ccInterrupted):
			return MarkInterrupt, true
		default:
			return MarkPrompt, true
		}
	}
	return 0, false
}

// hasToolResult reports whether one of blocks is a tool result.
func hasToolResult(blocks []llm.Block) bool {
	for _, b := range blocks {
		if b.Type == llm.BlockToolResult {
			return true
		}
	}
	return false
}
