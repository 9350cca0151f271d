package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
)

// intentArg is the argument in which a tool call may state its intent.
const intentArg = "i"

// primaryKeys are the arguments that best say what a call does, in the
// order the first present one is shown.
var primaryKeys = []string{"path", "file_path", "filePath", "command", "cmd", "pattern", "url", "query", "prompt", "assignment", "note", "message", "op", "name", "id"}

// arg is one top-level argument of a tool call, in the order the model
// wrote it.
type arg struct {
	key string
	raw json.RawMessage
}

// parseArgs reads a call's arguments object, keeping the order of its
// keys. It reports false for anything but a JSON object.
func parseArgs(raw json.RawMessage) ([]arg, bool) {
	if len(raw) == 0 {
		return nil, true
	}
	if !json.Valid(raw) {
		return nil, false
	}
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		return nil, false
	}
	var args []arg
	i = skipSpace(raw, i+1)
	for raw[i] != '}' {
		end := skipValue(raw, i)
		key, _ := stringValue(raw[i:end])
		i = skipSpace(raw, skipSpace(raw, end)+1) // past the colon
		end = skipValue(raw, i)
		args = append(args, arg{key, raw[i:end]})
		i = skipSpace(raw, end)
		if raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return args, true
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the end of the JSON value that starts at i, in data
// already known to be valid JSON.
func skipValue(b []byte, i int) int {
	switch b[i] {
	case '"':
		for i++; b[i] != '"'; i++ {
			if b[i] == '\\' {
				i++
			}
		}
		return i + 1
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch b[i] {
			case '"':
				i = skipValue(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
	default: // a number, true, false or null
		for i < len(b) && !strings.ContainsRune(",}] \t\n\r", rune(b[i])) {
			i++
		}
		return i
	}
}

// stringArg returns the argument key if it is a string.
func stringArg(args []arg, key string) (string, bool) {
	for _, a := range args {
		if a.key == key {
			return stringValue(a.raw)
		}
	}
	return "", false
}

func stringValue(raw json.RawMessage) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	if bytes.IndexByte(raw, '\\') < 0 {
		return string(raw[1 : len(raw)-1]), true // nothing to unescape
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// stringsValue returns an array of strings, joined with ", ".
func stringsValue(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '[' {
		return "", false
	}
	var ss []string
	if json.Unmarshal(raw, &ss) != nil || len(ss) == 0 {
		return "", false
	}
	return strings.Join(ss, ", "), true
}

// argSummary renders what goes between a tool line's parentheses: the
// primary argument, and with ToolIntent the other arguments, compactly.
// The arguments an edit's change shows (ch.shown) are left out, and a
// Codex patch inside a command reads "‹patch›".
func (w *writer) argSummary(tool string, args []arg, ch *change) string {
	primary, used := w.primaryArg(tool, args, ch)
	if !w.opts.ToolIntent || used == nil {
		return primary
	}
	var sb strings.Builder
	sb.WriteString(primary)
	for _, a := range args {
		if a.key == intentArg || used[a.key] || ch.shown[a.key] {
			continue
		}
		sb.WriteString(", ")
		sb.WriteString(inline(w.redact(a.key), 40))
		sb.WriteByte('=')
		sb.WriteString(w.argValue(a.raw))
	}
	return sb.String()
}

// primaryArg returns the argument that says what the call does, and the
// keys it used; used is nil when the summary shows every argument already.
func (w *writer) primaryArg(tool string, args []arg, ch *change) (string, map[string]bool) {
	if tool == "advise" {
		note, _ := stringArg(args, "note")
		sev, _ := stringArg(args, "severity")
		note, sev = inline(w.redact(note), 120), inline(w.redact(sev), 20)
		used := map[string]bool{"note": true, "severity": true}
		switch {
		case note != "" && sev != "":
			return sev + ": " + note, used
		case note != "":
			return note, used
		case sev != "":
			return sev, used
		}
	}
	if ch.primary != "" {
		return inline(ch.primary, 120), map[string]bool{}
	}
	for _, k := range primaryKeys {
		for _, a := range args {
			if a.key != k || ch.shown[k] {
				continue
			}
			if s, ok := w.commandText(a.raw); ok && s != "" {
				return inline(w.redact(s), 120), map[string]bool{k: true}
			}
		}
	}
	for _, a := range args {
		if s, ok := stringValue(a.raw); ok && s != "" && a.key != intentArg && !ch.shown[a.key] {
			s, _ = w.commandText(a.raw)
			return inline(w.redact(s), 120), map[string]bool{a.key: true}
		}
	}
	var sb strings.Builder
	for _, a := range args {
		if a.key == intentArg || ch.shown[a.key] {
			continue
		}
		if sb.Len() == 0 {
			sb.WriteByte('{')
		} else {
			sb.WriteByte(',')
		}
		writeJSONString(&sb, w.redact(a.key))
		sb.WriteByte(':')
		w.compactJSON(&sb, a.raw)
	}
	if sb.Len() == 0 {
		return "{}", nil
	}
	sb.WriteByte('}')
	return inline(sb.String(), 120), nil
}

// commandText returns a string argument, or a list of strings joined
// with ", ". With changes shown (MaxEditLines), a Codex patch in it reads
// "‹patch›", and a here-document written to a file "‹N lines›": they are
// shown under the tool line.
func (w *writer) commandText(raw json.RawMessage) (string, bool) {
	elide := func(s string) string {
		if w.opts.MaxEditLines > 0 {
			s = elidePatches(elideHeredocs(s))
		}
		return s
	}
	if s, ok := stringValue(raw); ok {
		return elide(s), true
	}
	if len(raw) == 0 || raw[0] != '[' {
		return "", false
	}
	var ss []string
	if json.Unmarshal(raw, &ss) != nil || len(ss) == 0 {
		return "", false
	}
	for i := range ss {
		ss[i] = elide(ss[i])
	}
	return strings.Join(ss, ", "), true
}

// argValue renders a secondary argument: a short string quoted, a long
// text by its size, anything else as compact JSON.
func (w *writer) argValue(raw json.RawMessage) string {
	if s, ok := stringValue(raw); ok {
		if n := lineCount(s); n > 1 {
			return "‹" + plural(n, "line") + "›"
		}
		if n := len(s); n > 80 {
			return "‹" + strconv.Itoa(n) + " bytes›"
		}
		var sb strings.Builder
		writeJSONString(&sb, inline(w.redact(s), 80))
		return sb.String()
	}
	var sb strings.Builder
	w.compactJSON(&sb, raw)
	return inline(sb.String(), 60)
}

// compactJSON writes raw as compact JSON, keys in their order, with every
// string redacted: the strings are decoded first, so a secret cannot hide
// behind JSON escapes.
func (w *writer) compactJSON(sb *strings.Builder, raw json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	type frame struct {
		object bool
		n      int
	}
	var stack []frame
	for {
		t, err := dec.Token()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				sb.WriteString(w.redact(string(raw)))
			}
			return
		}
		if d, ok := t.(json.Delim); !ok || d == '{' || d == '[' {
			if len(stack) > 0 {
				f := &stack[len(stack)-1]
				switch {
				case f.object && f.n%2 == 1:
					sb.WriteByte(':')
				case f.n > 0:
					sb.WriteByte(',')
				}
				f.n++
			}
		}
		switch v := t.(type) {
		case json.Delim:
			sb.WriteRune(rune(v))
			if v == '{' || v == '[' {
				stack = append(stack, frame{object: v == '{'})
			} else if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case string:
			writeJSONString(sb, w.redact(v))
		case json.Number:
			sb.WriteString(v.String())
		case bool:
			sb.WriteString(strconv.FormatBool(v))
		case nil:
			sb.WriteString("null")
		}
	}
}

// writeJSONString writes s as a JSON string, without HTML escaping.
func writeJSONString(sb *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	sb.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			sb.WriteByte('\\')
			sb.WriteByte(c)
		case c == '\n':
			sb.WriteString(`\n`)
		case c == '\t':
			sb.WriteString(`\t`)
		case c < 0x20:
			sb.WriteString(`\u00`)
			sb.WriteByte(hex[c>>4])
			sb.WriteByte(hex[c&0xf])
		default:
			sb.WriteByte(c)
		}
	}
	sb.WriteByte('"')
}
