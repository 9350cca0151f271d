package sidecar

import (
	"context"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// A fork ends where every tool call has its result (advisor.PeriodicHost's
// contract): a trailing reply whose call is still running is not rendered,
// so a review that dispatched after the agent's next call started (a
// roster member's, forking with its siblings) sees the point they saw.
func TestForkEndsWhereEveryCallSettled(t *testing.T) {
	h := NewHost()
	call := func(id, text, cmd string) session.Entry {
		return session.Entry{ID: id, Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Text(text), llm.ToolCall("call-"+id, "bash", []byte(`{"command":"`+cmd+`"}`)),
		}}}}
	}
	result := func(id, out string) session.Entry {
		return session.Entry{ID: id + "-r", Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("call-"+id, false, llm.Text(out)),
		}}}}
	}
	h.Append(call("a", "SETTLED-STEP", "make"), result("a", "ok"), call("b", "RUNNING-STEP", "make test"))
	m := &recordingModel{}
	p := &PeriodicHost{Host: h, Model: m}
	reply, err := p.Fork(context.Background(), "Review it.")
	if err != nil {
		t.Fatal(err)
	}
	text := m.reqs[0].Messages[0].Content[0].Text
	if !strings.Contains(text, "SETTLED-STEP") || strings.Contains(text, "RUNNING-STEP") {
		t.Errorf("the fork rendered %q, want the settled step and not the running one", text)
	}
	if reply.At != "a-r" {
		t.Errorf("the fork is at %q, want a-r (the last settled entry)", reply.At)
	}
}
