package tui

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// history is the editor's list of sent messages, oldest first, and where
// up and down have moved in it.
type history struct {
	items []string
	pos   int    // len(items) when not browsing
	draft string // what was typed before browsing began
}

// maxHistory bounds the history kept.
const maxHistory = 500

// seed starts the history with the user's prompts in the transcript.
func (h *history) seed(t *transcript) {
	for _, b := range t.blocks {
		if b.kind == kindUser && b.label == "" {
			h.items = append(h.items, b.text)
		}
	}
	if len(h.items) > maxHistory {
		h.items = h.items[len(h.items)-maxHistory:]
	}
	h.pos = len(h.items)
}

func (h *history) add(s string) {
	if n := len(h.items); n == 0 || h.items[n-1] != s {
		h.items = append(h.items, s)
	}
	if len(h.items) > maxHistory {
		h.items = h.items[1:]
	}
	h.pos = len(h.items)
}

// historyKey moves through the history when the cursor is on the
// editor's first line (up) or last line (down); it reports whether it
// took the key.
func (m *Model) historyKey(up bool) bool {
	h := &m.hist
	switch {
	case up && m.ed.Line() == 0 && h.pos > 0:
		if h.pos == len(h.items) {
			h.draft = m.ed.Value()
		}
		h.pos--
		m.ed.SetValue(h.items[h.pos])
	case !up && m.ed.Line() == m.ed.LineCount()-1 && h.pos < len(h.items):
		h.pos++
		if h.pos == len(h.items) {
			m.ed.SetValue(h.draft)
		} else {
			m.ed.SetValue(h.items[h.pos])
		}
	default:
		return false
	}
	m.layout()
	return true
}

// Pastes longer than these are folded into a placeholder that the sent
// message expands.
const (
	foldLines = 8
	foldBytes = 1000
)

// paste inserts pasted text, folding a large one.
func (m *Model) paste(s string) {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	s = sanitize(s)
	if n := countLines(s); n > foldLines || len(s) > foldBytes {
		m.pastes = append(m.pastes, s)
		s = fmt.Sprintf("[paste #%d: %s, %s]", len(m.pastes), Plural(n, "line"), Plural(len(s), "byte"))
	}
	m.ed.InsertString(s)
	m.layout()
}

var pasteRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\[paste #(\d+): \d+ lines, \d+ bytes\]`)
})

// expandPastes replaces the placeholders of folded pastes by their text.
func (m *Model) expandPastes(s string) string {
	if len(m.pastes) == 0 {
		return s
	}
	return pasteRe().ReplaceAllStringFunc(s, func(ph string) string {
		n, _ := strconv.Atoi(pasteRe().FindStringSubmatch(ph)[1])
		if n < 1 || n > len(m.pastes) {
			return ph
		}
		return m.pastes[n-1]
	})
}

// completion is the popup of slash commands or files for the word being
// typed.
type completion struct {
	kind  int
	items []string
	// descs are the items' descriptions (slash commands), shown beside
	// them; nil for files.
	descs []string
	sel   int
	// word is the text being completed: "/na" or "@src/ma".
	word string
}

const (
	compNone = iota
	compCommand
	compFile
)

// maxCompletions bounds the popup.
const maxCompletions = 6

func (c *completion) active() bool { return c.kind != compNone && len(c.items) > 0 }

func (c *completion) height() int {
	if !c.active() {
		return 0
	}
	return len(c.items)
}

func (c *completion) move(down bool) {
	if down {
		c.sel = (c.sel + 1) % len(c.items)
	} else {
		c.sel = (c.sel + len(c.items) - 1) % len(c.items)
	}
}

func (c *completion) view(t *theme, width int) string {
	if !c.active() {
		return ""
	}
	rows := make([]string, len(c.items))
	pad := 0
	for _, it := range c.items {
		pad = max(pad, len(it))
	}
	for i, it := range c.items {
		desc := ""
		if i < len(c.descs) && c.descs[i] != "" {
			desc = strings.Repeat(" ", pad-len(it)+2) + c.descs[i]
		}
		row := "  " + it
		if i == c.sel {
			row = t.statusHi.Render("▸ "+it) + t.dim.Render(desc)
		} else {
			row = t.dim.Render(row + desc)
		}
		rows[i] = ansi.Truncate(row, width, "…")
	}
	return strings.Join(rows, "\n")
}

