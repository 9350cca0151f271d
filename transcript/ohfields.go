package transcript

import (
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"
)

// ohFields is one JSON object of an OpenHands file, its members kept raw
// and read on demand: OpenHands has written the same event with its fields
// at the top (early resolver output), under "args" and "extras" (V0), or
// under "action" and "observation" objects (the V1 SDK), and a reader asks
// each shape for what it needs.
type ohFields map[string]json.RawMessage

// str returns member k when it is a string, "" otherwise.
func (f ohFields) str(k string) string {
	raw, ok := f[k]
	if !ok || len(raw) == 0 || raw[0] != '"' {
		return ""
	}
	if s, ok := stringContent(raw); ok {
		return s
	}
	return ""
}

// text returns member k as text: a string, or the text of a list of
// content blocks.
func (f ohFields) text(k string) string {
	raw, ok := f[k]
	if !ok {
		return ""
	}
	var t flexText
	_ = t.UnmarshalJSON(raw)
	return string(t)
}

// sub returns member k when it is an object, nil otherwise.
func (f ohFields) sub(k string) ohFields {
	raw, ok := f[k]
	if !ok || len(raw) == 0 || raw[0] != '{' {
		return nil
	}
	var o ohFields
	if decodeJSON(nil, raw, &o) != nil {
		return nil
	}
	return o
}

// num returns member k when it is a number that fits an int.
func (f ohFields) num(k string) (int, bool) {
	var n int
	raw, ok := f[k]
	if !ok || string(raw) == "null" {
		return 0, false
	}
	if fastJSON {
		var d jdec
		d.reset(raw)
		if c := d.peek(); c == '-' || '0' <= c && c <= '9' {
			if n := d.int64v(); d.done() {
				return int(n), true
			}
		}
	}
	if json.Unmarshal(raw, &n) != nil {
		return 0, false
	}
	return n, true
}

// flag returns member k when it is a boolean.
func (f ohFields) flag(k string) (value, ok bool) {
	raw, present := f[k]
	if !present {
		return false, false
	}
	switch string(raw) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// id returns member k, a number or a string, as a string.
func (f ohFields) id(k string) string {
	raw, ok := f[k]
	if !ok || len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		return f.str(k)
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// without returns the object's members as a JSON object, leaving out the
// keys named; it is {} when nothing is left.
func (f ohFields) without(keys ...string) json.RawMessage {
	if fastJSON {
		if raw, ok := f.marshalWithout(keys); ok {
			return raw
		}
	}
	out := make(map[string]json.RawMessage, len(f))
	for k, v := range f {
		drop := false
		for _, d := range keys {
			if k == d {
				drop = true
				break
			}
		}
		if !drop {
			out[k] = v
		}
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage("{}")
	}
	return raw
}

// marshalWithout writes what json.Marshal writes for the members of f
// but keys (names sorted, values compacted with <, >, &, U+2028 and
// U+2029 escaped), when every name is one that json.Marshal writes as it
// is; ok is false otherwise.
func (f ohFields) marshalWithout(keys []string) (raw json.RawMessage, ok bool) {
	names := make([]string, 0, len(f))
	size := 2
	for k, v := range f {
		if slices.Contains(keys, k) {
			continue
		}
		for i := 0; i < len(k); i++ {
			if c := k[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return nil, false
			}
		}
		if len(v) == 0 {
			return nil, false
		}
		names = append(names, k)
		size += len(k) + len(v) + 4
	}
	slices.Sort(names)
	out := make([]byte, 0, size)
	out = append(out, '{')
	for i, k := range names {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, '"')
		out = append(out, k...)
		out = append(out, '"', ':')
		out = appendCompactHTML(out, f[k])
	}
	return append(out, '}'), true
}

// appendCompactHTML appends the valid JSON value src to dst as
// json.Marshal writes a json.RawMessage: without the space between tokens,
// with <, >, & and U+2028 and U+2029 escaped.
func appendCompactHTML(dst, src []byte) []byte {
	const hex = "0123456789abcdef"
	inString, escaped := false, false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && isSpace(c):
			dst = append(dst, src[start:i]...)
			start = i + 1
		case c == '<' || c == '>' || c == '&':
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			start = i + 1
		case c == 0xE2 && i+2 < len(src) && src[i+1] == 0x80 && src[i+2]&^1 == 0xA8:
			dst = append(dst, src[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[src[i+2]&0xF])
			start = i + 3
			i += 2
		}
	}
	return append(dst, src[start:]...)
}

// decodeFast decodes an object into a map of its members, as
// encoding/json does: the last of a name given twice wins, null is
// "null". The members are slices of the input.
func (f *ohFields) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp() // null leaves the map nil; encoding/json says so
		return
	}
	m := make(ohFields)
	for d.more() {
		if !utf8.Valid(d.key) {
			d.giveUp() // encoding/json replaces what is not UTF-8
			return
		}
		k := string(d.key) // before the value, whose members move d.key
		m[k] = d.raw()
	}
	*f = m
}

// failedExit reports whether an exit code says a command failed. OpenHands
// writes -1 for a command that has not finished (a soft timeout), which is
// no verdict.
func failedExit(code int) bool { return code != 0 && code != -1 }

// joinNonEmpty joins the non-empty strings with a blank line.
func joinNonEmpty(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, "\n\n")
}
