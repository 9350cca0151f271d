package sidecar

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// LogText returns s with what a log line must not hold escaped: control
// characters (a newline would forge a line, an escape sequence would
// reach the terminal of whoever reads the log) and invalid UTF-8. Hook
// events come from the agent, but their paths and ids end up in the logs
// and in a reply header.
func LogText(s string) string {
	i := 0
	for i < len(s) && !unsafeAt(s, i) {
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeAt reports whether the rune at s[i] must be escaped.
func unsafeAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return r == utf8.RuneError && n == 1 || unicode.IsControl(r)
}
