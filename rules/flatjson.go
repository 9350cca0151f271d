package rules

import (
	"unicode/utf8"

	"github.com/vigil-dev/vigil/internal/jsonstr"
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
		key = jsonstr.AppendUnquote(nil, key)
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
		o.unescaped = string(jsonstr.AppendUnquote(make([]byte, 0, len(val)), val))
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
// written, whether the body has escapes, and the index after it. A string
// with invalid UTF-8 is not taken: encoding/json replaces its bad bytes,
// and is left to do so.
func jsonBody(b []byte, i int) (body []byte, escaped bool, next int, ok bool) {
	if i >= len(b) || b[i] != '"' {
		return nil, false, 0, false
	}
	s, res := jsonstr.Scan(b, i)
	if res != jsonstr.OK {
		return nil, false, 0, false
	}
	body = b[i+1 : s.End]
	if s.High && !utf8.Valid(body) {
		return nil, false, 0, false
	}
	return body, s.Escaped, s.End + 1, true
}
