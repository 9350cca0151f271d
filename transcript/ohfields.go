package transcript

import (
	"encoding/json"
	"strings"
)

// ohFields is one JSON object of an OpenHands file, its members kept raw
// and read on demand: OpenHands has written the same event with its fields
// at the top (early resolver output), under "args" and "extras" (V0), or
// under "action" and "observation" objects (the V1 SDK), and a reader asks
// each shape for what it needs.
type ohFields map[string]json.RawMessage

// str returns member k when it is a string, "" otherwise.
func (f ohFields) str(k string) string {
	var s string
	if raw, ok := f[k]; ok && len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
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
	if json.Unmarshal(raw, &o) != nil {
		return nil
	}
	return o
}

// num returns member k when it is a number that fits an int.
func (f ohFields) num(k string) (int, bool) {
	var n int
	raw, ok := f[k]
	if !ok || string(raw) == "null" || json.Unmarshal(raw, &n) != nil {
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
