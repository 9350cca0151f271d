package tui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/commands"
)

// The messages the UI sends itself.
type (
	// turnDoneMsg ends the turn (or compaction) the UI started.
	turnDoneMsg struct{ err error }
	// commandDoneMsg is a slash command's reply.
	commandDoneMsg struct {
		line, reply string
		err         error
		reload      bool
	}
	// copiedMsg reports a copy to the clipboard.
	copiedMsg struct{ text string }
	// tickMsg refreshes the status line.
	tickMsg struct{}
)

// Model is the UI's state: the transcript, the editor, the status line
// and whatever overlay is open. It is driven by bubbletea; tests drive
// it directly with messages.
type Model struct {
	app   App
	opts  Options
	reg   *commands.Registry
	theme *theme
	r     *renderer
	tr    *transcript
	ed    textarea.Model

	width, height int
	// scroll is how many lines the transcript is scrolled up from its
	// end; 0 follows new output.
	scroll int
	flags  int

	status Status
	state  agent.State
	// turn is the run or compaction the UI started; nil when none.
	turn *runningTurn
	wg   sync.WaitGroup

	overlay *overlay
	comp    completion
	hist    history
	pastes  []string
	pg      pasteGuard
	files   *fileIndex
	// quitArmed is set by a ctrl+c on an idle, empty editor; a second
	// one quits.
	quitArmed bool
	// send posts a message to the program (set by Run; tests set their
	// own).
	send func(tea.Msg)
	// now is the clock (tests fix it).
	now func() time.Time

	// approval is the tool call waiting for the user's answer; nil when
	// none waits.
	approval *pendingApproval
	// printed counts the blocks the inline mode printed into the
	// scrollback; printing says a print is on its way.
	printed  int
	printing bool
	// queued are the messages sent while a run goes that the agent has
	// not taken yet.
	queued []queuedMsg
}

type runningTurn struct {
	cancel context.CancelCauseFunc
}

// New makes the UI's model for app.
func New(app App, o Options) *Model {
	if o.Commands == nil {
		o.Commands = commands.New()
	}
	plain := os.Getenv("NO_COLOR") != ""
	for _, kv := range o.Env {
		if v, ok := strings.CutPrefix(kv, "NO_COLOR="); ok && v != "" {
			plain = true
		}
	}
	m := &Model{app: app, opts: o, reg: o.Commands, tr: newTranscript(), width: 80, height: 24, now: time.Now}
	m.setTheme(true, plain)
	m.ed = newEditor()
	m.ed.Focus()
	m.files = newFileIndex(o.Cwd)
	m.tr.load(app.Entries())
	m.hist.seed(m.tr)
	for _, n := range o.Intro {
		m.tr.info(n)
	}
	for _, n := range o.Notices {
		m.tr.add(&block{kind: kindError, text: n})
	}
	if notice := approvalNotice(o.Approval); notice != "" {
		m.tr.add(&block{kind: kindInfo, label: "approval", text: notice})
	}
	m.refresh()
	m.layout()
	return m
}

func (m *Model) setTheme(dark, plain bool) {
	m.theme = newTheme(dark, plain)
	m.r = newRenderer(m.theme)
	for _, b := range m.tr.blocks {
		b.changed()
		b.md, b.mdUpTo = nil, 0
	}
}

// Running reports whether a run is going: one the UI started or one the
// advisor resumed.
func (m *Model) Running() bool { return m.turn != nil || m.state.Running }

// Init starts the status refresh, asks the terminal for its background,
// and sends the start prompt.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, tick()}
	if m.opts.PickSession {
		cmds = append(cmds, func() tea.Msg { return pickSessionsMsg{} })
	}
	if p := strings.TrimSpace(m.opts.Prompt); p != "" {
		cmds = append(cmds, m.submit(p, false))
	}
	return tea.Batch(cmds...)
}

func tick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

