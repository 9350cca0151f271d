package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The inline mode (Options.Inline) draws the UI in the terminal's normal
// screen, not the alternate one: each finished block of the transcript is
// printed once above the UI, into the terminal's scrollback, where it
// stays after vigil exits; the UI below shows only what is still changing
// (a streaming reply, a running tool), the editor and the status line.

// printedMsg says a print into the scrollback went out: the next may go.
type printedMsg struct{}

// finished reports whether b no longer changes.
func finished(b *block) bool {
	if b.kind == kindTool {
		return b.done
	}
	return !b.streaming
}

// flush prints the finished blocks not printed yet, in one print, one at
// a time so that they reach the scrollback in order; nil when there is
// nothing to print or a print is on its way.
func (m *Model) flush() tea.Cmd {
	if !m.opts.Inline || m.printing {
		return nil
	}
	var lines []string
	for m.printed < len(m.tr.blocks) && finished(m.tr.blocks[m.printed]) {
		lines = append(lines, m.r.lines(m.tr.blocks[m.printed], m.width, m.flags)...)
		lines = append(lines, "")
		m.printed++
	}
	if len(lines) == 0 {
		return nil
	}
	m.printing = true
	return tea.Sequence(tea.Println(strings.Join(lines, "\n")), func() tea.Msg { return printedMsg{} })
}

// reloaded keeps the inline mode's count of printed blocks true after the
// transcript was rebuilt from the session: what is finished counts as
// printed (it was, or is history the scrollback already has).
func (m *Model) reloaded() {
	m.printed = 0
	for m.printed < len(m.tr.blocks) && finished(m.tr.blocks[m.printed]) {
		m.printed++
	}
}

// inlineLines are the blocks not printed yet, whole, at most h lines (the
// last ones).
func (m *Model) inlineLines(h int) []string {
	var out []string
	for i := m.printed; i < len(m.tr.blocks); i++ {
		if len(out) > 0 {
			out = append(out, "")
		}
		out = append(out, m.r.lines(m.tr.blocks[i], m.width, m.flags)...)
	}
	if len(out) > h {
		out = out[len(out)-h:]
	}
	for k, l := range out {
		if ansi.StringWidth(l) > m.width {
			out[k] = ansi.Truncate(l, m.width, "")
		}
	}
	return out
}
