// Package jsonstr scans and unquotes JSON strings as encoding/json reads
// them, fast: the one string reader of vigil's JSON fast paths (the
// transcript readers' decoders and document walker, and the rules'
// reading of tool-call arguments).
package jsonstr

import (
	"encoding/binary"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Result says what Scan found.
type Result int

const (
	// OK is a whole, valid string.
	OK Result = iota
	// Short is a string that goes on past the end of the input.
	Short
	// Bad is not a valid JSON string: a control character, an unknown
	// escape, a \u without four hex digits.
	Bad
)

// String is a scanned string: its body is b[start+1:End], where start is
// its opening quote.
type String struct {
	// End is the index of the closing quote.
	End int
	// Escaped reports a backslash in the body, High a byte of 0x80 or
	// more (which may be invalid UTF-8).
	Escaped, High bool
}

// Scan checks the JSON string whose opening quote is b[i].
func Scan(b []byte, i int) (String, Result) {
	var s String
	j := i + 1
	for {
		j = SafeRun(b, j)
		if j >= len(b) {
			return s, Short
		}
		switch c := b[j]; {
		case c == '"':
			s.End = j
			return s, OK
		case c == '\\':
			s.Escaped = true
			if j+1 >= len(b) {
				return s, Short
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				for k := j + 2; k < j+6; k++ {
					if k >= len(b) {
						return s, Short
					}
					if !isHex(b[k]) {
						return s, Bad
					}
				}
				j += 6
			default:
				return s, Bad
			}
		case c < 0x20:
			return s, Bad
		default:
			s.High = true
			j++
		}
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// Plain marks the bytes a string holds as they are: not a quote, a
// backslash, a control character or the start of a multi-byte sequence.
var Plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// SafeRun returns the index of the first byte of b from j on that is not
// Plain, or len(b). It looks at eight bytes at a time while none of them
// is.
func SafeRun(b []byte, j int) int {
	const (
		ones  = 0x0101010101010101
		highs = 0x8080808080808080
	)
	for ; j+8 <= len(b); j += 8 {
		x := binary.LittleEndian.Uint64(b[j:])
		q := x ^ ('"' * ones)
		bs := x ^ ('\\' * ones)
		// A byte below 0x20, a quote or a backslash (the borrow of
		// y - n*ones marks a byte of y below n, and a false mark only
		// ever follows a true one), or a byte of 0x80 or more.
		below := (x - 0x20*ones) &^ x
		quote := (q - ones) &^ q
		slash := (bs - ones) &^ bs
		if (below|quote|slash|x)&highs != 0 {
			break
		}
	}
	for j < len(b) && Plain[b[j]] {
		j++
	}
	return j
}

// AppendUnquote appends the content of a string's body, which Scan found
// valid, to buf as encoding/json unquotes it: escapes decoded, a
// surrogate pair joined, a lone surrogate and each byte of invalid UTF-8
// replaced by U+FFFD.
func AppendUnquote(buf, body []byte) []byte {
	s := body
	for r := 0; r < len(s); {
		j := SafeRun(s, r)
		buf = append(buf, s[r:j]...)
		r = j
		if r >= len(s) {
			break
		}
		switch c := s[r]; {
		case c == '\\':
			switch s[r+1] {
			case 'b':
				buf = append(buf, '\b')
			case 'f':
				buf = append(buf, '\f')
			case 'n':
				buf = append(buf, '\n')
			case 'r':
				buf = append(buf, '\r')
			case 't':
				buf = append(buf, '\t')
			case 'u':
				rr := getu4(s[r:])
				r += 6
				if utf16.IsSurrogate(rr) {
					rr1 := getu4(s[r:])
					if dec := utf16.DecodeRune(rr, rr1); dec != unicode.ReplacementChar {
						r += 6
						buf = utf8.AppendRune(buf, dec)
						continue
					}
					rr = unicode.ReplacementChar
				}
				buf = utf8.AppendRune(buf, rr)
				continue
			default: // " \ /
				buf = append(buf, s[r+1])
			}
			r += 2
		default:
			rr, size := utf8.DecodeRune(s[r:])
			r += size
			buf = utf8.AppendRune(buf, rr)
		}
	}
	return buf
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
