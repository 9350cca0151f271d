package history

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

// RedactMessage returns m with every secret in it hidden, for a message
// that is sent to a model as it is rather than rendered: text blocks, the
// text of tool results (at any depth), thinking, and each string in a
// tool call's arguments. Images and redacted thinking are opaque and kept.
// It returns m itself, sharing its content, when nothing is hidden, and
// never writes to m.
//
// A provider signs a thinking block's text, so a redacted one cannot keep
// its signature: a thinking block whose text or signature holds a secret
// comes back redacted and unsigned, which the adapters leave out of a
// request (see [DroppedSignature]).
func (r *Redactor) RedactMessage(m llm.Message) llm.Message {
	if r == nil {
		return m
	}
	content, changed := r.redactBlocks(m.Content)
	if !changed {
		return m
	}
	m.Content = content
	return m
}

// DroppedSignature reports whether [Redactor.RedactMessage] took the
// signature off a thinking block of m in making out. A request that sends
// out has lost that reasoning, and a provider that wants the reasoning of
// the step in progress back (Anthropic, with thinking on) refuses it
// unless thinking is turned off for that request.
func DroppedSignature(m, out llm.Message) bool {
	if len(m.Content) != len(out.Content) {
		return false
	}
	for i, b := range m.Content {
		if b.Type == llm.BlockThinking && b.Signature != "" && out.Content[i].Signature == "" {
			return true
		}
	}
	return false
}

// redactBlocks redacts each block, copying the slice only when one
// changed.
func (r *Redactor) redactBlocks(blocks []llm.Block) ([]llm.Block, bool) {
	var out []llm.Block
	for i, b := range blocks {
		nb, changed := r.redactBlock(b)
		if !changed {
			continue
		}
		if out == nil {
			out = slices.Clone(blocks)
		}
		out[i] = nb
	}
	if out == nil {
		return blocks, false
	}
	return out, true
}

func (r *Redactor) redactBlock(b llm.Block) (llm.Block, bool) {
	changed := false
	switch b.Type {
	case llm.BlockImage, llm.BlockRedactedThinking:
		return b, false
	case llm.BlockThinking:
		text := r.Redact(b.Text)
		if text == b.Text && r.Redact(b.Signature) == b.Signature {
			return b, false
		}
		return llm.Block{Type: llm.BlockThinking, Text: text}, true
	case llm.BlockToolCall:
		if args, ok := r.redactArguments(b.Arguments); ok {
			b.Arguments, changed = args, true
		}
	}
	if text := r.Redact(b.Text); text != b.Text {
		b.Text, changed = text, true
	}
	if content, ok := r.redactBlocks(b.Content); ok {
		b.Content, changed = content, true
	}
	return b, changed
}

// redactArguments redacts a tool call's JSON arguments, keeping them
// valid JSON: each string of the decoded value (keys too) is redacted,
// and the value of a secret-looking key is hidden whole, as an assignment
// in text is ("password": "…"). Redacting the raw text instead could cut
// an escape in two, or miss a value with an escaped quote in it.
// Arguments that are not JSON are redacted as text.
func (r *Redactor) redactArguments(args json.RawMessage) (json.RawMessage, bool) {
	if len(args) < MinSecretLength {
		return args, false
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	// Valid first: the decoder reads the first value of a stream and
	// would ignore what follows it.
	if !json.Valid(args) || dec.Decode(&v) != nil {
		raw := r.Redact(string(args))
		return json.RawMessage(raw), raw != string(args)
	}
	v, changed := r.redactValue(v, "")
	if !changed {
		return args, false
	}
	out, err := json.Marshal(v)
	if err != nil {
		// A decoded value (maps, slices, strings, numbers) marshals.
		return json.RawMessage(`{}`), true
	}
	return out, true
}

// redactValue redacts every string in a decoded JSON value, in place;
// key is the object key it is the value of, "" for none.
func (r *Redactor) redactValue(v any, key string) (any, bool) {
	switch x := v.(type) {
	case string:
		if key != "" && secretAssignee(key) && !ordinaryValue(x) && !codeName(x) && !strings.HasPrefix(x, redactedPrefix) {
			return redactedPrefix + "secret-assignment]", true
		}
		out := r.Redact(x)
		return out, out != x
	case []any:
		changed := false
		for i := range x {
			var c bool
			x[i], c = r.redactValue(x[i], "")
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		for k, e := range x {
			nv, c := r.redactValue(e, k)
			if nk := r.Redact(k); nk != k {
				delete(x, k)
				k, c = nk, true
			}
			x[k] = nv
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}
