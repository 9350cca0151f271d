package history

import (
	"strings"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// CustomAdvisor is the custom type of the advisor's own cards and asides
// in the primary transcript.
const CustomAdvisor = "advisor"

// The stop reasons the agent gives replies it never finished (the agent
// package's StopAborted and StopError; spelled out here because history
// must not import the agent).
const (
	stopAborted llm.StopReason = "aborted"
	stopError   llm.StopReason = "error"
)

// Visible reports whether the advisor is shown the entry. Render and
// [Renderer.Update] apply it themselves; the advisor runtime uses it to
// tell whether a delta holds anything worth an update before it queues
// one. It drops:
//
//   - the advisor's own advice ([IsAdvice]), so the advisor never reviews
//     itself;
//   - the unfinished reply of a step that was aborted or failed (an
//     assistant message with stop reason "aborted" or "error"): such a
//     step feeds nothing;
//   - custom entries the primary model is not sent (InContext false): the
//     agent's "error" record of a failed step, notices meant for the user;
//   - entries of types this vigil does not know.
//
// It keeps conversation messages, custom entries the model is sent (the
// agent's "aborted" marker "[Interrupted by user]" among them: the user's
// interrupt is something the advisor must know about), compaction and
// branch summaries, and model changes.
func Visible(e session.Entry) bool {
	switch b := e.Body.(type) {
	case *session.Message:
		if b.Message.Role == llm.RoleAssistant {
			return b.StopReason != stopAborted && b.StopReason != stopError
		}
		return !IsAdvice(e)
	case *session.Custom:
		return b.InContext && !IsAdvice(e)
	case *session.Compaction, *session.BranchSummary, *session.ModelChange:
		return true
	default:
		return false
	}
}

// IsAdvice reports whether the entry is advice the advisor wrote into the
// primary transcript: a custom entry of type "advisor" (or "advisor:…",
// "advisor-…" for kinds added later), or a user message or custom entry
// whose whole text is one or more <advisory …>…</advisory> elements, the
// form every delivered note takes (an interrupting steer sent as plain
// text, a resume opened with the advisor's note). The advisor writes its
// notes with their bodies XML-escaped, so a note cannot end its element
// early.
func IsAdvice(e session.Entry) bool {
	switch b := e.Body.(type) {
	case *session.Custom:
		if b.CustomType == CustomAdvisor {
			return true
		}
		if rest, ok := strings.CutPrefix(b.CustomType, CustomAdvisor); ok && (rest[0] == ':' || rest[0] == '-') {
			return true
		}
		return onlyAdvisories(b.Content)
	case *session.Message:
		return b.Message.Role == llm.RoleUser && onlyAdvisories(b.Message.Content)
	}
	return false
}

// onlyAdvisories reports whether the blocks are text only, and that text
// is nothing but <advisory> elements and white space.
func onlyAdvisories(blocks []llm.Block) bool {
	if len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type != llm.BlockText {
			return false
		}
	}
	if len(blocks) == 1 {
		return IsAdvisories(blocks[0].Text)
	}
	return IsAdvisories((llm.Message{Content: blocks}).Text())
}

// IsAdvisories reports whether text is nothing but one or more
// <advisory …>…</advisory> elements and white space, the form the
// advisor's notes take when delivered. The advisor escapes a note's
// body, so a note cannot end its element early.
func IsAdvisories(text string) bool {
	s := strings.TrimSpace(text)
	if s == "" {
		return false
	}
	for s != "" {
		rest, ok := strings.CutPrefix(s, "<advisory")
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '>') {
			return false
		}
		end := strings.Index(rest, "</advisory>")
		if end < 0 {
			return false
		}
		s = strings.TrimSpace(rest[end+len("</advisory>"):])
	}
	return true
}
