package tui

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/tools"
)

func approvalRequest(id, tool, args string) agent.Event {
	return agent.Event{Type: agent.EventApprovalRequest, ToolCallID: id, Tool: tool, Arguments: json.RawMessage(args)}
}

// TestApprovalPrompt: a pending call takes the editor's place with what
// would run and the keys; text typed meanwhile answers nothing; y, a and
// n answer once, always and deny; the end event closes the prompt.
func TestApprovalPrompt(t *testing.T) {
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	m.Update(eventsMsg{approvalRequest("c1", "bash", `{"command":"rm -rf build && make"}`)})
	frame := plain(m)
	checkSize(t, frame, 80, 24)
	assertContains(t, frame, "Allow bash?", "$ rm -rf build && make", "y allow once · a allow bash for this session · n deny · esc interrupts")
	if strings.Contains(frame, "Ask vigil") {
		t.Error("the editor shows while a call waits for approval")
	}
	press(m, "hello")
	if calls := app.Calls(); len(calls) != 0 || m.ed.Value() != "" {
		t.Errorf("typing while a call waits: calls %v, editor %q", calls, m.ed.Value())
	}
	press(m, "y")
	if m.approval != nil || !strings.Contains(plain(m), "Ask vigil") {
		t.Error("the prompt stays after y")
	}

	m.Update(eventsMsg{approvalRequest("c2", "edit", `{"path":"main.go","old_text":"a := 1\nb := 2","new_text":"a := 3"}`)})
	assertContains(t, plain(m), "Allow edit of main.go?", "@@ main.go @@", "-a := 1", "-b := 2", "+a := 3", "a allow edit for this session")
	press(m, "a")

	m.Update(eventsMsg{agent.Event{Type: agent.EventSubagent, SubagentID: "task-1", Subagent: &agent.Event{Type: agent.EventApprovalRequest, ToolCallID: "c3", Tool: "write", Arguments: json.RawMessage(`{"path":"new.txt","content":"line one\nline two\n"}`)}}})
	assertContains(t, plain(m), "Allow write of new.txt? (subagent task-1)", "+line one", "+line two")
	press(m, "n")

	// The diff the tool computed wins over the arguments; a call that
	// would fail says why.
	diff := agent.Event{Type: agent.EventApprovalRequest, ToolCallID: "c5", Tool: "write", Arguments: json.RawMessage(`{"path":"x.txt","content":"new"}`),
		Details: &tools.Details{Path: "/w/x.txt", Diff: "--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-old line\n+new"}}
	m.Update(eventsMsg{diff})
	assertContains(t, plain(m), "Allow write of x.txt?", "@@ -1 +1 @@", "-old line", "+new")
	press(m, "y")
	m.Update(eventsMsg{agent.Event{Type: agent.EventApprovalRequest, ToolCallID: "c6", Tool: "edit", Arguments: json.RawMessage(`{"path":"a.txt","old_text":"zz","new_text":"y"}`), Text: "edit a.txt: old_text not found"}})
	assertContains(t, plain(m), "Allow edit of a.txt?", "it would fail: edit a.txt: old_text not found")
	press(m, "n")

	// An interrupt ends the wait: the end event closes the prompt.
	m.Update(eventsMsg{approvalRequest("c4", "bash", `{"command":"sleep 1"}`)})
	m.Update(eventsMsg{agent.Event{Type: agent.EventApprovalEnd, ToolCallID: "c4", Tool: "bash", Reason: agent.InterruptUser}})
	if m.approval != nil {
		t.Error("the prompt stays after approval_end")
	}
	want := []string{"answer:c1:once", "answer:c2:always", "answer:c3:deny", "answer:c5:once", "answer:c6:deny"}
	if got := app.Calls(); !slices.Equal(got, want) {
		t.Errorf("answers %v, want %v", got, want)
	}
}

// TestApprovalPromptSmallWindow: the prompt never makes the frame
// larger than the window, however long the change.
func TestApprovalPromptSmallWindow(t *testing.T) {
	m := newTestModel(t, &fakeApp{status: sampleStatus()})
	long := strings.Repeat("line\n", 200)
	for _, size := range [][2]int{{30, 8}, {40, 12}, {80, 24}} {
		m.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		m.Update(eventsMsg{approvalRequest("c1", "write", `{"path":"big.txt","content":`+jsonString(long)+`}`)})
		checkSize(t, plain(m), size[0], size[1])
		assertContains(t, plain(m), "more lines")
	}
}

func jsonString(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestApprovalEscInterrupts: esc keeps its meaning while a call waits:
// it interrupts the run, which ends the wait.
func TestApprovalEscInterrupts(t *testing.T) {
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	app.setRunning(true)
	m.refresh()
	m.Update(eventsMsg{approvalRequest("c1", "bash", `{"command":"make"}`)})
	m.Update(tea.KeyPressMsg{Code: tea.KeyEscape})
	if got := app.Calls(); !slices.Equal(got, []string{"abort"}) {
		t.Errorf("esc while a call waits: %v, want abort", got)
	}
}

// TestApprovalFirstScreen: the first screen and the status line say
// which mode runs, and the risk of running tools unasked.
func TestApprovalFirstScreen(t *testing.T) {
	for mode, want := range map[string][]string{
		"auto": {"approval: Tools run unasked", "start vigil with --approval ask", "tools run unasked"},
		"ask":  {"approval: vigil asks before bash, write and edit run", "approval ask"},
	} {
		app := &fakeApp{}
		m := New(app, Options{Approval: mode, Cwd: t.TempDir(), Env: []string{"NO_COLOR=1"}})
		m.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
		assertContains(t, plain(m), want...)
	}
}
