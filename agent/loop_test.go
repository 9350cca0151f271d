package agent_test

import (
	"context"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

func TestBashRunsAndAnswerReturns(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - text: Let me run it.
        tool_calls: [{id: call_1, name: bash, arguments: {command: "echo hello-from-bash"}}]
      - text: It printed hello-from-bash.
`)
	a := e.agent(t, e.options())
	if err := a.Prompt(context.Background(), "run echo"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "second request", e.body(t, 1), `"type":"tool_use"`, `"tool_use_id":"call_1"`, `"text":"hello-from-bash"`)

	path, err := e.sess.Path(e.sess.Leaf())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, en := range path {
		m := en.Body.(*session.Message)
		got = append(got, string(m.Message.Role)+":"+m.Message.Text()+":"+string(m.StopReason))
	}
	want := []string{"user:run echo:", "assistant:Let me run it.:tool_use", "user::", "assistant:It printed hello-from-bash.:end_turn"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("session (-want +got):\n%s", diff)
	}
	if last := path[len(path)-1].Body.(*session.Message); last.Model.String() != "anthropic/m" || last.Usage.Output == 0 {
		t.Errorf("assistant entry records model %q and usage %+v", last.Model, last.Usage)
	}
	st := a.State()
	if st.Running || st.Turn != 1 || st.Step != 2 || st.Usage.Output == 0 || st.ContextTokens == 0 {
		t.Errorf("state after the run: %+v", st)
	}
}

// TestEventOrderMatchesDoc runs a two-step turn and checks its events
// against the example in docs/agent-events.md.
func TestEventOrderMatchesDoc(t *testing.T) {
	doc, err := os.ReadFile("../docs/agent-events.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)<!-- two-step-turn -->\n```\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("docs/agent-events.md has no two-step-turn example")
	}
	want := strings.Fields(string(m[1]))

	e := newEnv(t, `
rules:
  - steps:
      - text: Checking.
        tool_calls: [{id: call_1, name: bash, arguments: {command: "echo hi"}}]
      - text: Done.
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	if err := a.Prompt(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-doc +got):\n%s", diff)
	}

	// The fields the doc promises.
	evs := r.all()
	if ev := r.first(t, agent.EventTurnStart); ev.Cause != agent.CausePrompt || ev.Entry == nil || ev.Turn != 1 {
		t.Errorf("turn_start: %+v", ev)
	}
	var stepEnds []agent.Event
	for _, ev := range evs {
		if ev.Type == agent.EventStepEnd {
			stepEnds = append(stepEnds, ev)
		}
	}
	if len(stepEnds) != 2 || len(stepEnds[0].Entries) != 2 || len(stepEnds[1].Entries) != 1 || stepEnds[1].Step != 2 {
		t.Errorf("step_end events: %+v", stepEnds)
	}
	if ev := r.first(t, agent.EventToolEnd); ev.Summary != "hi" || ev.IsError || ev.Interrupted || ev.Entry == nil || ev.Details == nil {
		t.Errorf("tool_end: %+v", ev)
	}
	if ev := r.first(t, agent.EventTurnEnd); ev.StopReason != llm.StopEndTurn || ev.Err != nil {
		t.Errorf("turn_end: %+v", ev)
	}
	// Every entry an event reports is already in the session.
	for _, ev := range evs {
		if ev.Entry != nil {
			if _, ok := e.sess.Get(ev.Entry.ID); !ok {
				t.Errorf("%s reports entry %s, not in the session", ev.Type, ev.Entry.ID)
			}
		}
	}
}

func TestFollowUpWaitsForTurnEnd(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "echo one"}}]
      - text: First done.
      - text: Second done.
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	on(a, agent.EventToolStart, func(agent.Event) { a.FollowUp("and then the follow-up") })
	if err := a.Prompt(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(e.body(t, 1), "and then the follow-up") {
		t.Error("the follow-up was delivered before the turn ended")
	}
	inOrder(t, "third request", e.body(t, 2), "First done.", "and then the follow-up")
	want := []string{
		"turn_start", "step_start", "message_end", "tool_start", "tool_end", "step_end",
		"step_start", "message_delta", "message_end", "step_end", "turn_end",
		"follow_up_delivered", "turn_start", "step_start", "message_delta", "message_end", "step_end", "turn_end",
		"idle",
	}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	var starts []agent.Event
	for _, ev := range r.all() {
		if ev.Type == agent.EventTurnStart {
			starts = append(starts, ev)
		}
	}
	if starts[1].Cause != agent.CauseFollowUp || starts[1].Turn != 2 {
		t.Errorf("second turn_start: %+v", starts[1])
	}
}

func TestBusyAndDeferredCustom(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "echo one"}}]
      - text: Done.
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	card := session.Custom{CustomType: "advisor", Content: []llm.Block{llm.Text("a card")}, Display: true}
	var promptErr, customErr error
	on(a, agent.EventToolStart, func(agent.Event) {
		promptErr = a.Prompt(context.Background(), "again")
		_, customErr = a.AppendCustom(card)
		if st := a.State(); !st.Running || st.QueuedCustom != 1 {
			t.Errorf("state while running: %+v", st)
		}
	})
	if err := a.Prompt(context.Background(), "first"); err != nil {
		t.Fatal(err)
	}
	if !errors.Is(promptErr, agent.ErrBusy) || !errors.Is(customErr, agent.ErrDeferred) {
		t.Errorf("while running: Prompt: %v, AppendCustom: %v", promptErr, customErr)
	}
	// The card is written at the first boundary, after step_end.
	types := r.types()
	if i := indexOf(types, "custom_appended"); i < 0 || types[i-1] != "step_end" || types[i+1] != "step_start" {
		t.Errorf("custom_appended not at the boundary: %v", types)
	}
	// Idle: written at once.
	en, err := a.AppendCustom(card)
	if err != nil || en.ID == "" || e.sess.Leaf() != en.ID {
		t.Errorf("AppendCustom while idle: %+v, %v", en, err)
	}
}

func TestResumeOpensWithCustomEntry(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - thinking: The advisor has a point.
        text: Resumed.
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	if err := a.Resume(context.Background(), "<advisory>look again</advisory>"); err != nil {
		t.Fatal(err)
	}
	ev := r.first(t, agent.EventTurnStart)
	c, ok := ev.Entry.Body.(*session.Custom)
	if ev.Cause != agent.CauseResume || !ok || c.CustomType != agent.CustomResume || !c.InContext {
		t.Errorf("turn_start of a resume: %+v", ev)
	}
	inOrder(t, "request", e.body(t, 0), "look again")
	if ev := r.first(t, agent.EventMessageDelta); ev.Delta != agent.DeltaThinking {
		t.Errorf("first delta: %+v, want thinking", ev)
	}
	// The thinking block is kept with its signature, for the next request.
	msg := r.first(t, agent.EventMessageEnd).Entry.Body.(*session.Message).Message
	if len(msg.Content) != 2 || msg.Content[0].Type != llm.BlockThinking || msg.Content[0].Signature == "" {
		t.Errorf("reply: %+v", msg.Content)
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestNewChecksOptions(t *testing.T) {
	s := memSession(t)
	m := &scripted{}
	for name, opts := range map[string]agent.Options{
		"no model":         {Session: s},
		"no session":       {Model: m},
		"negative max":     {Model: m, Session: s, MaxTokens: -1},
		"duplicate tools":  {Model: m, Session: s, Tools: []tools.Tool{echoTool{}, echoTool{}}},
		"unrecordable ref": {Model: m, Session: s, Info: llm.ModelInfo{ID: "m:high"}},
		"task twice":       {Model: m, Session: s, Tools: []tools.Tool{namedTool{"task"}}, Subagents: &agent.SubagentConfig{}},
		"unnamed tool":     {Model: m, Session: s, Tools: []tools.Tool{namedTool{""}}},
	} {
		if _, err := agent.New(opts); err == nil {
			t.Errorf("%s: New succeeded", name)
		}
	}
	a, err := agent.New(agent.Options{Model: m, Session: s})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Prompt(t.Context(), ""); err == nil {
		t.Error("Prompt accepted an empty text")
	}
}

type namedTool struct{ name string }

func (n namedTool) Definition() llm.Tool { return llm.Tool{Name: n.name} }
func (namedTool) Run(context.Context, tools.Call) (tools.Result, error) {
	return tools.Result{}, nil
}
