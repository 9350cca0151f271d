package rpc

import (
	"context"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
)

// askingApp's prompt asks for the approval of one call, c1, and waits for
// the answer, as the agent does in the approval mode.
type askingApp struct {
	*fakeApp
	answers chan agent.Approval
}

func (a *askingApp) Prompt(ctx context.Context, m string) error {
	defer a.emit(agent.Event{Type: agent.EventIdle})
	a.emit(agent.Event{Type: agent.EventApprovalRequest, ToolCallID: "c1", Tool: "bash"})
	select {
	case ap := <-a.answers:
		a.emit(agent.Event{Type: agent.EventApprovalEnd, ToolCallID: "c1", Tool: "bash", Decision: ap.Decision, Text: ap.Message})
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (a *askingApp) Answer(id string, ap agent.Approval) error {
	if id != "c1" || len(a.answers) > 0 {
		return agent.ErrNotPending
	}
	a.answers <- ap
	return nil
}

// TestServerApprove: approve answers an approval_request by its id, and
// a malformed one is refused with what is wrong.
func TestServerApprove(t *testing.T) {
	app := &askingApp{fakeApp: &fakeApp{}, answers: make(chan agent.Approval, 1)}
	s := serve(t, app)
	s.send(`{"id":"1","type":"prompt","message":"go"}`)
	s.nextAll(`{"type":"response","id":"1","command":"prompt","success":true}`, `{"type":"approval_request","tool_call_id":"c1","tool":"bash"}`)
	for _, tc := range []struct{ line, err string }{
		{`{"id":"2","type":"approve","decision":"once"}`, "approve needs tool_call_id"},
		{`{"id":"2","type":"approve","tool_call_id":"c1","decision":"yes"}`, `decision \"yes\", want once, always or deny`},
		{`{"id":"2","type":"approve","tool_call_id":"c1","decision":"once","message":"hm"}`, "message goes with decision deny only"},
		{`{"id":"2","type":"approve","tool_call_id":"c9","decision":"once"}`, "no such call waits for approval"},
	} {
		s.send(tc.line)
		if !s.out.Scan() || !strings.Contains(s.out.Text(), `"success":false`) || !strings.Contains(s.out.Text(), tc.err) {
			t.Fatalf("%s: got %s, want an error with %q", tc.line, s.out.Text(), tc.err)
		}
	}
	s.send(`{"id":"3","type":"approve","tool_call_id":"c1","decision":"deny","message":"not now"}`)
	s.nextAll(`{"type":"response","id":"3","command":"approve","success":true}`,
		`{"type":"approval_end","text":"not now","tool_call_id":"c1","tool":"bash","decision":"deny"}`,
		`{"type":"idle"}`)
	s.in.Close()
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}

// TestServerDeniesAtEndOfInput: a call still waiting for approval when the
// input ends is denied, saying why, so the turn finishes and Serve
// returns.
func TestServerDeniesAtEndOfInput(t *testing.T) {
	app := &askingApp{fakeApp: &fakeApp{}, answers: make(chan agent.Approval, 1)}
	s := serve(t, app)
	s.send(`{"id":"1","type":"prompt","message":"go"}`)
	s.nextAll(`{"type":"response","id":"1","command":"prompt","success":true}`, `{"type":"approval_request","tool_call_id":"c1","tool":"bash"}`)
	s.in.Close()
	s.next(`{"type":"approval_end","text":"(the RPC client closed its input: no one can approve this call.)","tool_call_id":"c1","tool":"bash","decision":"deny"}`)
	s.next(`{"type":"idle"}`)
	if err := <-s.done; err != nil {
		t.Fatal(err)
	}
}
