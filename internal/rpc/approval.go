package rpc

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/vigil-dev/vigil/agent"
)

// inputClosedDenial is what a call waiting for approval gets when the
// client's input ends: no one is left to answer.
const inputClosedDenial = "(the RPC client closed its input: no one can approve this call.)"

// approve runs an approve command: the answer to an approval_request.
func (s *Server) approve(c request) error {
	if c.ToolCallID == "" {
		return errors.New("approve needs tool_call_id: the id of the approval_request it answers")
	}
	d := agent.Decision(c.Decision)
	switch d {
	case agent.AllowOnce, agent.AllowAlways, agent.Deny:
	default:
		return fmt.Errorf("approve: decision %q, want once, always or deny", c.Decision)
	}
	if c.Message != "" && d != agent.Deny {
		return errors.New("approve: message goes with decision deny only (it tells the model why)")
	}
	return s.app.Answer(c.ToolCallID, agent.Approval{Decision: d, Message: c.Message})
}

// trackApproval keeps the calls waiting for approval (a subagent's too),
// and denies a new one at once once the input has ended.
func (s *Server) trackApproval(ev agent.Event) {
	if ev.Type == agent.EventSubagent && ev.Subagent != nil {
		ev = *ev.Subagent
	}
	switch ev.Type {
	case agent.EventApprovalRequest:
		s.mu.Lock()
		done := s.inputDone
		if !done {
			if s.asked == nil {
				s.asked = map[string]bool{}
			}
			s.asked[ev.ToolCallID] = true
		}
		s.mu.Unlock()
		if done {
			s.denyUnanswerable(ev.ToolCallID)
		}
	case agent.EventApprovalEnd:
		s.mu.Lock()
		delete(s.asked, ev.ToolCallID)
		s.mu.Unlock()
	}
}

// endInput denies the calls waiting for approval when the input ends, so
// that the running turn can finish.
func (s *Server) endInput() {
	s.mu.Lock()
	s.inputDone = true
	ids := slices.Sorted(maps.Keys(s.asked))
	s.mu.Unlock()
	for _, id := range ids {
		s.denyUnanswerable(id)
	}
}

func (s *Server) denyUnanswerable(id string) {
	// A call answered meanwhile is no longer pending: nothing to do.
	if err := s.app.Answer(id, agent.Approval{Decision: agent.Deny, Message: inputClosedDenial}); err != nil && !errors.Is(err, agent.ErrNotPending) {
		s.out.Encode(response{Type: "response", Command: "approve", Error: "deny " + id + " at the end of input: " + err.Error()})
	}
}
