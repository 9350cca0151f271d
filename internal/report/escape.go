package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every character that could steer a terminal or
// hide what the text says written out visibly:
//
//   - C0 controls and DEL as \x1b, \x07, \x7f and so on (newline, tab
//     and carriage return as \n, \t and \r: every text field prints on
//     one line);
//   - C1 controls (U+0080-U+009F, which some terminals obey as ESC
//     sequences), the bidirectional embeddings, overrides, isolates and
//     marks (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F, U+061C), which
//     reorder what is shown, and the line and paragraph separators, as
//     \u009b and so on;
//   - each byte of invalid UTF-8 as \xff and so on.
//
// Everything else is left as it is.
//
// Text from a transcript (a command, its output, a path, a line type)
// reaches the report through Escape, so that `ESC]0;…BEL` in a tool's
// output cannot retitle the terminal nor `ESC[2J` clear it.
func Escape(s string) string {
	i := unsafeIndex(s)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeIndex returns the index of the first byte or character of s that
// Escape writes out, or -1.
func unsafeIndex(s string) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == 0x7f {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || unsafeRune(r) {
			return i
		}
		i += size
	}
	return -1
}

// unsafeRune reports whether r, beyond ASCII, is one Escape writes out.
func unsafeRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1 controls
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	case r == 0x200e, r == 0x200f, r == 0x061c: // bidi marks
		return true
	case r == 0x2028, r == 0x2029: // line and paragraph separators
		return true
	}
	return false
}

// escapeError is an error whose message is escaped for a terminal.
type escapeError struct{ err error }

func (e escapeError) Error() string { return Escape(e.err.Error()) }
func (e escapeError) Unwrap() error { return e.err }

// EscapeError returns err with its message passed through [Escape], for
// an error that quotes a path or a file's content and is printed to a
// terminal; errors.Is and errors.As see through it. It returns nil for
// nil.
func EscapeError(err error) error {
	if err == nil {
		return nil
	}
	return escapeError{err}
}
