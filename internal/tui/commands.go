package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/vigil-dev/vigil/internal/commands"
)

// pickSessionsMsg opens the /resume picker (--resume with no id).
type pickSessionsMsg struct{}

// command runs a slash command line. The UI's own (/help, /quit,
// /resume, the advisor's panel and clipboard, the pickers) are handled
// here; the others go to the shared registry, run off the UI's loop.
func (m *Model) command(line string) tea.Cmd {
	name, args := commands.Parse(line)
	switch {
	case name == "quit" || name == "exit":
		return tea.Quit
	case name == "help":
		m.overlay = m.helpOverlay()
		return nil
	case name == "advisor" && args == "status":
		m.overlay = &overlay{title: "advisor status", text: statusPanel(m.app.AdvisorStatus())}
		return nil
	case name == "advisor" && (args == "dump" || args == "dump raw"):
		return m.copyDump(args == "dump raw")
	case name == "model" && args == "":
		return m.openModelPicker()
	case name == "resume":
		if args == "" {
			return m.openSessionPicker()
		}
		return m.switchSession(args)
	case name == "compact":
		if m.Running() {
			m.tr.fail("/compact: a turn is running; wait for idle or interrupt it first")
			return nil
		}
		return m.start(func(ctx context.Context) error { return m.app.Compact(ctx, args) })
	}
	if _, ok := m.reg.Lookup(name); !ok {
		m.tr.fail(fmt.Sprintf("unknown command /%s (try /help)", name))
		return nil
	}
	return func() tea.Msg {
		reply, err := m.app.Command(context.Background(), line)
		return commandDoneMsg{line: line, reply: reply, err: err, reload: changesSession(name)}
	}
}

// changesSession reports whether the command switches or rewrites the
// session, so the transcript is read again.
func changesSession(name string) bool {
	switch name {
	case "new", "branch", "fork":
		return true
	}
	return false
}

func (m *Model) openModelPicker() tea.Cmd {
	cur := m.status.Model
	var items []pickItem
	for _, ref := range m.app.Models() {
		label := ref
		if ref == cur {
			label += "  (current)"
		}
		items = append(items, pickItem{label: label, value: ref})
	}
	m.overlay = &overlay{title: "switch model", items: items, pick: func(ref string) tea.Cmd {
		return m.command("/model " + ref)
	}}
	return nil
}

func (m *Model) openSessionPicker() tea.Cmd {
	list, err := m.app.Sessions()
	if err != nil && len(list) == 0 {
		m.tr.fail("/resume: " + err.Error())
		return nil
	}
	var items []pickItem
	now := m.now()
	for _, s := range list {
		title := s.Title
		if title == "" {
			title = "(no prompt yet)"
		}
		if s.Current {
			title += "  (open now)"
		}
		label := fmt.Sprintf("%-12s %8s  %s  %s", Age(now.Sub(s.Modified)), fmt.Sprintf("$%.2f", s.Cost), oneLine(title, 70), s.ID)
		items = append(items, pickItem{label: label, value: s.ID})
	}
	m.overlay = &overlay{title: "resume a session of this folder", items: items, pick: m.switchSession}
	return nil
}

func (m *Model) switchSession(id string) tea.Cmd {
	if m.Running() {
		m.tr.fail("/resume: a turn is running; wait for idle or interrupt it first")
		return nil
	}
	return func() tea.Msg {
		if err := m.app.SwitchSession(id); err != nil {
			return commandDoneMsg{err: fmt.Errorf("/resume: %w", err)}
		}
		return commandDoneMsg{reply: "resumed session " + id, reload: true}
	}
}

// copyDump shows the advisor's transcript in a panel and copies it to
// the clipboard: OSC 52, which reaches the local clipboard through SSH
// and tmux when the terminal allows it, and the system's clipboard tool
// when there is one. What the copy did is said above the text and in the
// transcript; a copy no tool confirmed is not called copied.
func (m *Model) copyDump(raw bool) tea.Cmd {
	text := m.app.AdvisorTranscript(raw)
	if strings.TrimSpace(text) == "" {
		m.tr.info("the advisor's transcript is empty")
		return nil
	}
	clip := m.opts.Clipboard
	if clip == nil {
		clip = SystemClipboard
	}
	what := "the advisor's transcript"
	if raw {
		what += " (raw)"
	}
	size := Plural(countLines(text), "line") + ", " + Plural(len(text), "byte")
	m.overlay = &overlay{title: what, text: text, dump: true}
	return tea.Batch(tea.SetClipboard(text), func() tea.Msg {
		how, err := clip(text)
		switch {
		case err != nil:
			return copiedMsg{text: fmt.Sprintf("could not copy %s (%s): %s failed: %v; it was also sent with OSC 52, which your terminal may refuse (tmux: set -g set-clipboard on)", what, size, how, err)}
		case how == "":
			return copiedMsg{text: fmt.Sprintf("sent %s (%s) to the terminal's clipboard with OSC 52; if your terminal refuses clipboard writes nothing was copied (tmux: set -g set-clipboard on)", what, size)}
		}
		return copiedMsg{text: fmt.Sprintf("copied %s (%s) to the clipboard (OSC 52 and %s)", what, size, how)}
	})
}

// SystemClipboard copies text with the desktop's clipboard tool:
// wl-copy on Wayland, xclip or xsel on X11, pbcopy on macOS. It returns
// the tool's name, or "" when there is none.
func SystemClipboard(text string) (string, error) {
	var cands [][]string
	switch {
	case runtime.GOOS == "darwin":
		cands = [][]string{{"pbcopy"}}
	case os.Getenv("WAYLAND_DISPLAY") != "":
		cands = [][]string{{"wl-copy"}}
	case os.Getenv("DISPLAY") != "":
		cands = [][]string{{"xclip", "-selection", "clipboard"}, {"xsel", "--clipboard", "--input"}}
	}
	for _, c := range cands {
		path, err := exec.LookPath(c[0])
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		cmd := exec.CommandContext(ctx, path, c[1:]...)
		cmd.Stdin = strings.NewReader(text)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err = cmd.Run()
		cancel()
		if err != nil {
			if msg := strings.TrimSpace(stderr.String()); msg != "" {
				err = errors.New(oneLine(msg, 200))
			}
			return c[0], err
		}
		return c[0], nil
	}
	return "", nil
}
