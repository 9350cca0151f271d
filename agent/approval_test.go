package agent_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
)

// answerer answers each approval request with the next of its answers,
// from the test's goroutine, as a user in another goroutine would.
func answerer(t *testing.T, a *agent.Agent, p *agent.Approvals, answers ...agent.Approval) <-chan []string {
	t.Helper()
	asked := make(chan agent.Event, 16)
	a.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventSubagent && ev.Subagent != nil {
			ev = *ev.Subagent
		}
		if ev.Type == agent.EventApprovalRequest {
			asked <- ev
		}
	})
	done := make(chan []string, 1)
	go func() {
		var ids []string
		for _, ans := range answers {
			ev := <-asked
			ids = append(ids, ev.Tool+":"+ev.ToolCallID)
			if err := p.Answer(ev.ToolCallID, ans); err != nil {
				t.Errorf("answer %s: %v", ev.ToolCallID, err)
			}
		}
		done <- ids
	}()
	return done
}

// asking returns an agent over e whose calls of the named tools wait for
// approval, and its approval mode; adjust changes the options first.
func asking(t *testing.T, e *env, adjust func(*agent.Options), ask ...string) (*agent.Agent, *agent.Approvals) {
	t.Helper()
	p := agent.NewApprovals(ask...)
	opts := e.options()
	opts.Approvals = p
	if adjust != nil {
		adjust(&opts)
	}
	return e.agent(t, opts), p
}

// TestApprovalOnceAlwaysDeny: read never asks; bash asks, is allowed once,
// then for the session, after which it runs unasked; a denied write does
// not run and its refusal, with the user's message, reaches the model's
// next request.
func TestApprovalOnceAlwaysDeny(t *testing.T) {
	e := newWorkspace(t)
	if err := os.WriteFile(filepath.Join(e.dir, "notes.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.serve(t, `
rules:
  - steps:
      - tool_calls:
          - {id: call_r, name: read, arguments: {path: notes.txt}}
          - {id: call_1, name: bash, arguments: {command: "echo ONE-ran"}}
      - tool_calls: [{id: call_2, name: bash, arguments: {command: "echo TWO-ran"}}]
      - tool_calls: [{id: call_3, name: bash, arguments: {command: "echo THREE-ran"}}]
      - tool_calls: [{id: call_4, name: write, arguments: {path: out.txt, content: "x"}}]
      - text: done
`)
	a, p := asking(t, e, nil, "bash", "write", "edit")
	r := record(t, a)
	asked := answerer(t, a, p,
		agent.Approval{Decision: agent.AllowOnce},
		agent.Approval{Decision: agent.AllowAlways},
		agent.Approval{Decision: agent.Deny, Message: "Use the Makefile instead."},
	)
	if err := a.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"bash:call_1", "bash:call_2", "write:call_4"}, <-asked); diff != "" {
		t.Errorf("asked (-want +got):\n%s", diff)
	}
	if got := p.Allowed(); !slices.Equal(got, []string{"bash"}) {
		t.Errorf("allowed for the session: %v, want bash", got)
	}
	if got := p.Pending(); len(got) != 0 {
		t.Errorf("still pending: %v", got)
	}
	inOrder(t, "request 2", e.body(t, 1), "hello", "ONE-ran")
	inOrder(t, "request 3", e.body(t, 2), "TWO-ran")
	inOrder(t, "request 4", e.body(t, 3), "THREE-ran")
	inOrder(t, "request 5", e.body(t, 4), `"tool_use_id":"call_4"`, `"is_error":true`, agent.DeniedText, "Use the Makefile instead.")
	if _, err := os.Stat(filepath.Join(e.dir, "out.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied write wrote out.txt (%v)", err)
	}

	var decisions []string
	var denied []string
	for _, ev := range r.all() {
		switch {
		case ev.Type == agent.EventApprovalRequest && ev.ToolCallID == "call_4":
			if ev.Details == nil || !strings.Contains(ev.Details.Diff, "--- /dev/null") || !strings.Contains(ev.Details.Diff, "+x") {
				t.Errorf("the write's approval_request has no diff of the new file: %+v", ev.Details)
			}
		case ev.Type == agent.EventApprovalRequest && ev.Details != nil:
			t.Errorf("bash's approval_request has details %+v", ev.Details)
		case ev.Type == agent.EventApprovalEnd:
			decisions = append(decisions, ev.ToolCallID+"="+string(ev.Decision)+" "+ev.Text)
		case ev.Type == agent.EventToolEnd && ev.Denied:
			denied = append(denied, ev.ToolCallID)
			if !ev.IsError || ev.Interrupted || ev.Skipped {
				t.Errorf("denied tool_end: %+v", ev)
			}
		case ev.Type == agent.EventToolStart && ev.ToolCallID == "call_4":
			t.Error("the denied call started")
		}
	}
	want := []string{"call_1=once ", "call_2=always ", "call_4=deny Use the Makefile instead."}
	if diff := cmp.Diff(want, decisions); diff != "" {
		t.Errorf("approval_end decisions (-want +got):\n%s", diff)
	}
	if !slices.Equal(denied, []string{"call_4"}) {
		t.Errorf("denied tool_end for %v, want call_4", denied)
	}
	data, err := agent.Event{Type: agent.EventApprovalEnd, ToolCallID: "c", Tool: "bash", Decision: agent.Deny, Text: "no"}.MarshalJSON()
	if err != nil || string(data) != `{"type":"approval_end","text":"no","tool_call_id":"c","tool":"bash","decision":"deny"}` {
		t.Errorf("approval_end as JSON: %s (%v)", data, err)
	}
}

// TestApprovalAnsweredInDelivery: a subscriber may answer in the
// approval_request delivery itself (print mode's automatic denial does).
func TestApprovalAnsweredInDelivery(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo never > ran.txt"}}]
      - text: done
`)
	a, p := asking(t, e, nil, "bash")
	record(t, a)
	a.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventApprovalRequest {
			if err := p.Answer(ev.ToolCallID, agent.Approval{Decision: agent.Deny, Message: "no one can approve"}); err != nil {
				t.Error(err)
			}
		}
	})
	if err := a.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "request 2", e.body(t, 1), agent.DeniedText, "no one can approve")
	if _, err := os.Stat(filepath.Join(e.dir, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied command ran (%v)", err)
	}
}

