package advisor

import (
	"slices"

	"github.com/vigil-dev/vigil/llm"
)

// resetContext empties the advisor's own context after a history rewrite.
func (r *Runtime) resetContext() {
	r.setMessages(nil)
	r.renderer.Reset()
	r.guard.Reset()
	r.continuing = false
	r.reported, r.reportedAt = 0, 0
	r.mu.Lock()
	r.status.Resets++
	r.mu.Unlock()
}

// setMessages replaces the advisor's context and publishes it. msgs must
// not share a backing array with an earlier, longer context (truncate with
// a copy), so that a published context is never written under a reader.
func (r *Runtime) setMessages(msgs []llm.Message) {
	r.messages = msgs
	r.reviewAt = min(r.reviewAt, len(msgs))
	r.usages = slices.Clone(r.usages[:min(len(r.usages), len(msgs))])
	r.recorded = min(r.recorded, len(msgs))
	r.publish()
}

// appendMessage adds one message to the advisor's context and publishes
// it; u is the usage of the reply that made it, zero for user messages.
//
// It is the one way text enters the context that the model did not write
// (session updates, detector findings, the results of its tools, errors
// quoted back), so every such message passes the Redactor here: what
// leaves for the advisor model, what the Recorder keeps and what a dump
// shows are redacted alike. The model's own replies are kept as they
// came, thinking signatures intact: it can only repeat what it was shown.
func (r *Runtime) appendMessage(m llm.Message, u llm.Usage) {
	if m.Role != llm.RoleAssistant {
		m = r.opts.Redactor.RedactMessage(m)
	}
	r.messages = append(r.messages, m)
	r.usages = append(r.usages, u)
	r.publish()
}

// record hands the Recorder the context's messages it does not have yet:
// called when a review completes, or fails keeping what it delivered.
func (r *Runtime) record() {
	if r.opts.Recorder == nil {
		r.recorded = len(r.messages)
		return
	}
	for ; r.recorded < len(r.messages); r.recorded++ {
		r.opts.Recorder.Record(r.messages[r.recorded], r.usages[r.recorded])
	}
}

func (r *Runtime) publish() {
	r.mu.Lock()
	r.shared = r.messages
	r.status.ContextMessages = len(r.messages)
	r.status.ContextTokens = r.contextTokens()
	r.mu.Unlock()
}

// contextTokens anchors on the last reported prompt size and estimates the
// rest at 4 bytes a token.
func (r *Runtime) contextTokens() int64 {
	from := min(r.reportedAt, len(r.messages))
	n := r.reported
	if from == 0 {
		n = int64(len(r.system)) / 4
		for _, d := range r.defs {
			n += int64(len(d.Name)+len(d.Description)+len(d.Schema)) / 4
		}
	}
	for _, m := range r.messages[from:] {
		n += estimateMessage(m)
	}
	return n
}

// estimateMessage is a message's size in tokens at 4 bytes a token.
func estimateMessage(m llm.Message) int64 {
	n := 0
	for _, b := range m.Content {
		n += len(b.Text) + len(b.Arguments) + len(b.Name)
		for _, c := range b.Content {
			n += len(c.Text)
		}
	}
	return int64(n/4 + 4)
}

// SetModel makes m, named name (provider/model), the advisor model from
// the next model call on; the advisor's context is kept. It is how a
// changed advisor model takes effect without a restart. m must not be nil.
func (r *Runtime) SetModel(m llm.Model, name string) {
	if m == nil {
		return
	}
	r.mu.Lock()
	r.model, r.modelName = m, name
	r.mu.Unlock()
}

// currentModel returns the advisor model and its name.
func (r *Runtime) currentModel() (llm.Model, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.model, r.modelName
}