// Update applies one message; in the inline mode, it then prints what
// finished into the scrollback.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(printedMsg); ok {
		m.printing = false
	}
	_, cmd := m.update(msg)
	if p := m.flush(); p != nil {
		cmd = tea.Batch(cmd, p)
	}
	return m, cmd
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case printedMsg:
		return m, nil
	case tea.WindowSizeMsg:
		m.width, m.height = max(msg.Width, 20), max(msg.Height, 6)
		m.layout()
		return m, nil
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark(), m.theme.plain)
		return m, nil
	case eventsMsg:
		for _, ev := range msg {
			m.delivered(ev)
			if m.tr.event(ev) {
				m.tr.load(m.app.Entries())
				m.reloaded()
			}
			if b := m.tr.calls[ev.ToolCallID]; ev.Type == agent.EventToolStart && b != nil {
				b.started = m.now()
			}
			m.approvalEvent(ev)
		}
		m.refresh()
		if m.state.QueuedSteers+m.state.QueuedFollowUps == 0 {
			m.queued = nil
		}
		return m, nil
	case turnDoneMsg:
		m.turn = nil
		if msg.err != nil && !isAbort(msg.err) && !errors.Is(msg.err, agent.ErrAborted) {
			m.tr.fail(msg.err.Error())
		}
		m.refresh()
		return m, nil
	case commandDoneMsg:
		if msg.reload {
			// Another session or branch: in the inline mode it is printed
			// whole, below what the scrollback holds.
			m.tr.load(m.app.Entries())
			m.printed = 0
		}
		if msg.err != nil {
			m.tr.fail(msg.err.Error())
		} else if strings.TrimSpace(msg.reply) != "" {
			m.tr.info(msg.reply)
		}
		m.refresh()
		return m, nil
	case copiedMsg:
		m.tr.info(msg.text)
		if m.overlay != nil && m.overlay.dump {
			m.overlay.text = msg.text + "\n\n" + m.overlay.text
			m.overlay.dump = false
		}
		return m, nil
	case pickSessionsMsg:
		return m, m.openSessionPicker()
	case tickMsg:
		m.refresh()
		m.tickTools()
		return m, tick()
	case tea.PasteStartMsg:
		m.pasteStart()
		return m, nil
	case tea.PasteEndMsg:
		return m, m.pasteEnd()
	case pasteSettledMsg:
		return m, m.pasteSettled(msg)
	case tea.PasteMsg:
		if m.overlay != nil || msg.Content == "" {
			return m, nil
		}
		m.paste(msg.Content)
		return m, nil
	case tea.KeyPressMsg:
		if m.holdKey(msg) {
			return m, nil
		}
		return m, m.key(msg)
	}
	var cmd tea.Cmd
	m.ed, cmd = m.ed.Update(msg)
	return m, cmd
}

// tickTools advances the spinner and the elapsed time of the tool calls
// that run.
func (m *Model) tickTools() {
	now := m.now()
	for _, b := range m.tr.calls {
		if !b.done && !b.started.IsZero() {
			b.elapsed, b.spin = now.Sub(b.started), b.spin+1
			b.changed()
		}
	}
}

// refresh reads the status line's facts.
func (m *Model) refresh() {
	m.status = m.app.Status()
	m.state = m.app.State()
}

