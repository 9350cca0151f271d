package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/session"
)

// queuedMsg is a message the user sent while a run went, not delivered
// yet: a steer (at the next step) or a follow-up (when the turn ends).
type queuedMsg struct{ label, text string }

// queue notes a message sent while a run goes, so that it shows above
// the editor until the agent takes it.
func (m *Model) queue(label, text string) {
	m.queued = append(m.queued, queuedMsg{label: label, text: text})
}

// delivered drops the queued message an event says the agent took; when
// the agent holds none any more, none is shown.
func (m *Model) delivered(ev agent.Event) {
	if ev.Type != agent.EventSteerDelivered && ev.Type != agent.EventFollowUpDelivered && ev.Type != agent.EventTurnStart {
		return
	}
	if ev.Entry == nil {
		return
	}
	msg, ok := ev.Entry.Body.(*session.Message)
	if !ok {
		return
	}
	text := strings.TrimSpace(msg.Message.Text())
	for i, q := range m.queued {
		if q.text == text {
			m.queued = append(m.queued[:i:i], m.queued[i+1:]...)
			return
		}
	}
}

// queuedLines are the queued messages as the UI shows them, one line
// each.
func (m *Model) queuedLines() []string {
	if len(m.queued) == 0 {
		return nil
	}
	out := make([]string, len(m.queued))
	for i, q := range m.queued {
		out[i] = ansi.Truncate(m.theme.dim.Render("⧗ "+q.label+" › "+oneLine(q.text, m.width)), m.width, "…")
	}
	return out
}
