package tools

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"unicode/utf8"
)

// sniffLen is how much of a file the binary and image checks look at.
const sniffLen = 8192

// binaryReason says why head, the first bytes of a file, look like a binary
// file, or returns "" when they look like text. complete says head is the
// whole file, so a multi-byte character cut at its end is an error rather
// than the sniff window's edge. A file is binary when it holds a NUL byte or
// when more than one byte in ten is not valid UTF-8; a few stray bytes (a
// Latin-1 name in a comment) do not make a text file binary.
func binaryReason(head []byte, complete bool) string {
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return fmt.Sprintf("it has a NUL byte at offset %d", i)
	}
	if !complete {
		head = trimPartialRune(head)
	}
	invalid, first := 0, -1
	for i := 0; i < len(head); {
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 {
			invalid++
			if first < 0 {
				first = i
			}
		}
		i += size
	}
	if invalid > 0 && invalid*10 > len(head) {
		return fmt.Sprintf("it is not UTF-8 text (%d invalid bytes in the first %d, the first at offset %d)", invalid, len(head), first)
	}
	return ""
}

// trimPartialRune drops an incomplete UTF-8 sequence from the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing cut
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// imageType returns the media type of head when it starts an image format
// models accept (png, jpeg, gif, webp), or "".
func imageType(head []byte) string {
	switch t := http.DetectContentType(head); t {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return t
	}
	return ""
}

// cutLine shortens line to at most max bytes, at a character boundary, and
// reports how many bytes it dropped.
func cutLine(line string, max int) (string, int) {
	if len(line) <= max {
		return line, 0
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(line[cut]) {
		cut--
	}
	return line[:cut], len(line) - cut
}

// splitLines splits text into lines without their terminators ("\n" or
// "\r\n"). A final line without a terminator counts; a terminator at the
// very end does not start another line. Empty text has no lines.
func splitLines(text string) []string {
	if text == "" {
		return nil
	}
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// lineOf returns the 1-based line number of byte offset off in text.
func lineOf(text string, off int) int {
	return strings.Count(text[:off], "\n") + 1
}

// plural returns "1 line" or "2 lines".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// sizeString shows a byte count for a person.
func sizeString(n int64) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KiB", float64(n)/1024)
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1024*1024))
	}
}
