package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// A request a blocker aborted: the reply streamed so far goes, the
// marker shows, and the reply to the request sent again streams anew.
func TestRequestAbortedDropsTheStream(t *testing.T) {
	m := New(&fakeApp{status: sampleStatus()}, Options{Cwd: t.TempDir()})
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	m.Update(eventsMsg{{Type: agent.EventMessageDelta, Delta: agent.DeltaText, Text: "I will delete the tests"}})
	assertContains(t, plain(m), "I will delete the tests")
	marker := session.Entry{ID: "7", Body: &session.Custom{
		CustomType: agent.CustomRequestAborted, Display: true,
		Content: []llm.Block{llm.Text("[model request aborted: a steering message arrived]")},
	}}
	m.Update(eventsMsg{
		{Type: agent.EventRequestAborted, Entry: &marker, Reason: agent.InterruptSteer},
		{Type: agent.EventMessageDelta, Delta: agent.DeltaText, Text: "I will fix the test"},
	})
	f := plain(m)
	if strings.Contains(f, "delete the tests") {
		t.Errorf("the aborted reply is still shown:\n%s", f)
	}
	assertContains(t, f, "model request aborted")
	assertContains(t, f, "I will fix the test")
}
