package advisor

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/vigil-dev/vigil/llm"
)

// Stale tool results. Before each request the advisor's own tool results
// from earlier reviews (its reads, searches and listings of the workspace)
// are replaced by a one-line marker; the current review's stay whole. A
// review that needs a file again reads it again, fresh, instead of every
// later review paying for a copy that may be out of date. Its notes (the
// advise results) and everything else are kept. The context itself is not
// changed: the Recorder and dumps keep every result, and the marker is only
// what a request sends (omp does the same since 18.3).

// elidedResult is the text that replaces a stale tool result; it names the
// call so that the model knows what it had looked at.
const elidedResult = "[vigil: the result of %s from an earlier review was elided from this context; call it again if you need it]"

// requestMessages returns the context as the next request sends it: with
// the tool results of reviews before r.reviewAt elided, unless
// Options.KeepToolResults is set. The result shares unchanged messages
// with r.messages; it is never written to.
func (r *Runtime) requestMessages() []llm.Message {
	msgs := slices.Clip(r.messages)
	if r.opts.KeepToolResults || r.reviewAt <= 0 {
		return msgs
	}
	var calls map[string]llm.Block // call id → call, of the stale part
	var out []llm.Message
	for i := 0; i < r.reviewAt && i < len(msgs); i++ {
		m := msgs[i]
		if m.Role == llm.RoleAssistant {
			for _, b := range m.Content {
				if b.Type == llm.BlockToolCall && b.Name != adviseToolName {
					if calls == nil {
						calls = map[string]llm.Block{}
					}
					calls[b.ID] = b
				}
			}
			continue
		}
		elided, ok := elideResults(m, calls)
		if !ok {
			continue
		}
		if out == nil {
			out = slices.Clone(msgs)
		}
		out[i] = elided
	}
	if out == nil {
		return msgs
	}
	return out
}

// elideResults returns m with the results of the calls in calls replaced by
// markers, and whether any was.
func elideResults(m llm.Message, calls map[string]llm.Block) (llm.Message, bool) {
	var content []llm.Block
	for j, b := range m.Content {
		c, ok := calls[b.ID]
		if b.Type != llm.BlockToolResult || !ok {
			continue
		}
		if content == nil {
			content = slices.Clone(m.Content)
		}
		content[j] = llm.ToolResult(b.ID, b.IsError, llm.Text(fmt.Sprintf(elidedResult, callLabel(c))))
	}
	if content == nil {
		return m, false
	}
	m.Content = content
	return m, true
}

// callLabel names a call briefly: read(path), grep(pattern).
func callLabel(c llm.Block) string {
	var args map[string]any
	_ = json.Unmarshal(c.Arguments, &args)
	for _, k := range []string{"path", "pattern", "file_path", "query"} {
		if v, ok := args[k].(string); ok && v != "" {
			if len(v) > 80 {
				v = v[:80] + "…"
			}
			return fmt.Sprintf("%s(%q)", c.Name, v)
		}
	}
	return c.Name
}
