package agent_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/session"
)

func TestTaskSubagent(t *testing.T) {
	// Requests come one at a time: the parent's, the child's two, the
	// parent's again.
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{id: call_task, name: task, arguments: {prompt: "Count the files named *.txt and report the number.", description: count, tools: [bash]}}]
      - tool_calls: [{id: call_ls, name: bash, arguments: {command: "echo 3 files"}}]
      - text: There are 3 files.
      - text: The subagent counted 3 files.
`)
	opts := e.options()
	opts.Subagents = &agent.SubagentConfig{}
	a := e.agent(t, opts)
	r := record(t, a)
	if err := a.Prompt(t.Context(), "how many text files?"); err != nil {
		t.Fatal(err)
	}

	// The child's own session, in the parent's artifacts folder.
	files, _ := filepath.Glob(filepath.Join(e.sess.ArtifactsDir(), "task-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("subagent sessions: %v, want one", files)
	}
	h, entries, err := session.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if h.Parent == nil || h.Parent.Kind != session.ParentSubagent || h.Parent.ID != e.sess.ID() {
		t.Errorf("subagent header: %+v", h)
	}
	var childText []string
	for _, en := range entries {
		if m, ok := en.Body.(*session.Message); ok {
			childText = append(childText, m.Message.Text())
		}
	}
	if len(entries) != 4 || childText[0] != "Count the files named *.txt and report the number." || childText[3] != "There are 3 files." {
		t.Errorf("subagent session: %q", childText)
	}

	// Its answer is the task call's result.
	results := toolResults(t, e.sess)
	if len(results) != 1 || results[0].IsError || resultText(results[0]) != "There are 3 files." {
		t.Fatalf("task result: %+v", results)
	}
	inOrder(t, "parent's second request", e.body(t, 3), `"tool_use_id":"call_task"`, "There are 3 files.")
	// The child had only bash, and no task tool.
	child := e.body(t, 1)
	if !strings.Contains(child, `"name":"bash"`) || strings.Contains(child, `"name":"task"`) || strings.Contains(child, `"name":"read"`) {
		t.Errorf("the child's tools are not just bash")
	}

	// Its events reach the parent's subscribers, between the task call's
	// tool_start and tool_end.
	var sub []string
	inTask := false
	for _, ev := range r.all() {
		switch {
		case ev.Type == agent.EventToolStart && ev.Tool == agent.TaskToolName:
			inTask = true
		case ev.Type == agent.EventToolEnd && ev.Tool == agent.TaskToolName:
			inTask = false
		case ev.Type == agent.EventSubagent:
			if !inTask || ev.Subagent == nil || ev.SubagentID != strings.TrimSuffix(filepath.Base(files[0]), ".jsonl") {
				t.Fatalf("subagent_event outside the task call or without its id: %+v", ev)
			}
			if ev.Subagent.Type != agent.EventMessageDelta {
				sub = append(sub, string(ev.Subagent.Type))
			}
		}
	}
	want := "turn_start step_start message_end tool_start tool_end step_end step_start message_end step_end turn_end idle"
	if got := strings.Join(sub, " "); got != want {
		t.Errorf("subagent events:\n got %s\nwant %s", got, want)
	}
}

func TestTaskRejectsUnknownTool(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - tool_calls: [{id: call_task, name: task, arguments: {prompt: "x", tools: [task]}}]
      - text: OK.
`)
	opts := e.options()
	opts.Subagents = &agent.SubagentConfig{}
	a := e.agent(t, opts)
	if err := a.Prompt(t.Context(), "go"); err != nil {
		t.Fatal(err)
	}
	results := toolResults(t, e.sess)
	if len(results) != 1 || !results[0].IsError || !strings.Contains(resultText(results[0]), `unknown tool "task"`) {
		t.Errorf("task result: %+v", results)
	}
}
