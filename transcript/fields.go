package transcript

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// Decoders for fields that the JSON Lines formats share in spirit if not
// in spelling: times, content that is either a string or a list of blocks,
// and tool arguments.

// parseStamp parses an RFC 3339 time as the agents write it; a time it
// cannot read is left zero rather than failing the entry.
func parseStamp(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

// stringContent reports whether raw is a JSON string, and returns it.
func stringContent(raw json.RawMessage) (string, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	if fastJSON {
		var d jdec
		d.reset(raw)
		if s := d.str(); d.done() {
			return s, true
		}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// textBlocks returns s as one text block, or none when s is empty.
func textBlocks(s string) []llm.Block {
	if s == "" {
		return nil
	}
	return []llm.Block{llm.Text(s)}
}

// objectArguments returns raw when it is a JSON object. Anything else (a
// string that is not an object, an array, malformed JSON) is kept under
// the key "input", so that arguments are always an object as
// [llm.Block] requires.
func objectArguments(raw json.RawMessage) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}")
	}
	if raw[0] == '{' && validJSON(raw) {
		return bytes.Clone(raw)
	}
	wrapped, err := json.Marshal(map[string]json.RawMessage{"input": raw})
	if err != nil || !validJSON(raw) {
		wrapped, _ = json.Marshal(map[string]string{"input": string(raw)})
	}
	return wrapped
}

// stringArguments reads arguments recorded as a JSON-encoded string (as
// OpenAI's APIs send them): the object it holds, or the string itself
// under "input" when it holds no object.
func stringArguments(s string) json.RawMessage {
	t := bytes.TrimSpace([]byte(s))
	if len(t) > 0 && t[0] == '{' && validJSON(t) {
		return json.RawMessage(t)
	}
	wrapped, _ := json.Marshal(map[string]string{"input": s})
	return wrapped
}
