package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// pasteSettle is how long after a paste ends the keys that follow are
// held, in case they are the paste's own. A terminal sends a paste in
// one burst; a user's next key comes far later.
const pasteSettle = 250 * time.Millisecond

// pasteGuard keeps a paste text, whatever it holds. A terminal brackets
// a paste with ESC[200~ and ESC[201~, and most pass an ESC[201~ inside
// the pasted text on as it is: pasting x ESC[201~ CR INJECTED CR (from a
// web page, a file, a chat) reaches the UI as a paste of "x", its end,
// an Enter, the keys of INJECTED, an Enter, and then the terminal's own
// end, a stray one. Acted on, the first Enter would send "x" and the
// second the rest, as a steer of a running agent, without the user
// pressing a key.
//
// So once a paste ends, the keys that follow are held, not acted on. A
// stray end of paste, or the start of another paste (pasted text that
// reopens one), shows they were the paste's: they join the editor as
// text, an Enter as a line break. When neither comes within
// pasteSettle, they were the user's, typed after the paste, and are
// replayed in order.
type pasteGuard struct {
	inPaste bool
	// holding is set from a paste's end until it settles.
	holding bool
	held    []tea.KeyPressMsg
	// seq numbers the pastes, so that a settle timer of an earlier one
	// does nothing.
	seq int
}

// pasteSettledMsg is the end of the wait after paste seq.
type pasteSettledMsg struct{ seq int }

// pasteStart handles the start of a paste: held keys before it were the
// paste's (they came in its burst).
func (m *Model) pasteStart() {
	if m.pg.holding {
		m.releaseAsText()
	}
	m.pg.inPaste = true
}

// pasteEnd handles an end of paste: the paste's own, which starts the
// hold, or a stray one, which shows the held keys were pasted.
func (m *Model) pasteEnd() tea.Cmd {
	if !m.pg.inPaste {
		if m.pg.holding {
			m.releaseAsText()
		}
		return nil
	}
	m.pg.inPaste = false
	m.pg.holding = true
	m.pg.seq++
	seq := m.pg.seq
	return tea.Tick(pasteSettle, func(time.Time) tea.Msg { return pasteSettledMsg{seq} })
}

// pasteSettled ends the hold of paste msg.seq, if it is still on: the
// held keys were typed, and are replayed.
func (m *Model) pasteSettled(msg pasteSettledMsg) tea.Cmd {
	if !m.pg.holding || msg.seq != m.pg.seq {
		return nil
	}
	held := m.pg.held
	m.pg.holding, m.pg.held = false, nil
	var cmds []tea.Cmd
	for _, k := range held {
		cmds = append(cmds, m.key(k))
	}
	return tea.Batch(cmds...)
}

// holdKey holds k if a paste has not settled; it reports whether it
// did.
func (m *Model) holdKey(k tea.KeyPressMsg) bool {
	if !m.pg.holding {
		return false
	}
	m.pg.held = append(m.pg.held, k)
	return true
}

// releaseAsText puts the held keys into the editor as the pasted text
// they were, and ends the hold.
func (m *Model) releaseAsText() {
	var text []rune
	for _, k := range m.pg.held {
		switch {
		case k.Text != "":
			text = append(text, []rune(k.Text)...)
		case k.Code == tea.KeyEnter && k.Mod == 0:
			text = append(text, '\n')
		case k.Code == tea.KeyTab && k.Mod == 0:
			text = append(text, '\t')
		}
	}
	m.pg.holding, m.pg.held = false, nil
	if len(text) > 0 && m.overlay == nil {
		m.paste(string(text))
	}
}
