package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/vigil-dev/vigil/agent"
)

// TestInlinePrintsFinishedBlocksOnce: in the inline mode, the finished
// blocks are printed once, in order, and leave the frame; a running tool
// stays in the frame until it ends.
func TestInlinePrintsFinishedBlocksOnce(t *testing.T) {
	app := &fakeApp{entries: sampleEntries(), status: sampleStatus()}
	m := New(app, Options{Cwd: t.TempDir(), Env: []string{"NO_COLOR=1"}, Inline: true})
	_, cmd := m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if m.View().AltScreen {
		t.Error("the inline mode takes the alternate screen")
	}
	if cmd == nil || m.printed != len(m.tr.blocks) || !m.printing {
		t.Fatalf("after the first update: printed %d of %d blocks, printing %v", m.printed, len(m.tr.blocks), m.printing)
	}
	if f := plain(m); strings.Contains(f, "Fix the failing test") {
		t.Errorf("a printed block is still in the frame:\n%s", f)
	}
	// A second print waits for the first.
	m.Update(eventsMsg{{Type: agent.EventToolStart, ToolCallID: "t9", Tool: "bash", Arguments: []byte(`{"command":"sleep 1"}`)}})
	m.Update(eventsMsg{toolEnd("t9", "slept", 0)})
	if m.flush() != nil {
		t.Fatal("a second print went out before the first was done")
	}
	_, cmd = m.Update(printedMsg{})
	if cmd == nil || m.printed != len(m.tr.blocks) {
		t.Fatalf("after the first print: printed %d of %d", m.printed, len(m.tr.blocks))
	}
	// A running tool stays in the frame.
	m.Update(printedMsg{})
	m.Update(eventsMsg{{Type: agent.EventToolStart, ToolCallID: "t10", Tool: "bash", Arguments: []byte(`{"command":"make"}`)}})
	if f := plain(m); !strings.Contains(f, "bash make") {
		t.Errorf("the running tool is not in the frame:\n%s", f)
	}
	if m.printed != len(m.tr.blocks)-1 {
		t.Errorf("the running tool was printed")
	}
}

// TestInlinePrintsASwitchedSession: after /resume switches sessions, the
// inline mode prints the new session's history into the scrollback.
func TestInlinePrintsASwitchedSession(t *testing.T) {
	app := &fakeApp{status: sampleStatus(), sessions: []SessionInfo{{ID: "s2", Title: "other"}}}
	m := New(app, Options{Cwd: t.TempDir(), Env: []string{"NO_COLOR=1"}, Inline: true})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	m.Update(printedMsg{})
	app.entries = sampleEntries()
	m.Update(commandDoneMsg{reply: "resumed session s2", reload: true})
	if m.printed != len(m.tr.blocks) {
		t.Errorf("after the switch %d of %d blocks were printed, want all of the new session's", m.printed, len(m.tr.blocks))
	}
}
