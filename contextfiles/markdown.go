package contextfiles

import "strings"

// fence tracks fenced code blocks across lines. The zero value is outside
// any fence.
type fence struct {
	char byte // ` or ~
	n    int  // the opening run's length; 0 outside a fence
}

// step reports whether line belongs to a fence (its opening, its closing or
// a line inside it), and updates the state.
func (f *fence) step(line string) bool {
	s := strings.TrimRight(strings.TrimLeft(line, " \t"), "\r\n")
	c, n := fenceRun(s)
	if f.n == 0 {
		// A backtick fence's info string cannot hold a backtick (that line
		// is inline code instead).
		if n < 3 || (c == '`' && strings.ContainsRune(s[n:], '`')) {
			return false
		}
		f.char, f.n = c, n
		return true
	}
	if c == f.char && n >= f.n && strings.TrimSpace(s[n:]) == "" {
		f.n = 0
	}
	return true
}

// fenceRun returns the fence character s starts with and how many times it
// repeats, or 0 when s does not start with one.
func fenceRun(s string) (byte, int) {
	if s == "" || (s[0] != '`' && s[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(s) && s[n] == s[0] {
		n++
	}
	return s[0], n
}

// span is a byte range [start, end) of a line.
type span struct{ start, end int }

// codeSpans returns the inline code spans of line: a run of n backticks up
// to the next run of exactly n. A run with no match is plain text.
func codeSpans(line string) []span {
	var spans []span
	for i := 0; i < len(line); {
		if line[i] != '`' {
			i++
			continue
		}
		open := backticks(line, i)
		next := open
		for k := open; k < len(line); {
			if line[k] != '`' {
				k++
				continue
			}
			end := backticks(line, k)
			if end-k == open-i {
				spans = append(spans, span{i, end})
				next = end
				break
			}
			k = end
		}
		i = next
	}
	return spans
}

// backticks returns the index just past the run of backticks at i.
func backticks(s string, i int) int {
	for i < len(s) && s[i] == '`' {
		i++
	}
	return i
}

// importTokens returns the import tokens of line (each from its @ to its
// last path byte), outside inline code spans.
func importTokens(line string) []span {
	var tokens []span
	spans := codeSpans(line)
	for i := 0; i < len(line); i++ {
		if len(spans) > 0 && i >= spans[0].start {
			i = spans[0].end - 1
			spans = spans[1:]
			continue
		}
		if line[i] != '@' || (i > 0 && line[i-1] != ' ' && line[i-1] != '\t') {
			continue
		}
		if i+1 >= len(line) || !startsPath(line[i+1]) {
			continue
		}
		end := i + 1
		for end < len(line) && !endsToken(line[end]) {
			end++
		}
		for end > i+1 && strings.IndexByte(".,;:!?)]}\"'", line[end-1]) >= 0 {
			end--
		}
		if end == i+1 {
			continue
		}
		tokens = append(tokens, span{i, end})
		i = end - 1
	}
	return tokens
}

func startsPath(c byte) bool {
	return c == '.' || c == '/' || c == '~' || c == '_' || c == '-' ||
		('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

func endsToken(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || c == '`'
}
