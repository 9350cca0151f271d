package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// overlay is a panel over the transcript: text to read (help, the
// advisor's status) or a list to pick from (/model, /resume).
type overlay struct {
	title string
	// text is a reading panel's content; scroll its first shown line.
	text   string
	scroll int
	// dump marks the advisor's transcript panel, which the copy's outcome
	// heads when it arrives.
	dump bool
	// A picker: its items, the filter typed, the selection, and what
	// picking does.
	items  []pickItem
	filter string
	sel    int
	pick   func(value string) tea.Cmd
}

type pickItem struct{ label, value string }

// shown are the picker's items that match the filter.
func (o *overlay) shown() []pickItem {
	if o.filter == "" {
		return o.items
	}
	var out []pickItem
	f := strings.ToLower(o.filter)
	for _, it := range o.items {
		if strings.Contains(strings.ToLower(it.label), f) {
			out = append(out, it)
		}
	}
	return out
}

// overlayKey handles a key while an overlay is open.
func (m *Model) overlayKey(k tea.KeyPressMsg) tea.Cmd {
	o := m.overlay
	s := k.String()
	switch s {
	case "esc", "ctrl+c", "q":
		if o.pick == nil || s != "q" {
			m.overlay = nil
			return nil
		}
	}
	if o.pick == nil {
		switch s {
		case "up", "k":
			o.scroll = max(0, o.scroll-1)
		case "down", "j":
			o.scroll++
		case "pgup":
			o.scroll = max(0, o.scroll-(m.transcriptHeight()-3))
		case "pgdown", "space":
			o.scroll += m.transcriptHeight() - 3
		case "enter":
			m.overlay = nil
		}
		return nil
	}
	items := o.shown()
	switch s {
	case "up":
		o.sel = max(0, o.sel-1)
	case "down":
		o.sel = min(len(items)-1, o.sel+1)
	case "enter":
		m.overlay = nil
		if o.sel < len(items) {
			return o.pick(items[o.sel].value)
		}
	case "backspace":
		if r := []rune(o.filter); len(r) > 0 {
			o.filter = string(r[:len(r)-1])
			o.sel = 0
		}
	default:
		if k.Text != "" {
			o.filter += k.Text
			o.sel = 0
		}
	}
	return nil
}

// view renders the overlay in width × h.
func (o *overlay) view(m *Model, width, h int) string {
	t := m.theme
	inner := max(width-4, 10)
	var body []string
	if o.pick == nil {
		lines := strings.Split(wrap(o.text, inner), "\n")
		o.scroll = min(o.scroll, max(len(lines)-(h-3), 0))
		body = lines[o.scroll:]
	} else {
		body = append(body, t.dim.Render("filter: ")+o.filter+"▏")
		items := o.shown()
		first := max(0, o.sel-(h-6))
		for i := first; i < len(items); i++ {
			row := "  " + items[i].label
			if i == o.sel {
				row = t.statusHi.Render("▸ " + items[i].label)
			}
			body = append(body, ansi.Truncate(row, inner, "…"))
		}
		if len(items) == 0 {
			body = append(body, t.dim.Render("  nothing matches"))
		}
	}
	if len(body) > h-3 {
		body = body[:max(h-3, 0)]
	}
	hint := "esc closes"
	if o.pick != nil {
		hint = "type to filter · ↑↓ · enter picks · esc closes"
	} else {
		hint = "↑↓ pgup pgdn scroll · esc closes"
	}
	box := t.panelBorder.Width(width).Render(t.statusHi.Render(o.title) + "\n" + strings.Join(body, "\n") + "\n" + t.dim.Render(hint))
	lines := strings.Split(box, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// keyHelp lists the UI's keys for ? and /help.
var keyHelp = [][2]string{
	{"enter", "send; while a run goes, steer it (delivered at the next step)"},
	{"!command", "run the command now, without the model; the model reads it next"},
	{"alt+enter", "queue a follow-up for the end of the run"},
	{"ctrl+j, shift+enter, \\ enter", "new line"},
	{"esc", "interrupt the run (advice raised meanwhile waits as a card)"},
	{". or c, then enter", "continue a stopped run"},
	{"↑ ↓", "history (on the first or last line)"},
	{"tab", "complete a /command or an @file"},
	{"pgup pgdn, shift+↑↓", "scroll the transcript; ctrl+end back to the end"},
	{"ctrl+o", "expand or fold tool output and long notes"},
	{"ctrl+t", "show or hide thinking"},
	{"ctrl+c", "clear the input; interrupt; twice on an empty input quits"},
	{"ctrl+d", "quit (on an empty input)"},
}

// helpOverlay is ? and /help: the keys and the commands.
func (m *Model) helpOverlay() *overlay {
	var b strings.Builder
	b.WriteString("Keys\n")
	for _, k := range keyHelp {
		fmt.Fprintf(&b, "  %-28s %s\n", k[0], k[1])
	}
	b.WriteString("\nCommands\n")
	for _, c := range m.reg.Commands() {
		usage := "/" + c.Name
		if c.Args != "" {
			usage += " " + c.Args
		}
		fmt.Fprintf(&b, "  %-28s %s\n", usage, c.Help)
	}
	fmt.Fprintf(&b, "  %-28s %s\n", "/resume [ID]", "switch to another session of this folder (a picker without ID)")
	fmt.Fprintf(&b, "  %-28s %s\n", "/quit", "leave vigil")
	return &overlay{title: "vigil: keys and commands", text: b.String()}
}
