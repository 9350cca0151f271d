package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/tools"
)

// Decision is the user's answer to an approval request.
type Decision string

// The decisions.
const (
	// AllowOnce runs this call.
	AllowOnce Decision = "once"
	// AllowAlways runs this call and every later call of the same tool
	// in the session, without asking again.
	AllowAlways Decision = "always"
	// Deny does not run the call: the model gets [DeniedText] (and the
	// user's message) as its result.
	Deny Decision = "deny"
)

// Approval is an answer to an approval request.
type Approval struct {
	Decision Decision
	// Message, with Deny, is what the user tells the model; it follows
	// the refusal in the call's result.
	Message string
}

// DeniedText opens the result of a denied call, which is what the model
// reads instead of the tool's output.
const DeniedText = "The user denied this call: it was not run. Do not retry it, and do not get around the denial with another tool; if you need it, ask the user."

// Approvals is an approval mode: the tools whose calls wait for the
// user's approval, the tools the user allowed for the session
// ([AllowAlways]), and the calls waiting now. It is how the agent asks
// and the host answers:
//
//   - before running a call of a tool that asks, the agent registers the
//     call here, emits approval_request (with the call, and the diff a
//     write or edit would make) and waits, as long as the user takes;
//   - the host shows the request and passes the user's answer to
//     [Approvals.Answer], from any goroutine (a subscriber may answer
//     at once, in the approval_request event's delivery);
//   - the agent emits approval_end with the decision, then runs the call
//     (tool_start, tool_end) or, denied, writes the refusal as its
//     result (tool_end with Denied set);
//   - [Agent.Abort] and an interrupting steer end the wait: the call and
//     the step's others are answered as not run, as any interrupt does.
//
// One Approvals serves a session: the agents built on it in turn (a
// model switch rebuilds the agent) and their subagents share it, so an
// "always" holds for all of them. It is safe for concurrent use.
type Approvals struct {
	ask []string

	mu      sync.Mutex
	allowed []string
	pending map[string]chan Approval
}

// NewApprovals returns an approval mode in which the calls of the named
// tools ask (vigil asks for bash, write and edit; the read-only tools
// never ask).
func NewApprovals(ask ...string) *Approvals {
	return &Approvals{ask: slices.Clone(ask), pending: map[string]chan Approval{}}
}

// Asks reports whether a call of tool waits for approval now: the tool
// asks and the user has not allowed it for the session.
func (p *Approvals) Asks(tool string) bool {
	if !slices.Contains(p.ask, tool) {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !slices.Contains(p.allowed, tool)
}

// Allowed returns the tools the user allowed for the session, in the
// order they were allowed.
func (p *Approvals) Allowed() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.allowed)
}

// Pending returns the ids of the calls waiting for an answer.
func (p *Approvals) Pending() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ids []string
	for id := range p.pending {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ErrNotPending is returned by [Approvals.Answer] for a call that does
// not wait for approval (never asked, answered already, or cut short).
var ErrNotPending = errors.New("no such call waits for approval")

// Answer answers the approval request of the call callID. It never
// waits for the agent.
func (p *Approvals) Answer(callID string, ap Approval) error {
	switch ap.Decision {
	case AllowOnce, AllowAlways, Deny:
	default:
		return fmt.Errorf("approval of %s: decision %q, want once, always or deny", callID, ap.Decision)
	}
	p.mu.Lock()
	ch, ok := p.pending[callID]
	delete(p.pending, callID)
	p.mu.Unlock()
	if !ok {
		return fmt.Errorf("approval of %q: %w", callID, ErrNotPending)
	}
	ch <- ap // buffered: the waiter takes it
	return nil
}

// register opens the wait for call id's answer.
func (p *Approvals) register(id string) chan Approval {
	ch := make(chan Approval, 1)
	p.mu.Lock()
	p.pending[id] = ch
	p.mu.Unlock()
	return ch
}

// wait waits for the answer on ch, or for ctx to end; it closes the
// call's wait either way, and records an [AllowAlways].
func (p *Approvals) wait(ctx context.Context, id, tool string, ch chan Approval) (Approval, error) {
	select {
	case ap := <-ch:
		if ap.Decision == AllowAlways {
			p.mu.Lock()
			if !slices.Contains(p.allowed, tool) {
				p.allowed = append(p.allowed, tool)
			}
			p.mu.Unlock()
		}
		return ap, nil
	case <-ctx.Done():
		p.mu.Lock()
		delete(p.pending, id)
		p.mu.Unlock()
		return Approval{}, context.Cause(ctx)
	}
}

// approve asks for the approval of call when the agent's approval mode
// says so, emitting approval_request and approval_end. It reports
// whether the call may run; when it may not, res is its result and ev
// (the call's tool_end) says why: denied, or cut short by an interrupt.
func (a *Agent) approve(ctx context.Context, call llm.Block, ev *Event) (res tools.Result, run bool) {
	p := a.approvals
	if p == nil || !p.Asks(call.Name) {
		return tools.Result{}, true
	}
	ch := p.register(call.ID)
	a.emit(a.event(a.approvalRequest(ctx, call)))
	ap, err := p.wait(ctx, call.ID, call.Name, ch)
	end := Event{Type: EventApprovalEnd, ToolCallID: call.ID, Tool: call.Name, Decision: ap.Decision, Text: ap.Message}
	if err != nil {
		end.Reason = interruptReason(ctx)
		a.emit(a.event(end))
		ev.Skipped, ev.Interrupted, ev.Reason = true, true, end.Reason
		return tools.Result{IsError: true, Content: []llm.Block{llm.Text(skippedText(end.Reason))}}, false
	}
	a.emit(a.event(end))
	if ap.Decision != Deny {
		return tools.Result{}, true
	}
	text := DeniedText
	if ap.Message != "" {
		text += "\n\n" + ap.Message
	}
	ev.Denied = true
	return tools.Result{IsError: true, Content: []llm.Block{llm.Text(text)}}, false
}

// approvalRequest is the approval_request event of call: with, for a tool
// that can say what it would change (write, edit), the path and the diff
// in Details, or in Text why that could not be said (the call would
// fail as it is).
func (a *Agent) approvalRequest(ctx context.Context, call llm.Block) Event {
	ev := Event{Type: EventApprovalRequest, ToolCallID: call.ID, Tool: call.Name, Arguments: call.Arguments}
	if pv, ok := a.byName[call.Name].(tools.Previewer); ok {
		d, err := pv.Preview(ctx, tools.CallFrom(call))
		if err != nil {
			ev.Text = err.Error()
		} else {
			ev.Details = &d
		}
	}
	return ev
}
