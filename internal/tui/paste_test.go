package tui

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// injectedPaste is what a terminal sends when the user pastes text that
// itself holds the end-of-paste sequence (issue 28: printf
// 'x\033[201~\rINJECTED\r' copied from a web page or a file): the
// terminal's start, the text, and the terminal's own end after it. A
// decoder sees the paste end early, then an Enter, keys, another Enter
// and a stray end.
const injectedPaste = "\x1b[200~x\x1b[201~\rINJECTED\r\x1b[201~"

// recorder is a program's model that keeps the key and paste messages
// it gets, and quits after the quitAfter-th end of paste.
type recorder struct {
	msgs      []tea.Msg
	ends      int
	quitAfter int
}

func (r *recorder) Init() tea.Cmd  { return nil }
func (r *recorder) View() tea.View { return tea.NewView("") }
func (r *recorder) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case tea.KeyPressMsg, tea.PasteMsg, tea.PasteStartMsg:
		r.msgs = append(r.msgs, msg)
	case tea.PasteEndMsg:
		r.msgs = append(r.msgs, msg)
		if r.ends++; r.ends == r.quitAfter {
			return r, tea.Quit
		}
	}
	return r, nil
}

// decoded returns the messages Bubble Tea makes of input, as the UI gets
// them, up to its ends-th end of paste.
func decoded(t *testing.T, input string, ends int) []tea.Msg {
	t.Helper()
	r := &recorder{quitAfter: ends}
	p := tea.NewProgram(r, tea.WithInput(strings.NewReader(input)), tea.WithOutput(io.Discard), tea.WithoutSignals(), tea.WithWindowSize(80, 24))
	if _, err := p.Run(); err != nil {
		t.Fatal(err)
	}
	return r.msgs
}

// describe names messages in a line, for failures.
func describe(msgs []tea.Msg) string {
	var parts []string
	for _, m := range msgs {
		switch m := m.(type) {
		case tea.KeyPressMsg:
			parts = append(parts, "key "+m.String())
		case tea.PasteMsg:
			parts = append(parts, fmt.Sprintf("paste %q", m.Content))
		default:
			parts = append(parts, fmt.Sprintf("%T", m))
		}
	}
	return strings.Join(parts, ", ")
}

// feed sends msgs to m as the program would, and returns the commands
// m returned; none is run (a timer's message, pasteSettledMsg, the test
// delivers itself).
func feed(m *Model, msgs []tea.Msg) (cmds []tea.Cmd) {
	for _, msg := range msgs {
		_, cmd := m.Update(msg)
		cmds = append(cmds, cmd)
	}
	return cmds
}

// sent returns what the UI sent: the app's calls, and the text of a
// prompt it started (its run is a command, not run here).
func sent(m *Model, app *fakeApp) []string {
	got := app.Calls()
	if m.turn != nil {
		got = append(got, "started:"+m.hist.items[len(m.hist.items)-1])
	}
	return got
}

// Issue 28: pasted text that holds the end-of-paste sequence, then CR,
// sent its tail as a steer, without the user pressing Enter. A paste
// stays text: what the decoder makes of it (taken from Bubble Tea's own
// decoding of the bytes) puts the whole of it in the editor, CRs as line
// breaks, and sends nothing, whether the agent is running (a steer) or
// not (a prompt).
func TestPasteWithItsOwnEndStaysText(t *testing.T) {
	msgs := decoded(t, injectedPaste, 2)
	// What arrives: the early end, the Enter and keys, the stray end.
	if got := describe(msgs); !strings.Contains(got, `paste "x", tea.PasteEndMsg, key enter, key I,`) {
		t.Fatalf("decoded %s", got)
	}
	for _, running := range []bool{true, false} {
		t.Run(fmt.Sprintf("running %v", running), func(t *testing.T) {
			app := &fakeApp{status: sampleStatus()}
			app.setRunning(running)
			m := newTestModel(t, app)
			m.refresh()
			feed(m, msgs)
			if got := sent(m, app); len(got) != 0 {
				t.Errorf("sent %q, want nothing: the paste's CRs are text", got)
			}
			if v := m.ed.Value(); v != "x\nINJECTED\n" {
				t.Errorf("editor = %q, want the whole paste", v)
			}
			// The guard is over: Enter sends the paste, as the user's.
			runCmd(m, press(m, "enter")[0])
			want := "prompt:x\nINJECTED"
			if running {
				want = "steer:x\nINJECTED:false"
			}
			if got := app.Calls(); !slices.Equal(got, []string{want}) {
				t.Errorf("Enter sent %q, want %q", got, want)
			}
		})
	}
}

// The same injection with a paste start in place of the stray end (the
// pasted text opens a new paste that the terminal's end closes): the keys
// between are the paste's too.
func TestPasteWithItsOwnEndAndStart(t *testing.T) {
	msgs := decoded(t, "\x1b[200~x\x1b[201~\rINJECTED\r\x1b[200~y\x1b[201~", 2)
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	feed(m, msgs)
	if got := sent(m, app); len(got) != 0 {
		t.Errorf("sent %q, want nothing", got)
	}
	if v := m.ed.Value(); v != "x\nINJECTED\ny" {
		t.Errorf("editor = %q, want the whole paste", v)
	}
}

// What the user types after a paste is theirs: keys that come after the
// paste, with no second end of paste behind them, are replayed as typed
// once the paste has settled, Enter included.
func TestKeysAfterAPasteAreTyped(t *testing.T) {
	app := &fakeApp{status: sampleStatus()}
	m := newTestModel(t, app)
	cmds := feed(m, decoded(t, "\x1b[200~see this\x1b[201~", 1))
	var settle tea.Cmd
	for _, c := range cmds {
		if c != nil {
			settle = c
		}
	}
	if settle == nil {
		t.Fatal("the end of the paste started no settle timer")
	}
	press(m, " now", "enter")
	if got := sent(m, app); len(got) != 0 || m.ed.Value() != "see this" {
		t.Fatalf("before the paste settled: sent %q, editor %q; want the keys held", got, m.ed.Value())
	}
	// The timer's message, as the program would deliver it.
	m.Update(pasteSettledMsg{seq: m.pg.seq})
	if got := sent(m, app); !slices.Equal(got, []string{"started:see this now"}) {
		t.Errorf("sent %q, want the paste and the typed text", got)
	}
	// A settle that is not the last paste's changes nothing.
	press(m, "a")
	m.Update(pasteSettledMsg{seq: m.pg.seq - 1})
	if m.ed.Value() != "a" {
		t.Errorf("editor = %q", m.ed.Value())
	}
}
