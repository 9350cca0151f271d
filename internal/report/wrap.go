package report

import (
	"strings"
	"unicode/utf8"
)

// Width is the text report's width in columns: a finding's message,
// evidence and context are wrapped to end by it, each continuation line
// at the finding's hanging indent.
const Width = 80

// minText is the least room a wrapped text gets, however deep its indent:
// past that the lines run over Width rather than into a narrow column.
const minText = 30

// room is the columns a text indented by indent columns may take.
func room(indent int) int { return max(Width-indent, minText) }

// wrapWords breaks text, which holds no line breaks, into lines of at
// most width columns (one a character) at spaces. A word longer than a
// line (a path, a URL, an escaped control sequence) is not broken: it
// takes a line of its own, which runs over.
func wrapWords(text string, width int) []string {
	var lines []string
	var line strings.Builder
	n := 0 // columns in line
	for _, w := range strings.Fields(text) {
		wn := utf8.RuneCountInString(w)
		if n > 0 && n+1+wn > width {
			lines = append(lines, line.String())
			line.Reset()
			n = 0
		}
		if n > 0 {
			line.WriteByte(' ')
			n++
		}
		line.WriteString(w)
		n += wn
	}
	if n > 0 || len(lines) == 0 {
		lines = append(lines, line.String())
	}
	return lines
}

// chop breaks a verbatim line into pieces of at most width columns,
// keeping its spaces.
func chop(line string, width int) []string {
	var out []string
	for utf8.RuneCountInString(line) > width {
		head, rest := splitColumns(line, width)
		out = append(out, head)
		line = rest
	}
	return append(out, line)
}

// splitColumns splits s after its first n characters (at least one).
func splitColumns(s string, n int) (string, string) {
	i := 0
	for k := 0; k < max(n, 1) && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i], s[i:]
}
