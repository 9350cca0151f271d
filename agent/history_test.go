package agent_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestBranchFromRewritesHistory(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: Answer one.
      - text: Answer two.
      - text: Answer three.
`)
	a := e.agent(t, e.options())
	if err := a.Prompt(t.Context(), "question one"); err != nil {
		t.Fatal(err)
	}
	firstReply := e.sess.Leaf()
	if err := a.Prompt(t.Context(), "question two"); err != nil {
		t.Fatal(err)
	}
	r := record(t, a)
	if err := a.BranchFrom(firstReply); err != nil {
		t.Fatal(err)
	}
	if ev := r.first(t, agent.EventHistoryRewritten); ev.Reason != agent.RewriteBranch {
		t.Errorf("history_rewritten: %+v", ev)
	}
	if err := a.Prompt(t.Context(), "question two, rephrased"); err != nil {
		t.Fatal(err)
	}
	body := e.body(t, 2)
	inOrder(t, "request on the branch", body, "question one", "Answer one.", "question two, rephrased")
	if strings.Contains(body, "Answer two.") {
		t.Error("the request on the new branch carries the abandoned one")
	}
}

// TestLeafMovedBehindTheAgent: a host that moves the session's leaf
// itself gets the new branch on the next run, announced as a rewrite.
func TestLeafMovedBehindTheAgent(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: Answer one.
      - text: Answer two.
`)
	a := e.agent(t, e.options())
	if err := a.Prompt(t.Context(), "question one"); err != nil {
		t.Fatal(err)
	}
	path, _ := e.sess.Path(e.sess.Leaf())
	if err := e.sess.BranchFrom(path[0].ID); err != nil {
		t.Fatal(err)
	}
	r := record(t, a)
	if err := a.Prompt(t.Context(), "question one, again"); err != nil {
		t.Fatal(err)
	}
	if types := r.types(); types[0] != "history_rewritten" {
		t.Errorf("events: %v, want history_rewritten first", types)
	}
	if body := e.body(t, 1); strings.Contains(body, "Answer one.") {
		t.Error("the request carries the abandoned branch")
	}
}

func TestIdleSteerGoesAfterOpeningMessage(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: OK.
`)
	a := e.agent(t, e.options())
	a.Steer("typed while idle", false)
	r := record(t, a)
	if err := a.Prompt(t.Context(), "the prompt"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "request", e.body(t, 0), "the prompt", "typed while idle")
	if types := r.types(); types[1] != "steer_delivered" {
		t.Errorf("events: %v, want steer_delivered right after turn_start", types)
	}
}

func TestAbortBetweenTurnsKeepsFollowUp(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: One.
`)
	a := e.agent(t, e.options())
	a.FollowUp("later")
	on(a, agent.EventTurnEnd, func(agent.Event) { a.Abort() })
	r := record(t, a)
	if err := a.Prompt(t.Context(), "now"); !errors.Is(err, agent.ErrAborted) {
		t.Fatalf("Prompt: %v, want ErrAborted", err)
	}
	want := []string{"turn_start", "step_start", "message_delta", "message_end", "step_end", "turn_end", "aborted", "idle"}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if st := a.State(); st.QueuedFollowUps != 1 || !st.Aborted {
		t.Errorf("state: %+v", st)
	}
}

