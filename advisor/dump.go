package advisor

import (
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Transcript is a snapshot of the advisor's own context: what its next
// request would send.
type Transcript struct {
	// System is the advisor's system prompt.
	System string
	// Tools are the tools it is offered.
	Tools []llm.Tool
	// Messages are its context, oldest first: session updates, its
	// replies, and the results of its tool calls.
	Messages []llm.Message
}

// Transcript returns the advisor's context as of the last change the
// drain goroutine published. It is safe to call at any time; the
// messages returned are shared and must not be modified.
func (r *Runtime) Transcript() Transcript {
	r.mu.Lock()
	msgs := r.shared
	r.mu.Unlock()
	return Transcript{System: r.system, Tools: r.defs, Messages: msgs}
}

// rawToolOutput is how much of each tool result a raw dump shows.
const rawToolOutput = 64 << 10

// Compact renders the transcript for a person: "## user" and
// "## assistant" headings, one line per tool call, no thinking. The
// session updates appear under "## user" with their own labels inside.
func (t Transcript) Compact() string {
	out := history.Render(t.entries(), history.Options{Title: "Advisor transcript"})
	if out == "" {
		return "The advisor has no history yet.\n"
	}
	return out
}

// Raw renders everything the advisor is sent: its system prompt, its
// tools and every message with thinking, tool arguments and tool output.
func (t Transcript) Raw(model string) string {
	var sb strings.Builder
	sb.WriteString("## System Prompt\n\n")
	sb.WriteString(strings.TrimSpace(t.System))
	sb.WriteString("\n\n## Configuration\n\n")
	fmt.Fprintf(&sb, "Model: %s\n\n## Available Tools\n\n", model)
	for _, tool := range t.Tools {
		fmt.Fprintf(&sb, "- %s: %s\n", tool.Name, firstLine(tool.Description))
	}
	sb.WriteString("\n")
	sb.WriteString(history.Render(t.entries(), history.Options{Thinking: true, ToolIntent: true, MaxToolOutput: rawToolOutput}))
	return sb.String()
}

// entries wraps the messages as session entries, for the history renderer.
func (t Transcript) entries() []session.Entry {
	out := make([]session.Entry, len(t.Messages))
	for i, m := range t.Messages {
		out[i] = session.Entry{ID: fmt.Sprint(i + 1), Body: &session.Message{Message: m}}
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// Recorder keeps the advisor's transcript: every message of its context,
// once and in order, as it is finalized. A message is final when the
// review that added it completes, or when a review fails after
// delivering a note (its messages up to that note are kept); messages of
// a review that fails before delivering anything are rolled back and
// never recorded. Resets do not unrecord anything. Session updates are
// user messages whose text starts with "### Session update"; u is the
// reply's usage for assistant messages and zero otherwise. The runtime
// calls Record from its drain goroutine; it should not block for long.
type Recorder interface {
	Record(m llm.Message, u llm.Usage)
}
