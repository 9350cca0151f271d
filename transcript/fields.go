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

// parseStampBytes parses b as parseStamp does, without making a string of
// it when stampFast can.
func parseStampBytes(b []byte) time.Time {
	if t, ok := stampFast(b); ok {
		return t
	}
	return parseStamp(string(b))
}

// stampFast parses an RFC 3339 time in the form the agents write,
// 2006-01-02T15:04:05Z with up to nine digits of fraction, to the time
// time.Parse gives in UTC; ok is false for any other text, valid or not.
func stampFast(b []byte) (t time.Time, ok bool) {
	n := len(b)
	if n < 20 || b[4] != '-' || b[7] != '-' || b[10] != 'T' || b[13] != ':' || b[16] != ':' || b[n-1] != 'Z' {
		return t, false
	}
	num := func(s []byte) int {
		v := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	year, month, day := num(b[0:4]), num(b[5:7]), num(b[8:10])
	hour, minute, sec := num(b[11:13]), num(b[14:16]), num(b[17:19])
	nsec := 0
	switch frac := b[19 : n-1]; {
	case len(frac) == 0:
	case len(frac) >= 2 && len(frac) <= 10 && frac[0] == '.':
		nsec = num(frac[1:])
		for range 10 - len(frac) {
			nsec *= 10
		}
	default:
		nsec = -1
	}
	if year < 0 || month < 1 || month > 12 || day < 1 || day > 28 && day > daysIn(month, year) ||
		hour < 0 || hour > 23 || minute < 0 || minute > 59 || sec < 0 || sec > 59 || nsec < 0 {
		return t, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, nsec, time.UTC), true
}

// daysIn returns the number of days in a month.
func daysIn(month, year int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
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
