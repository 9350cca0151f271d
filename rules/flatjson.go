package rules

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// flatObject reads a JSON object whose values are all strings, the shape
// of nearly every tool call's arguments: a flatObject's next method moves
// to each member in turn, whose key and value it then holds. The value is
// copied only when asked for. When raw is anything else, next returns
// false early and ok reports false, and the caller decodes raw with
// encoding/json instead. It exists because decoding every call through
// reflection is a large part of a step's cost.
type flatObject struct {
	raw []byte
	i   int
	// key is the current member's key, val its value as written, or
	// unescaped the value when it has escapes.
	key, val  []byte
	unescaped string
	escaped   bool
	started   bool
	done, bad bool
}

// next moves to the next member, reporting false after the last one or
// when raw is not a flat object.
func (o *flatObject) next() bool {
	if o.done || o.bad {
		return false
	}
	raw, i := o.raw, o.i
	if !o.started {
		o.started = true
		i = skipSpace(raw, 0)
		if i >= len(raw) || raw[i] != '{' {
			return o.fail()
		}
		i = skipSpace(raw, i+1)
		if i < len(raw) && raw[i] == '}' {
			o.done = true
			o.bad = skipSpace(raw, i+1) != len(raw)
			return false
		}
	} else {
		i = skipSpace(raw, i)
		if i >= len(raw) {
			return o.fail()
		}
		switch raw[i] {
		case ',':
			i = skipSpace(raw, i+1)
		case '}':
			o.done = true
			o.bad = skipSpace(raw, i+1) != len(raw)
			return false
		default:
			return o.fail()
		}
	}
	key, escaped, next, ok := jsonBody(raw, i)
	if !ok {
		return o.fail()
	}
	if escaped {
		k, ok := unescapeJSON(key)
		if !ok {
			return o.fail()
		}
		key = []byte(k)
	}
	i = skipSpace(raw, next)
	if i >= len(raw) || raw[i] != ':' {
		return o.fail()
	}
	val, escaped, next, ok := jsonBody(raw, skipSpace(raw, i+1))
	if !ok {
		return o.fail()
	}
	o.unescaped = ""
	if escaped {
		// Escapes are decoded now: a bad one makes raw not flat.
		if o.unescaped, ok = unescapeJSON(val); !ok {
			return o.fail()
		}
	}
	o.key, o.val, o.escaped, o.i = key, val, escaped, next
	return true
}

func (o *flatObject) fail() bool {
	o.bad = true
	return false
}

// value returns a copy of the current member's value.
func (o *flatObject) value() string {
	if o.escaped {
		return o.unescaped
	}
	return string(o.val)
}

// ok reports whether raw was read to its end as a flat object; call it
// after next has returned false.
func (o *flatObject) ok() bool { return o.done && !o.bad }

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\n' || b[i] == '\t' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonBody finds the JSON string that starts at b[i]: its body as
// written, whether the body has escapes, and the index after it.
func jsonBody(b []byte, i int) (body []byte, escaped bool, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, false, 0, false
	}
	start := i + 1
	for j := start; j < len(b); j++ {
		switch c := b[j]; {
		case c == '"':
			if !utf8.Valid(b[start:j]) {
				return nil, false, 0, false // encoding/json replaces bad bytes; let it
			}
			return b[start:j], escaped, j + 1, true
		case c == '\\':
			escaped = true
			j++
		case c < 0x20:
			return nil, false, 0, false
		}
	}
	return nil, false, 0, false
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
