package fleet

import (
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// shapesOnly hides the secrets a [history.Redactor] finds by their shape
// alone (keys, tokens, private keys, passwords in URLs and assignments):
// the redactor of a client or worker given none.
var shapesOnly = history.NewRedactor(nil, nil)

// orShapes returns r, or the redactor of shapes alone when r is nil.
func orShapes(r *history.Redactor) *history.Redactor {
	if r == nil {
		return shapesOnly
	}
	return r
}

// redactEntries returns entries with every secret r finds hidden: the
// text of messages and custom messages (tool results and tool calls'
// arguments included), summaries, and the strings of details (entries
// of unknown types are not published: session.EncodeEntry refuses
// them). It never writes to entries. Redacting is
// deterministic, so the same entry redacts the same way in every step
// (a reviewer that compares calls or results still sees repeats).
func redactEntries(r *history.Redactor, entries []session.Entry) []session.Entry {
	out := make([]session.Entry, len(entries))
	for i, e := range entries {
		out[i] = redactEntry(r, e)
	}
	return out
}

func redactEntry(r *history.Redactor, e session.Entry) session.Entry {
	switch b := e.Body.(type) {
	case *session.Message:
		m := *b
		m.Message = r.RedactMessage(b.Message)
		e.Body = &m
	case *session.Custom:
		c := *b
		c.Content = r.RedactMessage(llm.Message{Content: b.Content}).Content
		c.Details = redactJSON(r, b.Details)
		e.Body = &c
	case *session.Compaction:
		c := *b
		c.Summary = r.Redact(b.Summary)
		c.Details = redactJSON(r, b.Details)
		e.Body = &c
	case *session.BranchSummary:
		s := *b
		s.Summary = r.Redact(b.Summary)
		s.Details = redactJSON(r, b.Details)
		e.Body = &s
	}
	return e
}

// redactJSON redacts each string of a JSON value, keeping it valid JSON,
// as the arguments of a tool call are redacted.
func redactJSON(r *history.Redactor, raw []byte) []byte {
	if len(raw) == 0 {
		return raw
	}
	m := r.RedactMessage(llm.Message{Content: []llm.Block{{Type: llm.BlockToolCall, Arguments: raw}}})
	return m.Content[0].Arguments
}
