package tui

import (
	"strings"
	"unicode"
)

// statusPanel lays out the advisor's status, written as a paragraph, as
// a panel: one sentence a line, and a sentence that opens with a short
// label ("Reviews: 3 …") has its label in a column of its own.
func statusPanel(text string) string {
	var rows [][2]string
	width := 0
	for _, para := range strings.Split(text, "\n") {
		for _, s := range sentences(para) {
			label, rest, ok := strings.Cut(s, ": ")
			if !ok || len(label) > 24 || strings.ContainsAny(label, ".,;()") {
				rows = append(rows, [2]string{"", s})
				continue
			}
			rows = append(rows, [2]string{label, rest})
			width = max(width, len(label))
		}
	}
	var b strings.Builder
	for i, r := range rows {
		if i > 0 {
			b.WriteByte('\n')
		}
		switch {
		case r[0] != "":
			b.WriteString(r[0] + ":" + strings.Repeat(" ", width-len(r[0])+1) + r[1])
		case width > 0 && i > 0:
			b.WriteString(strings.Repeat(" ", width+2) + r[1])
		default:
			b.WriteString(r[1])
		}
	}
	return b.String()
}

// sentences splits a paragraph after each ". " that an upper-case letter
// follows; a blank paragraph gives none.
func sentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i+2 < len(p); i++ {
		if p[i] == '.' && p[i+1] == ' ' && unicode.IsUpper(rune(p[i+2])) {
			out = append(out, strings.TrimSpace(p[start:i+1]))
			start = i + 2
		}
	}
	if rest := strings.TrimSpace(p[start:]); rest != "" {
		out = append(out, rest)
	}
	return out
}
