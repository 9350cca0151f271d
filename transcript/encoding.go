package transcript

import (
	"bytes"
	"fmt"
)

// utf8BOM is the UTF-8 byte-order mark that some editors and Windows
// tools (PowerShell's Out-File, Notepad) write at the start of a text
// file. Every reader skips it.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// isUTF16 reports whether head, the start of a file, is UTF-16 text: a
// byte-order mark either way round (bytes that never start UTF-8), or,
// without one, ASCII with every other byte NUL (UTF-8 JSON and Markdown
// hold no NUL bytes outside rare escapes, and never every other one).
func isUTF16(head []byte) bool {
	if len(head) >= 2 && (head[0] == 0xff && head[1] == 0xfe || head[0] == 0xfe && head[1] == 0xff) {
		return true
	}
	n := min(len(head), 256) &^ 1
	if n < 4 {
		return false
	}
	var even, odd int
	for i, c := range head[:n] {
		if c == 0 {
			if i%2 == 0 {
				even++
			} else {
				odd++
			}
		}
	}
	return odd >= n/4 && even == 0 || even >= n/4 && odd == 0
}

// utf16Error is the error for a transcript in UTF-16, saying what to do
// about it. It wraps ErrUnknownFormat: no format vigil reads is UTF-16.
func utf16Error(name string) error {
	return fmt.Errorf("%s is UTF-16; vigil reads UTF-8 transcripts: convert with iconv -f UTF-16 -t UTF-8 (%w)", name, ErrUnknownFormat)
}

// trimBOM returns b without a leading UTF-8 byte-order mark.
func trimBOM(b []byte) []byte { return bytes.TrimPrefix(b, utf8BOM) }
