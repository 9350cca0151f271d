package tui

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
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