// TestApprovalWaitCutShort: Abort and an interrupting steer end the wait;
// the call is answered as not run, and a late answer is refused.
func TestApprovalWaitCutShort(t *testing.T) {
	for _, tc := range []struct {
		name, reason, text string
		cut                func(a *agent.Agent)
		wantErr            error
	}{
		{"abort", agent.InterruptUser, "not run: interrupted by the user", func(a *agent.Agent) { a.Abort() }, agent.ErrAborted},
		{"steer", agent.InterruptSteer, "not run: the user sent a steering message", func(a *agent.Agent) { a.Steer("do something else", true) }, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, `
rules:
  - steps:
      - tool_calls:
          - {id: call_1, name: bash, arguments: {command: "echo never"}}
          - {id: call_2, name: read, arguments: {path: nothing.txt}}
      - text: done
`)
			a, p := asking(t, e, nil, "bash")
			r := record(t, a)
			on(a, agent.EventApprovalRequest, func(agent.Event) { tc.cut(a) })
			if err := a.Prompt(t.Context(), "go"); !errors.Is(err, tc.wantErr) {
				t.Fatalf("Prompt: %v, want %v", err, tc.wantErr)
			}
			end := r.first(t, agent.EventApprovalEnd)
			if end.Decision != "" || end.Reason != tc.reason {
				t.Errorf("approval_end: %+v, want no decision and reason %s", end, tc.reason)
			}
			results := toolResults(t, e.sess)
			if len(results) != 2 || !strings.Contains(resultText(results[0]), tc.text) || !strings.Contains(resultText(results[1]), "not run") {
				t.Fatalf("tool results: %+v", results)
			}
			if err := p.Answer("call_1", agent.Approval{Decision: agent.AllowOnce}); !errors.Is(err, agent.ErrNotPending) {
				t.Errorf("a late answer: %v, want ErrNotPending", err)
			}
			if tc.name == "steer" {
				inOrder(t, "request 2", e.body(t, 1), tc.text, "do something else")
			}
		})
	}
}

// TestApprovalAnswerErrors: an answer names a waiting call and a known
// decision.
func TestApprovalAnswerErrors(t *testing.T) {
	p := agent.NewApprovals("bash")
	if err := p.Answer("nope", agent.Approval{Decision: agent.AllowOnce}); !errors.Is(err, agent.ErrNotPending) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown call: %v", err)
	}
	if err := p.Answer("x", agent.Approval{Decision: "yes"}); err == nil || !strings.Contains(err.Error(), "want once, always or deny") {
		t.Errorf("bad decision: %v", err)
	}
	if p.Asks("read") || !p.Asks("bash") {
		t.Error("Asks: read must never ask, bash must")
	}
}

// TestApprovalSubagent: a subagent's calls ask through the parent's
// approval mode, and its request reaches the parent's subscribers.
func TestApprovalSubagent(t *testing.T) {
	e := newEnv(t, `
rules:
  - name: sub
    match: ["You are a SUBAGENT"]
    steps:
      - tool_calls: [{id: sub_1, name: bash, arguments: {command: "echo never > sub.txt"}}]
      - text: sub done
  - steps:
      - tool_calls: [{id: call_t, name: task, arguments: {prompt: "write sub.txt"}}]
      - text: done
`)
	a, p := asking(t, e, func(o *agent.Options) { o.Subagents = &agent.SubagentConfig{System: "You are a SUBAGENT."} }, "bash")
	record(t, a)
	asked := answerer(t, a, p, agent.Approval{Decision: agent.Deny})
	if err := a.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	if got := <-asked; !slices.Equal(got, []string{"bash:sub_1"}) {
		t.Errorf("asked %v, want the subagent's bash", got)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "sub.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the subagent's denied command ran (%v)", err)
	}
}
