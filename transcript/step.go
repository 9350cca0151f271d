package transcript

import (
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Step is one assistant message with the tool results that answer it.
type Step struct {
	// N numbers the step from 1 in the order the run happened.
	N int
	// Reply is the assistant message's entry; its Body is a
	// *session.Message with role assistant.
	Reply session.Entry
	// Results are the entries that carry tool results for the reply's
	// calls, in the order they arrived.
	Results []session.Entry
	// Context are the entries between the previous step and this one: user
	// prompts, compactions, custom messages. Advice the advisor withheld
	// from the agent is left out: the agent was never told it.
	Context []session.Entry
}

// Message returns the reply's message.
func (s *Step) Message() *session.Message {
	m, _ := s.Reply.Body.(*session.Message)
	return m
}

// Calls returns the tool calls the reply makes, in order.
func (s *Step) Calls() []llm.Block {
	m := s.Message()
	if m == nil {
		return nil
	}
	var calls []llm.Block
	for _, b := range m.Message.Content {
		if b.Type == llm.BlockToolCall {
			calls = append(calls, b)
		}
	}
	return calls
}

// Result returns the tool result that answers the call with id callID.
func (s *Step) Result(callID string) (llm.Block, bool) {
	for _, e := range s.Results {
		m, ok := e.Body.(*session.Message)
		if !ok {
			continue
		}
		for _, b := range m.Message.Content {
			if b.Type == llm.BlockToolResult && b.ID == callID {
				return b, true
			}
		}
	}
	return llm.Block{}, false
}

// Text returns the reply's text blocks joined by newlines; thinking is
// left out.
func (s *Step) Text() string {
	m := s.Message()
	if m == nil {
		return ""
	}
	out := ""
	for _, b := range m.Message.Content {
		if b.Type == llm.BlockText && b.Text != "" {
			if out != "" {
				out += "\n"
			}
			out += b.Text
		}
	}
	return out
}

// Stepper groups a run's entries into steps as they complete. A step is
// complete when every call of its reply has a result, when a later reply
// starts, or when the run ends ([Stepper.Flush]). The zero value is ready
// to use; it is not safe for concurrent use.
type Stepper struct {
	n       int
	pending *Step
	open    map[string]bool // call ids of the pending step still unanswered
	context []session.Entry
}

// Add takes the next entry of the run and returns the steps it completes,
// oldest first (at most two: a pending step cut short by a new reply, and
// that reply when it makes no calls).
func (s *Stepper) Add(e session.Entry) []Step {
	m, _ := e.Body.(*session.Message)
	switch {
	case m != nil && m.Message.Role == llm.RoleAssistant:
		var done []Step
		if s.pending != nil {
			done = append(done, *s.pending)
		}
		s.n++
		st := &Step{N: s.n, Reply: e, Context: s.context}
		s.context = nil
		s.pending, s.open = st, map[string]bool{}
		for _, c := range st.Calls() {
			s.open[c.ID] = true
		}
		if len(s.open) == 0 {
			done = append(done, *st)
			s.pending = nil
		}
		return done
	case m != nil && s.pending != nil && answers(m, s.open):
		s.pending.Results = append(s.pending.Results, e)
		if len(s.open) == 0 {
			st := *s.pending
			s.pending = nil
			return []Step{st}
		}
		return nil
	case withheldAdvice(e):
		return nil
	default:
		s.context = append(s.context, e)
		return nil
	}
}

// answers reports whether m carries a result for an open call, and marks
// the calls it answers.
func answers(m *session.Message, open map[string]bool) bool {
	hit := false
	for _, b := range m.Message.Content {
		if b.Type == llm.BlockToolResult && open[b.ID] {
			delete(open, b.ID)
			hit = true
		}
	}
	return hit
}

// Flush ends the run: it returns the pending step, if one is waiting for
// results, and readies the stepper for a new run numbered from 1. Entries
// after the last step (a final user prompt) are dropped.
func (s *Stepper) Flush() (Step, bool) {
	st, ok := s.pending, s.pending != nil
	*s = Stepper{}
	if !ok {
		return Step{}, false
	}
	return *st, true
}