// updateCompletion finds what the word at the cursor completes to.
func (m *Model) updateCompletion() {
	m.comp = completion{}
	v := m.ed.Value()
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \n") {
		var items, descs []string
		for _, c := range m.reg.Commands() {
			if strings.HasPrefix("/"+c.Name, v) {
				items = append(items, "/"+c.Name)
				descs = append(descs, c.Help)
			}
		}
		for _, extra := range uiCommands {
			if strings.HasPrefix(extra[0], v) && !slices.Contains(items, extra[0]) {
				items = append(items, extra[0])
				descs = append(descs, extra[1])
			}
		}
		if len(items) > 0 && !(len(items) == 1 && items[0] == v) {
			n := min(len(items), maxCompletions)
			m.comp = completion{kind: compCommand, items: items[:n], descs: descs[:n], word: v}
		}
		return
	}
	word := wordBeforeCursor(m)
	if !strings.HasPrefix(word, "@") {
		return
	}
	if items := m.files.match(word[1:], maxCompletions); len(items) > 0 {
		for i := range items {
			items[i] = "@" + items[i]
		}
		m.comp = completion{kind: compFile, items: items, word: word}
	}
}

// uiCommands are the slash commands the UI answers itself that the
// registry may not list, with what each does.
var uiCommands = [][2]string{
	{"/resume", "switch to another session of this folder (a picker)"},
	{"/quit", "leave vigil"},
}

// wordBeforeCursor is the text from the last space before the cursor to
// the cursor, on its line.
func wordBeforeCursor(m *Model) string {
	lines := strings.Split(m.ed.Value(), "\n")
	row := m.ed.Line()
	if row >= len(lines) {
		return ""
	}
	r := []rune(lines[row])
	col := min(m.ed.LineInfo().CharOffset+m.ed.LineInfo().StartColumn, len(r))
	start := col
	for start > 0 && r[start-1] != ' ' && r[start-1] != '\t' {
		start--
	}
	return string(r[start:col])
}

// acceptCompletion puts the selected completion in place of the word.
func (m *Model) acceptCompletion() {
	c := m.comp
	m.comp = completion{}
	if !c.active() {
		return
	}
	pick := c.items[c.sel]
	if c.kind == compCommand {
		m.ed.SetValue(pick + " ")
		return
	}
	// Replace the word before the cursor by the pick, then a space.
	for range []rune(c.word) {
		m.ed, _ = m.ed.Update(keyBackspace)
	}
	m.ed.InsertString(pick + " ")
}

// fileIndex lists the files under a folder for @ completion, once, on
// first use; it skips version-control, dependency and hidden folders and
// stops at maxIndexed files.
type fileIndex struct {
	root  string
	once  sync.Once
	files []string
}

const maxIndexed = 20000

func newFileIndex(root string) *fileIndex { return &fileIndex{root: root} }

func (f *fileIndex) load() {
	if f.root == "" {
		return
	}
	_ = filepath.WalkDir(f.root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != f.root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "vendor" || name == "target") {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(f.root, path)
		if err == nil {
			f.files = append(f.files, filepath.ToSlash(rel))
		}
		if len(f.files) >= maxIndexed {
			return fs.SkipAll
		}
		return nil
	})
}

// match returns up to n files whose path contains q (case-insensitive),
// those whose name starts with it first.
func (f *fileIndex) match(q string, n int) []string {
	f.once.Do(f.load)
	q = strings.ToLower(q)
	var first, rest []string
	for _, p := range f.files {
		lp := strings.ToLower(p)
		switch {
		case strings.HasPrefix(strings.ToLower(filepath.Base(p)), q) || strings.HasPrefix(lp, q):
			first = append(first, p)
		case strings.Contains(lp, q):
			rest = append(rest, p)
		}
		if len(first) >= n {
			break
		}
	}
	out := append(first, rest...)
	return out[:min(len(out), n)]
}

// sanitize removes terminal escapes and control characters from text
// that came from a model, a tool or a file, so that nothing it holds can
// drive the terminal; tabs become spaces.
func sanitize(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\n' || r == 0x7f || (r >= 0x80 && r < 0xa0) }) {
		return s
	}
	s = ansi.Strip(s)
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\n':
			return r
		case r == '\t':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
}

// keyBackspace deletes the character before the editor's cursor.
var keyBackspace = tea.KeyPressMsg{Code: tea.KeyBackspace}
