package agent

import (
	"fmt"
	"slices"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// view is the model's view of the session's current branch, kept up to
// date as entries are appended so that a step costs the same however long
// the session is. Only a history rewrite (compaction, branch, switch)
// rebuilds it from [session.Session.Path], which walks the whole branch.
type view struct {
	// leaf is the session leaf the view ends at.
	leaf string
	// entries are the model-visible entries of the path, in order (a
	// compaction first, if there is one).
	entries []session.Entry
	// msgs is what a request sends: entries as messages, with consecutive
	// messages of one role merged.
	msgs []llm.Message
	// estimate is the estimated tokens of entries plus the fixed part
	// (system prompt and tools).
	estimate int64
	// reported is the prompt plus output tokens the last reply reported,
	// or -1 when no reply was reported since the view was built; since
	// estimates what was appended after that reply.
	reported, since int64
}

// rebuild reads the path to the session's leaf afresh.
func (v *view) rebuild(s *session.Session, fixed int64) error {
	leaf := s.Leaf()
	path, err := s.Path(leaf)
	if err != nil {
		return fmt.Errorf("read session path: %w", err)
	}
	*v = view{leaf: leaf, estimate: fixed, reported: -1}
	for _, e := range path {
		v.add(e)
	}
	// A compacted path does not end at the leaf: the compaction comes
	// first, and the entries it keeps come before it in the tree.
	v.leaf = leaf
	v.answerDangling()
	return nil
}

// add appends one entry at the end of the view. The caller makes sure e
// follows the view's leaf and is not a compaction (which needs a rebuild).
func (v *view) add(e session.Entry) {
	v.leaf = e.ID
	if !e.ModelSees() {
		return
	}
	v.entries = append(v.entries, e)
	est := estimateEntry(e)
	v.estimate += est
	if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant && m.Usage != (llm.Usage{}) {
		v.reported, v.since = m.Usage.PromptTokens()+m.Usage.Output, 0
	} else {
		v.since += est
	}
	v.push(messageOf(e))
}

// push appends a message, merging it into the last one when both have the
// same role: tool results and the steers after them then travel in one
// user message, as every provider accepts. The merged message is a new
// value; earlier requests' slices are not changed under them.
func (v *view) push(m llm.Message) {
	if n := len(v.msgs); n > 0 && v.msgs[n-1].Role == m.Role {
		last := v.msgs[n-1]
		content := make([]llm.Block, 0, len(last.Content)+len(m.Content))
		content = append(append(content, last.Content...), m.Content...)
		v.msgs[n-1] = llm.Message{Role: m.Role, Content: content}
		return
	}
	v.msgs = append(v.msgs, m)
}

// answerDangling gives every tool call without a result a stand-in error
// result in the request (never in the session), so a session whose run
// was killed mid-step can go on: providers refuse a tool call without its
// result.
func (v *view) answerDangling() {
	var out []llm.Message
	for i, m := range v.msgs {
		out = append(out, m)
		if m.Role != llm.RoleAssistant {
			continue
		}
		calls := m.ToolCalls()
		if len(calls) == 0 {
			continue
		}
		answered := map[string]bool{}
		if i+1 < len(v.msgs) {
			for _, b := range v.msgs[i+1].Content {
				if b.Type == llm.BlockToolResult {
					answered[b.ID] = true
				}
			}
		}
		var missing []llm.Block
		for _, c := range calls {
			if !answered[c.ID] {
				missing = append(missing, llm.ToolResult(c.ID, true, llm.Text("[no result: the run stopped before this call finished]")))
			}
		}
		if len(missing) == 0 {
			continue
		}
		if i+1 < len(v.msgs) {
			next := v.msgs[i+1]
			// Results must come first in the message that follows the calls.
			v.msgs[i+1] = llm.Message{Role: next.Role, Content: append(missing, next.Content...)}
		} else {
			out = append(out, llm.Message{Role: llm.RoleUser, Content: missing})
		}
	}
	v.msgs = out
}

// messages returns what the next request sends. The slice is clipped, so a
// model appending to it cannot write into the view.
func (v *view) messages() []llm.Message { return slices.Clip(v.msgs) }

// tokens is the context size the next request is expected to have.
func (v *view) tokens() int64 {
	if v.reported >= 0 {
		return v.reported + v.since
	}
	return v.estimate
}

// messageOf turns a model-visible entry into the message a request holds.
// Everything but the model's own replies and an advisor's notes has its
// advisory tags escaped here, on the way to the model: the session keeps
// what was said byte for byte, and every request (the agent's own, a
// fork's) is built through here.
func messageOf(e session.Entry) llm.Message {
	switch b := e.Body.(type) {
	case *session.Message:
		return neutraliseMessage(b.Message)
	case *session.Custom:
		if isAdvisorNote(b) {
			return llm.Message{Role: llm.RoleUser, Content: b.Content}
		}
		content, _ := neutraliseBlocks(b.Content)
		return llm.Message{Role: llm.RoleUser, Content: content}
	case *session.Compaction:
		return llm.UserText(summaryPreamble + "<summary>\n" + summaryBody(b.Summary) + "\n</summary>")
	case *session.BranchSummary:
		return llm.UserText("The conversation went back to an earlier point. What was tried on the branch that was left:\n<summary>\n" + summaryBody(b.Summary) + "\n</summary>")
	}
	return llm.Message{Role: llm.RoleUser}
}

// summaryBody is a summary as its <summary> element holds it: a summary
// tag in it, which would end the element early and speak as the text
// around it, is escaped, and so are its advisory tags.
func summaryBody(s string) string {
	t, _ := escapeTag(s, "summary")
	return neutraliseText(t)
}

// imageTokens is what an image is counted as: providers bill images by
// size, not by their base64 length.
const imageTokens = 1200

// estimateEntry estimates the tokens an entry adds to a request.
func estimateEntry(e session.Entry) int64 {
	switch b := e.Body.(type) {
	case *session.Message:
		return estimateBlocks(b.Message.Content)
	case *session.Custom:
		return estimateBlocks(b.Content)
	case *session.Compaction:
		return llm.EstimateTokens(summaryPreamble + b.Summary)
	case *session.BranchSummary:
		return llm.EstimateTokens(b.Summary) + 20
	}
	return 0
}

func estimateBlocks(bs []llm.Block) int64 {
	var n int64
	for _, b := range bs {
		switch b.Type {
		case llm.BlockImage:
			n += imageTokens
		case llm.BlockToolResult:
			n += estimateBlocks(b.Content) + 4
		case llm.BlockRedactedThinking:
			n += llm.EstimateTokens(b.Data)
		default:
			n += llm.EstimateTokens(b.Text) + llm.EstimateTokens(b.Name) + llm.EstimateTokens(string(b.Arguments))
		}
	}
	return n
}

// userText is the body of a plain user message.
func userText(s string) *session.Message {
	return &session.Message{Message: llm.UserText(s)}
}
