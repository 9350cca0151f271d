package tui

import (
	"fmt"
	"image/color"
	"strings"
	"time"

	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// theme is the UI's styles for one background.
type theme struct {
	dark, plain bool

	user, userLabel, assistant, dim, thinking lipgloss.Style
	toolName, toolArgs, ok, bad, running      lipgloss.Style
	noteHead, info, errText, status, statusHi lipgloss.Style
	diffAdd, diffDel, diffHunk, panelBorder   lipgloss.Style
	severity                                  map[string]color.Color
}

// newTheme makes the styles for a dark or light background; plain (the
// NO_COLOR convention) keeps only bold and faint.
func newTheme(dark, plain bool) *theme {
	ld := lipgloss.LightDark(dark)
	c := func(light, darkC string) color.Color {
		if plain {
			return lipgloss.NoColor{}
		}
		return ld(lipgloss.Color(light), lipgloss.Color(darkC))
	}
	s := lipgloss.NewStyle
	t := &theme{dark: dark, plain: plain}
	t.user = s().Bold(true).Foreground(c("#1d4ed8", "#93c5fd"))
	t.userLabel = s().Foreground(c("#6b7280", "#9ca3af"))
	t.assistant = s()
	t.dim = s().Faint(true)
	t.thinking = s().Faint(true).Italic(true)
	t.toolName = s().Bold(true).Foreground(c("#7c3aed", "#c4b5fd"))
	t.toolArgs = s().Foreground(c("#374151", "#d1d5db"))
	t.ok = s().Foreground(c("#15803d", "#86efac"))
	t.bad = s().Foreground(c("#b91c1c", "#fca5a5"))
	t.running = s().Foreground(c("#b45309", "#fcd34d"))
	t.noteHead = s().Bold(true)
	t.info = s().Faint(true)
	t.errText = s().Foreground(c("#b91c1c", "#fca5a5")).Bold(true)
	t.status = s().Foreground(c("#374151", "#d1d5db"))
	t.statusHi = s().Bold(true).Foreground(c("#111827", "#f9fafb"))
	t.diffAdd = s().Foreground(c("#15803d", "#86efac"))
	t.diffDel = s().Foreground(c("#b91c1c", "#fca5a5"))
	t.diffHunk = s().Foreground(c("#0e7490", "#67e8f9"))
	t.panelBorder = s().Border(lipgloss.RoundedBorder()).BorderForeground(c("#6b7280", "#9ca3af")).Padding(0, 1)
	t.severity = map[string]color.Color{
		"blocker": c("#b91c1c", "#f87171"),
		"concern": c("#b45309", "#fbbf24"),
		"nit":     c("#6b7280", "#9ca3af"),
		"":        c("#0e7490", "#67e8f9"),
	}
	return t
}

// renderer renders blocks; it holds a markdown renderer per width, and
// the blocks whose rendering is cached, oldest first, so that scrolling
// through a long session keeps at most maxCached renderings.
type renderer struct {
	theme  *theme
	md     map[int]*glamour.TermRenderer
	cached []*block
}

// maxCached bounds the renderings kept: a few screens' worth.
const maxCached = 512

func newRenderer(t *theme) *renderer { return &renderer{theme: t, md: map[int]*glamour.TermRenderer{}} }

// view flags that change how blocks render.
const (
	flagExpand   = 1 << iota // tool results and notes in full
	flagThinking             // thinking in full
)

// lines is b rendered at width, cached.
func (r *renderer) lines(b *block, width, flags int) []string {
	if b.cache != nil && b.cacheWidth == width && b.cacheFlags == flags {
		return b.cache
	}
	s := r.render(b, width, flags)
	if b.cache == nil {
		r.cached = append(r.cached, b)
		if len(r.cached) > maxCached {
			old := r.cached[0]
			r.cached = r.cached[1:]
			if old != b {
				old.cache = nil
			}
		}
	}
	b.cache = strings.Split(strings.TrimRight(s, "\n"), "\n")
	b.cacheWidth, b.cacheFlags = width, flags
	return b.cache
}

func (r *renderer) render(b *block, width, flags int) string {
	t := r.theme
	switch b.kind {
	case kindUser:
		prefix := "› "
		if b.label != "" {
			prefix = b.label + " › "
		}
		return t.user.Render(prefix) + indentRest(wrap(b.text, width-ansi.StringWidth(prefix)), ansi.StringWidth(prefix))
	case kindAssistant:
		return r.markdown(b, width)
	case kindThinking:
		n := strings.Count(strings.TrimSpace(b.text), "\n") + 1
		if flags&flagThinking == 0 {
			return t.thinking.Render(fmt.Sprintf("∴ thinking (%s, ctrl+t shows)", Plural(n, "line")))
		}
		return t.thinking.Render("∴ " + indentRest(wrap(b.text, width-2), 2))
	case kindTool:
		return r.tool(b, width, flags)
	case kindNote:
		return r.note(b, width, flags)
	case kindError:
		return t.errText.Render("✗ " + indentRest(wrap(b.text, width-2), 2))
	default:
		text := b.text
		if b.label != "" {
			text = b.label + ": " + text
		}
		return t.info.Render("· " + indentRest(wrap(text, width-2), 2))
	}
}

// markdown renders assistant text. While it streams, the paragraphs that
// are complete are rendered once and kept; the last, growing one is
// wrapped as plain text until it is complete.
func (r *renderer) markdown(b *block, width int) string {
	if !b.streaming {
		return r.renderMarkdown(b.text, width)
	}
	stable := stablePrefix(b.text)
	if b.mdWidth != width || stable < b.mdUpTo {
		b.md, b.mdUpTo, b.mdWidth = nil, 0, width
	}
	if stable > b.mdUpTo {
		b.md = append(b.md, r.renderMarkdown(b.text[b.mdUpTo:stable], width))
		b.mdUpTo = stable
	}
	parts := append([]string(nil), b.md...)
	if tail := strings.TrimSpace(b.text[b.mdUpTo:]); tail != "" {
		parts = append(parts, indentAll(wrap(tail, width-2), 2))
	}
	return strings.Join(parts, "\n\n")
}

// stablePrefix is the end of the text's last complete paragraph: the last
// blank line outside a code fence.
func stablePrefix(s string) int {
	end, fence := 0, false
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			break
		}
		line := s[i : i+j]
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
		}
		if !fence && strings.TrimSpace(line) == "" {
			end = i + j + 1
		}
		i += j + 1
	}
	return end
}