// key handles a key press: the overlay first, then the UI's keys, then
// the editor.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	s := k.String()
	if s != "ctrl+c" {
		m.quitArmed = false
	}
	if m.overlay != nil {
		return m.overlayKey(k)
	}
	if m.approval != nil {
		if cmd, handled := m.approvalKey(s); handled {
			return cmd
		}
	}
	switch s {
	case "ctrl+c":
		switch {
		case m.ed.Value() != "":
			m.ed.Reset()
			m.comp = completion{}
		case m.Running():
			m.interrupt()
		case m.quitArmed:
			return tea.Quit
		default:
			m.quitArmed = true
		}
		return nil
	case "ctrl+d":
		if m.ed.Value() == "" {
			return tea.Quit
		}
	case "esc":
		if m.comp.active() {
			m.comp = completion{}
			return nil
		}
		if m.Running() {
			m.interrupt()
		}
		return nil
	case "pgup":
		m.scroll += m.transcriptHeight() - 1
		return nil
	case "pgdown":
		m.scroll = max(0, m.scroll-(m.transcriptHeight()-1))
		return nil
	case "shift+up":
		m.scroll++
		return nil
	case "shift+down":
		m.scroll = max(0, m.scroll-1)
		return nil
	case "ctrl+end":
		m.scroll = 0
		return nil
	case "ctrl+o":
		m.flags ^= flagExpand
		return nil
	case "ctrl+t":
		m.flags ^= flagThinking
		return nil
	case "tab":
		if m.comp.active() {
			m.acceptCompletion()
			return nil
		}
	case "up", "down":
		if m.comp.active() {
			m.comp.move(s == "down")
			return nil
		}
		if m.historyKey(s == "up") {
			return nil
		}
	case "enter", "alt+enter":
		if m.comp.active() && m.comp.kind == compCommand && !strings.Contains(m.ed.Value(), " ") {
			m.acceptCompletion()
		}
		v := m.ed.Value()
		if strings.HasSuffix(v, "\\") && s == "enter" {
			m.ed.SetValue(strings.TrimSuffix(v, "\\") + "\n")
			return nil
		}
		text := m.expandPastes(v)
		m.ed.Reset()
		m.pastes = nil
		m.comp = completion{}
		m.layout()
		return m.submit(text, s == "alt+enter")
	case "?":
		if m.ed.Value() == "" {
			m.overlay = m.helpOverlay()
			return nil
		}
	}
	var cmd tea.Cmd
	m.ed, cmd = m.ed.Update(k)
	m.updateCompletion()
	m.layout()
	return cmd
}

// interrupt stops the run as the user's Esc: at once, without resuming;
// advice raised meanwhile waits as a card.
func (m *Model) interrupt() {
	if m.turn != nil {
		m.turn.cancel(agent.ErrAborted)
	}
	m.app.Abort()
}

// abortTurn stops the turn the UI started, when the UI closes.
func (m *Model) abortTurn() {
	if m.turn != nil {
		m.turn.cancel(agent.ErrAborted)
		m.app.Abort()
	}
}

// wait waits for the turn the UI started to end.
func (m *Model) wait() { m.wg.Wait() }

// submit sends what the user typed: a slash command, the continue
// shortcut, a steer or follow-up while a run goes, or a prompt.
func (m *Model) submit(text string, followUp bool) tea.Cmd {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil
	}
	m.hist.add(text)
	m.scroll = 0
	if strings.HasPrefix(text, "/") {
		return m.command(text)
	}
	if cmd, ok := strings.CutPrefix(text, "!"); ok && strings.TrimSpace(cmd) != "" {
		return m.shell(strings.TrimSpace(cmd))
	}
	if m.Running() {
		if followUp {
			m.app.FollowUp(text)
			m.queue("follow-up", text)
		} else {
			m.app.Steer(text, false)
			m.queue("steer", text)
		}
		m.refresh()
		return nil
	}
	if text == "." || text == "c" {
		return m.start(func(ctx context.Context) error { return m.app.Resume(ctx, "") })
	}
	return m.start(func(ctx context.Context) error {
		err := m.app.Prompt(ctx, text)
		if errors.Is(err, agent.ErrBusy) {
			// A run started meanwhile (the advisor resumed): it takes the
			// message as a steer.
			m.app.Steer(text, false)
			return nil
		}
		return err
	})
}

// shell runs !command: the command at once, with no model, shown as a
// running call until the session records it (a shell entry).
func (m *Model) shell(command string) tea.Cmd {
	if m.Running() {
		m.tr.fail("!" + command + ": a turn is running; wait for idle or interrupt it first")
		return nil
	}
	// A call id of the UI's own, so that the spinner turns for it.
	m.tr.add(&block{kind: kindTool, tool: "!", args: command, started: m.now(), callID: fmt.Sprintf("!%d", len(m.tr.blocks))})
	return m.start(func(ctx context.Context) error { return m.app.Shell(ctx, command) })
}

// start runs fn as the UI's turn; its end arrives as turnDoneMsg.
func (m *Model) start(fn func(ctx context.Context) error) tea.Cmd {
	ctx, cancel := context.WithCancelCause(context.Background())
	m.turn = &runningTurn{cancel: cancel}
	m.wg.Add(1)
	return func() tea.Msg {
		defer m.wg.Done()
		err := fn(ctx)
		cancel(nil)
		return turnDoneMsg{err: err}
	}
}

