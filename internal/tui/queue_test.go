package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// TestQueuedMessagesShown: a steer and a follow-up sent while a run goes
// show above the editor with their text until the agent takes each.
func TestQueuedMessagesShown(t *testing.T) {
	app := &fakeApp{status: sampleStatus(), state: agent.State{Running: true}}
	m := newTestModel(t, app)
	press(m, "look at calc.go", "enter")
	press(m, "then commit", "alt+enter")
	app.mu.Lock()
	app.state.QueuedSteers, app.state.QueuedFollowUps = 1, 1
	app.mu.Unlock()
	m.Update(eventsMsg{})
	assertContains(t, plain(m), "⧗ steer › look at calc.go", "⧗ follow-up › then commit", "2 queued")

	steer := session.Entry{ID: "s1", Body: &session.Message{Message: llm.UserText("look at calc.go")}}
	app.mu.Lock()
	app.state.QueuedSteers = 0
	app.mu.Unlock()
	m.Update(eventsMsg{{Type: agent.EventSteerDelivered, Entry: &steer}})
	f := plain(m)
	assertContains(t, f, "steer › look at calc.go", "⧗ follow-up › then commit")
	if strings.Contains(f, "⧗ steer") {
		t.Errorf("a delivered steer is still queued:\n%s", f)
	}

	app.mu.Lock()
	app.state = agent.State{}
	app.mu.Unlock()
	m.Update(eventsMsg{})
	if f := plain(m); strings.Contains(f, "⧗") {
		t.Errorf("queued messages shown with none queued:\n%s", f)
	}
}

// TestRunningToolSpinnerAndElapsed: a running tool call shows a spinner
// and how long it has run, advanced each second; once done, neither.
func TestRunningToolSpinnerAndElapsed(t *testing.T) {
	app := &fakeApp{status: sampleStatus(), state: agent.State{Running: true}}
	m := newTestModel(t, app)
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	m.now = func() time.Time { return now }
	m.Update(eventsMsg{{Type: agent.EventToolStart, ToolCallID: "t1", Tool: "bash", Arguments: []byte(`{"command":"make"}`)}})
	assertContains(t, plain(m), "⠋ bash make")
	now = now.Add(12 * time.Second)
	m.Update(tickMsg{})
	assertContains(t, plain(m), "⠙ bash make · 12s")
	m.Update(eventsMsg{toolEnd("t1", "built", 0)})
	f := plain(m)
	assertContains(t, f, "✓ bash make")
	if strings.Contains(f, "12s") {
		t.Errorf("a finished call still shows its running time:\n%s", f)
	}
}

// TestShellCommand: !command runs the command through the app, shows it
// as a running call, then with its output and exit code once the session
// records it; while a run goes it is refused.
func TestShellCommand(t *testing.T) {
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	cmds := press(m, "!make test", "enter")
	assertContains(t, plain(m), "⠋ ! make test")
	runCmd(m, cmds[len(cmds)-1])
	if got := app.Calls(); len(got) != 1 || got[0] != "shell:make test" {
		t.Fatalf("calls %q, want shell:make test", got)
	}
	code := 2
	raw, _ := json.Marshal(agent.ShellDetails{Command: "make test", ResultDetails: agent.ResultDetails{Details: tools.Details{ExitCode: &code}}})
	m.Update(eventsMsg{{Type: agent.EventCustomAppended, Entry: &session.Entry{ID: "x1", Body: &session.Custom{CustomType: agent.CustomShell, Display: true, InContext: true,
		Details: raw, Content: []llm.Block{llm.Text("The user ran a command in the terminal:\n$ make test\nFAIL: TestX\n[exit code 2]")}}}}})
	f := plain(m)
	assertContains(t, f, "✗ ! make test", "exit 2", "FAIL: TestX")
	if strings.Count(f, "! make test") != 1 || strings.Contains(f, "The user ran") {
		t.Errorf("the command shows twice or with the model's header:\n%s", f)
	}

	app.setRunning(true)
	m.refresh()
	press(m, "!ls", "enter")
	assertContains(t, plain(m), "!ls: a turn is running")
}