func (r *renderer) renderMarkdown(text string, width int) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	w := max(width, 20)
	md := r.md[w]
	if md == nil {
		style := "dark"
		switch {
		case r.theme.plain:
			style = "notty"
		case !r.theme.dark:
			style = "light"
		}
		var err error
		md, err = glamour.NewTermRenderer(glamour.WithStandardStyle(style), glamour.WithWordWrap(w-4))
		if err != nil {
			return indentAll(wrap(text, width-2), 2)
		}
		r.md[w] = md
	}
	out, err := md.Render(text)
	if err != nil {
		return indentAll(wrap(text, width-2), 2)
	}
	return trimBlankLines(out)
}

// spinner are the frames of a running tool's mark.
var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// tool renders a tool call: its name and arguments, its state, and a
// summary of its result that ctrl+o expands.
func (r *renderer) tool(b *block, width, flags int) string {
	t := r.theme
	mark := t.running.Render(spinner[b.spin%len(spinner)])
	switch {
	case b.interrupted:
		mark = t.bad.Render("⊘")
	case b.done && b.isError:
		mark = t.bad.Render("✗")
	case b.done:
		mark = t.ok.Render("✓")
	}
	head := mark + " " + t.toolName.Render(b.tool) + " " + t.toolArgs.Render(b.args)
	if !b.done {
		if b.elapsed >= time.Second {
			head += t.dim.Render(" · " + b.elapsed.Truncate(time.Second).String())
		}
		return ansi.Truncate(head, width, "…")
	}
	head = ansi.Truncate(head, width, "…")
	expand := flags&flagExpand != 0
	var body []string
	summary := ""
	switch d := b.details; {
	case d != nil && d.Diff != "":
		add, del := diffStat(d.Diff)
		summary = fmt.Sprintf("%s +%d -%d", sanitize(d.Path), add, del)
		limit := 8
		if expand {
			limit = 400
		}
		body = r.diff(sanitize(d.Diff), limit)
	case d != nil && d.Matches > 0:
		summary = Plural(d.Matches, "match")
		body = headLines(b.result, 3, expand, 200)
	case b.tool == "bash" || (d != nil && d.ExitCode != nil):
		n := countLines(b.result)
		summary = Plural(n, "line")
		if d != nil && d.ExitCode != nil {
			summary += fmt.Sprintf(", exit %d", *d.ExitCode)
		}
		if d != nil && d.TimedOut {
			summary += ", timed out"
		}
		body = tailLines(b.result, 4, expand, 200)
	case b.tool == "read":
		summary = Plural(countLines(b.result), "line")
		if expand {
			body = headLines(b.result, 0, true, 200)
		}
	default:
		body = headLines(b.result, 3, expand, 200)
	}
	if b.interrupted {
		summary = "interrupted"
	}
	if b.denied {
		summary = "denied by you"
	}
	out := []string{head}
	if summary != "" {
		out = append(out, "  "+t.dim.Render(summary))
	}
	for _, l := range body {
		st := t.dim
		if b.isError {
			st = t.bad
		}
		if strings.HasPrefix(l, "\x1b") {
			out = append(out, "  "+ansi.Truncate(l, width-2, "…"))
			continue
		}
		out = append(out, "  "+st.Render(ansi.Truncate(l, width-2, "…")))
	}
	return strings.Join(out, "\n")
}

