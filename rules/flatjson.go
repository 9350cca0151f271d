package rules

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// flatObject reads a JSON object whose values are all strings, the shape
// of nearly every tool call's arguments, calling f with each key and
// value. It reports false, having called f for none or some, when raw is
// anything else; the caller then decodes it with encoding/json. It exists
// because decoding every call through reflection is a large part of a
// step's cost.
func flatObject(raw []byte, f func(key, value string)) bool {
	i := skipSpace(raw, 0)
	if i >= len(raw) || raw[i] != '{' {
		return false
	}
	i = skipSpace(raw, i+1)
	if i < len(raw) && raw[i] == '}' {
		return skipSpace(raw, i+1) == len(raw)
	}
	for {
		key, next, ok := jsonString(raw, i)
		if !ok {
			return false
		}
		i = skipSpace(raw, next)
		if i >= len(raw) || raw[i] != ':' {
			return false
		}
		val, next, ok := jsonString(raw, skipSpace(raw, i+1))
		if !ok {
			return false
		}
		f(key, val)
		i = skipSpace(raw, next)
		if i >= len(raw) {
			return false
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			return skipSpace(raw, i+1) == len(raw)
		default:
			return false
		}
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonString reads the JSON string that starts at b[i], returning its
// value and the index after it.
func jsonString(b []byte, i int) (string, int, bool) {
	if i >= len(b) || b[i] != '"' {
		return "", 0, false
	}
	start := i + 1
	escaped := false
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			if !utf8.Valid(b[start:j]) {
				return "", 0, false // encoding/json replaces bad bytes; let it
			}
			if !escaped {
				return string(b[start:j]), j + 1, true
			}
			s, ok := unescapeJSON(b[start:j])
			return s, j + 1, ok
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return "", 0, false
		}
	}
	return "", 0, false
}

// unescapeJSON decodes the escapes of a JSON string's body.
func unescapeJSON(b []byte) (string, bool) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' {
			// Copy up to the next escape in one go.
			j := bytes.IndexByte(b[i:], '\\')
			if j < 0 {
				out = append(out, b[i:]...)
				break
			}
			out = append(out, b[i:i+j]...)
			i += j
		}
		i++
		if i >= len(b) {
			return "", false
		}
		switch b[i] {
		case '"', '\\', '/':
			out = append(out, b[i])
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(b, i+1)
			if !ok {
				return "", false
			}
			i += 4
			if r >= 0xd800 && r < 0xdc00 {
				// A surrogate pair.
				if i+6 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
					if r2, ok := hex4(b, i+3); ok && r2 >= 0xdc00 && r2 < 0xe000 {
						r = (r-0xd800)<<10 + (r2 - 0xdc00) + 0x10000
						i += 6
					} else {
						r = utf8.RuneError
					}
				} else {
					r = utf8.RuneError
				}
			} else if r >= 0xdc00 && r < 0xe000 {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return string(out), true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	n, err := strconv.ParseUint(string(b[i:i+4]), 16, 32)
	return rune(n), err == nil
}