// TestDanglingCallIsAnswered: a session whose run died between a tool
// call and its result can go on; the request gets a stand-in result.
func TestDanglingCallIsAnswered(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: Going on.
`)
	must := func(_ session.Entry, err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(e.sess.Append(&session.Message{Message: llm.UserText("start")}))
	must(e.sess.Append(&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.ToolCall("call_lost", "bash", json.RawMessage(`{"command":"sleep 1"}`)),
	}}}))
	a := e.agent(t, e.options())
	if err := a.Prompt(t.Context(), "continue"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "request", e.body(t, 0), `"tool_use_id":"call_lost"`, "no result", "continue")
}

func TestEventJSON(t *testing.T) {
	en := session.Entry{ID: "e1", ParentID: "e0", Body: &session.Message{
		Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("c1", true, llm.Text("boom"))}},
	}}
	inner := agent.Event{Type: agent.EventIdle}
	ev := agent.Event{
		Type: agent.EventToolEnd, Turn: 1, Step: 2, Entry: &en, Tool: "bash", ToolCallID: "c1",
		IsError: true, Interrupted: true, Reason: agent.InterruptSteer, Err: errors.New("x"),
		SubagentID: "task-1", Subagent: &inner,
	}
	data, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "tool_end", "turn": 1.0, "step": 2.0, "tool": "bash", "tool_call_id": "c1",
		"is_error": true, "interrupted": true, "reason": "steer", "error": "x",
		"subagent_id": "task-1", "event": map[string]any{"type": "idle"},
		"entry": map[string]any{
			"type": "message", "id": "e1", "parentId": "e0",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{
				"type": "tool_result", "id": "c1", "is_error": true,
				"content": []any{map[string]any{"type": "text", "text": "boom"}},
			}}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
}

// TestGrammarChecker makes sure the checker that every recording goes
// through is not vacuous.
func TestGrammarChecker(t *testing.T) {
	for _, tc := range []struct {
		events string
		ok     bool
	}{
		{"turn_start step_start message_end step_end turn_end idle", true},
		{"turn_start step_start message_end tool_start tool_end tool_end step_end aborted turn_end idle", true},
		{"custom_appended compaction_start compaction_end history_rewritten", true},
		{"turn_start step_start message_end step_end idle", false},
		{"turn_start step_start tool_start step_end turn_end idle", false},
		{"step_start message_end step_end turn_end idle", false},
		{"turn_start step_start message_end step_end steer_delivered injection_delivered steer_delivered turn_end idle", false},
		{"turn_start step_start message_end step_end turn_end follow_up_delivered idle", false},
		{"turn_start step_start message_delta request_aborted steer_delivered message_delta message_end step_end turn_end idle", true},
		{"turn_start step_start message_end request_aborted step_end turn_end idle", false},
	} {
		got := grammar.MatchString(tc.events + " ")
		if got != tc.ok {
			t.Errorf("%q: matches %v, want %v", tc.events, got, tc.ok)
		}
	}
}

func TestSwitchSessionToFork(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: Answer one.
      - text: Answer in the fork.
`)
	a := e.agent(t, e.options())
	if err := a.Prompt(t.Context(), "question one"); err != nil {
		t.Fatal(err)
	}
	fork, err := session.NewManager(t.TempDir(), session.Options{}).Fork(e.sess, e.sess.Leaf())
	if err != nil {
		t.Fatal(err)
	}
	defer fork.Close()
	r := record(t, a)
	if err := a.SwitchSession(fork, agent.RewriteFork); err != nil {
		t.Fatal(err)
	}
	if ev := r.first(t, agent.EventHistoryRewritten); ev.Reason != agent.RewriteFork || a.Session() != fork {
		t.Errorf("history_rewritten: %+v", ev)
	}
	if err := a.SwitchSession(fork, "sideways"); err == nil {
		t.Error("SwitchSession accepted an unknown reason")
	}
	if err := a.Prompt(t.Context(), "question in the fork"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "request in the fork", e.body(t, 1), "question one", "Answer one.", "question in the fork")
	if n := fork.Len(); n != 4 {
		t.Errorf("fork has %d entries, want 4", n)
	}
	if n := e.sess.Len(); n != 2 {
		t.Errorf("the original session has %d entries, want 2: the fork's were written there", n)
	}
}

// TestSteerCustomInterrupts: an advisor's interrupting card, steered as a
// custom message, stops the step's tools like a user's steer and keeps
// its custom type in the session.
func TestSteerCustomInterrupts(t *testing.T) {
	e := newWorkspace(t)
	started := fifo(t, e.dir, "started")
	e.serve(t, fmt.Sprintf(`
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo go > %s; sleep 30"}}]
      - text: Heeding the advisor.
`, started))
	a := e.agent(t, e.options())
	r := record(t, a)
	done := prompt(t, a, "go")
	awaitWriter(t, started, done)
	a.SteerCustom(session.Custom{
		CustomType: "advisor", Display: true, InContext: true,
		Content: []llm.Block{llm.Text(`<advisory severity="blocker">stop: wrong folder</advisory>`)},
	}, true)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ev := r.first(t, agent.EventSteerDelivered)
	if c, ok := ev.Entry.Body.(*session.Custom); !ok || c.CustomType != "advisor" || !ev.Interrupt {
		t.Errorf("steer_delivered: %+v", ev)
	}
	if end := r.first(t, agent.EventToolEnd); !end.Interrupted || end.Reason != agent.InterruptSteer {
		t.Errorf("tool_end: %+v", end)
	}
	inOrder(t, "second request", e.body(t, 1), `"tool_use_id":"call_1"`, "stop: wrong folder")
}
