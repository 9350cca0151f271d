package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// TestForkRebuildsTheAgentsRequest: a request forked from the path the
// agent had when it made its second request is, on the wire, that very
// request: same system prompt, tools, messages and options. So a
// provider's prompt cache serves a fork as it serves the agent.
func TestForkRebuildsTheAgentsRequest(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo forked"}}]
      - text: The command printed forked.
      - text: A reply to the fork.
`)
	opts := e.options()
	opts.MaxTokens = 512
	opts.Thinking = llm.ThinkingLow
	a := e.agent(t, opts)
	// Forked from a subscriber, during the run: Fork takes no lock the
	// run holds and reads nothing the run writes (the race detector
	// checks).
	var forked agent.Forked
	on(a, agent.EventToolEnd, func(agent.Event) {
		path, err := e.sess.Path(e.sess.Leaf())
		if err != nil {
			t.Error(err)
			return
		}
		forked = a.Fork(path)
	})
	if err := a.Prompt(context.Background(), "echo forked"); err != nil {
		t.Fatal(err)
	}
	if forked.Model == nil || forked.Ref != (llm.Ref{Provider: "anthropic", Model: "m", Thinking: llm.ThinkingLow}) {
		t.Errorf("fork model %v, ref %v; want the agent's", forked.Model, forked.Ref)
	}
	if _, err := llm.Accumulate(forked.Model.Stream(context.Background(), forked.Request)); err != nil {
		t.Fatal(err)
	}
	if got, want := e.body(t, 2), e.body(t, 1); got != want {
		t.Errorf("the forked request differs from the agent's second one:\nfork:  %s\nagent: %s", got, want)
	}
}

// TestForkAnswersDanglingCalls: a path that ends with a call and no
// result gets the agent's stand-in result, so the request is valid.
func TestForkAnswersDanglingCalls(t *testing.T) {
	e := newWorkspace(t)
	a := e.agent(t, agent.Options{Model: &scripted{}, Session: e.sess})
	call := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: "c1", Name: "bash"}}}
	path := []session.Entry{
		{ID: "1", Body: &session.Message{Message: llm.UserText("go")}},
		{ID: "2", ParentID: "1", Body: &session.Message{Message: call}},
	}
	msgs := a.Fork(path).Request.Messages
	if len(msgs) != 3 || msgs[2].Role != llm.RoleUser || len(msgs[2].Content) != 1 ||
		msgs[2].Content[0].ID != "c1" || !strings.Contains(resultText(msgs[2].Content[0]), "no result") {
		t.Errorf("messages: %+v", msgs)
	}
}