// View renders the frame: the transcript (or an overlay), completions,
// the editor and the status line.
func (m *Model) View() tea.View {
	v := tea.NewView(m.Frame())
	v.AltScreen = !m.opts.Inline
	v.WindowTitle = "vigil"
	return v
}

// Frame is the frame as text, for View and for tests.
func (m *Model) Frame() string {
	var parts []string
	h := m.transcriptHeight()
	switch {
	case m.overlay != nil && m.opts.Inline:
		parts = append(parts, m.overlay.view(m, m.width, min(h, 16)))
	case m.overlay != nil:
		parts = append(parts, m.overlay.view(m, m.width, h))
	case m.opts.Inline:
		if live := m.inlineLines(h); len(live) > 0 {
			parts = append(parts, strings.Join(live, "\n"))
		}
	default:
		parts = append(parts, strings.Join(m.transcriptLines(h), "\n"))
	}
	if q := m.queuedLines(); len(q) > 0 {
		parts = append(parts, strings.Join(q, "\n"))
	}
	if m.approval != nil {
		// The prompt takes the editor's place until it is answered.
		return strings.Join(append(parts, m.approvalLines(m.width, m.approvalMax())...), "\n") + "\n" + m.statusLines()
	}
	if pop := m.comp.view(m.theme, m.width); pop != "" {
		parts = append(parts, pop)
	}
	parts = append(parts, m.ed.View(), m.statusLines())
	return strings.Join(parts, "\n")
}

// layout sizes the editor for the window.
func (m *Model) layout() {
	m.ed.SetWidth(m.width)
	lines := min(max(m.ed.LineCount(), 1), max(m.height/3, 1), 8)
	m.ed.SetHeight(lines)
}

// transcriptHeight is the rows the transcript has.
func (m *Model) transcriptHeight() int {
	used := m.ed.Height() + len(m.statusRows()) + m.comp.height() + len(m.queued)
	if m.approval != nil {
		used = m.approvalHeight() + len(m.statusRows()) + len(m.queued)
	}
	return max(m.height-used, 1)
}

// transcriptLines renders the transcript's bottom h lines (scrolled up by
// m.scroll), rendering only the blocks that reach the screen.
func (m *Model) transcriptLines(h int) []string {
	need := h + m.scroll
	var chunks [][]string
	total := 0
	i := len(m.tr.blocks) - 1
	for ; i >= 0 && total < need; i-- {
		ls := m.r.lines(m.tr.blocks[i], m.width, m.flags)
		chunks = append(chunks, ls)
		total += len(ls) + 1
	}
	if i < 0 && total-1 < need {
		m.scroll = max(0, total-1-h) // scrolled past the top: stop there
	}
	out := make([]string, 0, total)
	for j := len(chunks) - 1; j >= 0; j-- {
		out = append(out, chunks[j]...)
		if j > 0 {
			out = append(out, "")
		}
	}
	end := len(out) - m.scroll
	start := max(end-h, 0)
	out = out[start:end]
	if len(out) < h {
		out = append(make([]string, h-len(out)), out...)
	}
	for k, l := range out {
		if ansi.StringWidth(l) > m.width {
			out[k] = ansi.Truncate(l, m.width, "")
		}
	}
	return out
}

// newEditor is the multi-line input: Enter sends, so a new line is
// ctrl+j or shift+enter (or a trailing backslash).
func newEditor() textarea.Model {
	ed := textarea.New()
	ed.Placeholder = "Ask vigil… (Enter sends, ctrl+j new line, ? help)"
	ed.ShowLineNumbers = false
	ed.Prompt = "> "
	ed.CharLimit = 0
	ed.MaxHeight = 0
	ed.KeyMap.InsertNewline.SetKeys("ctrl+j", "shift+enter")
	st := ed.Styles()
	st.Focused.CursorLine = lipgloss.NewStyle()
	ed.SetStyles(st)
	return ed
}