// diff colours a unified diff's first limit lines.
func (r *renderer) diff(d string, limit int) []string {
	t := r.theme
	var out []string
	lines := strings.Split(strings.TrimRight(d, "\n"), "\n")
	for i, l := range lines {
		if i == limit {
			out = append(out, fmt.Sprintf("… %d more lines (ctrl+o)", len(lines)-limit))
			break
		}
		switch {
		case strings.HasPrefix(l, "+++") || strings.HasPrefix(l, "---"):
			continue
		case strings.HasPrefix(l, "+"):
			l = t.diffAdd.Render(l)
		case strings.HasPrefix(l, "-"):
			l = t.diffDel.Render(l)
		case strings.HasPrefix(l, "@@"):
			l = t.diffHunk.Render(l)
		default:
			l = t.dim.Render(l)
		}
		out = append(out, l)
	}
	return out
}

// note renders an advisor's note as the note itself, styled by severity,
// with how it reached the agent.
func (r *renderer) note(b *block, width, flags int) string {
	t := r.theme
	col := t.severity[b.severity]
	if col == nil {
		col = t.severity[""]
	}
	head := "advisor"
	if b.label != "" {
		head += " " + b.label // a roster's advisor names itself
	}
	if b.severity != "" {
		head += " · " + b.severity
	}
	switch b.delivery {
	case "card":
		head += " · card (kept for when you resume)"
	case "withheld":
		head += " · withheld from the agent"
	default:
		head += " · " + b.delivery
	}
	body := wrap(b.text, width-4)
	if lines := strings.Split(body, "\n"); flags&flagExpand == 0 && len(lines) > 12 {
		body = strings.Join(lines[:12], "\n") + fmt.Sprintf("\n… %d more lines (ctrl+o)", len(lines)-12)
	}
	box := lipgloss.NewStyle().Border(lipgloss.ThickBorder(), false, false, false, true).BorderForeground(col).PaddingLeft(1)
	return box.Render(t.noteHead.Foreground(col).Render(head) + "\n" + body)
}

// wrap word-wraps s to width cells (breaking words longer than a line).
func wrap(s string, width int) string {
	return ansi.Wrap(strings.TrimRight(s, "\n"), max(width, 10), "")
}

// indentRest indents every line of s but the first by n spaces.
func indentRest(s string, n int) string {
	return strings.ReplaceAll(s, "\n", "\n"+strings.Repeat(" ", n))
}

// indentAll indents every line of s by n spaces.
func indentAll(s string, n int) string {
	return strings.Repeat(" ", n) + indentRest(s, n)
}

// trimBlankLines drops the blank lines glamour puts around a document.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

func countLines(s string) int {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// tailLines is the last n lines of s (limit when expanded), with a line
// saying how many were left out.
func tailLines(s string, n int, expand bool, limit int) []string {
	if expand {
		n = limit
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	if len(lines) <= n {
		return lines
	}
	hidden := len(lines) - n
	return append([]string{fmt.Sprintf("… %d earlier lines (ctrl+o)", hidden)}, lines[hidden:]...)
}

// headLines is the first n lines of s (limit when expanded).
func headLines(s string, n int, expand bool, limit int) []string {
	if expand {
		n = limit
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if n == 0 || (len(lines) == 1 && lines[0] == "") {
		return nil
	}
	if len(lines) <= n {
		return lines
	}
	return append(lines[:n:n], fmt.Sprintf("… %d more lines (ctrl+o)", len(lines)-n))
}

func diffStat(d string) (add, del int) {
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
		case strings.HasPrefix(l, "+"):
			add++
		case strings.HasPrefix(l, "-"):
			del++
		}
	}
	return add, del
}
