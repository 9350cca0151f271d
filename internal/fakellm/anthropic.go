package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// anthropicAPI is the Anthropic Messages API (POST /v1/messages).
type anthropicAPI struct{}

type anthropicRequest struct {
	Model    string          `json:"model"`
	Stream   bool            `json:"stream"`
	System   json.RawMessage `json:"system"`
	Tools    json.RawMessage `json:"tools"`
	Messages json.RawMessage `json:"messages"`
}

func (anthropicAPI) parse(body []byte) (*wireRequest, error) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode messages request: %w", err)
	}
	var th anthropicThinkingRequest
	if err := json.Unmarshal(body, &th); err != nil {
		return nil, fmt.Errorf("decode messages request: %w", err)
	}
	if err := th.check(); err != nil {
		return nil, err
	}
	var p promptText
	p.add("system", req.System)
	p.addEach("tool", req.Tools)
	p.addEach("message", req.Messages)
	return &wireRequest{
		model:        req.Model,
		stream:       req.Stream,
		prompt:       p.String(),
		cacheControl: bytes.Contains(body, []byte(`"cache_control"`)),
	}, nil
}

type anthropicMessage struct {
	ID           string         `json:"id"`
	Type         string         `json:"type"`
	Role         string         `json:"role"`
	Model        string         `json:"model"`
	Content      []any          `json:"content"`
	StopReason   *string        `json:"stop_reason"`
	StopSequence *string        `json:"stop_sequence"`
	Usage        anthropicUsage `json:"usage"`
}

type anthropicUsage struct {
	InputTokens              int `json:"input_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	OutputTokens             int `json:"output_tokens"`
}

type anthropicText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type anthropicThinking struct {
	Type      string `json:"type"`
	Thinking  string `json:"thinking"`
	Signature string `json:"signature"`
}

type anthropicRedacted struct {
	Type string `json:"type"`
	Data string `json:"data"`
}

type anthropicToolUse struct {
	Type  string          `json:"type"`
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

func anthropicStop(k stopKind) string {
	switch k {
	case stopMaxTokens:
		return "max_tokens"
	case stopToolUse:
		return "tool_use"
	case stopSequence:
		return "stop_sequence"
	case stopRefusal, stopContentFilter:
		return "refusal"
	case stopPause:
		return "pause_turn"
	case stopContextWindow:
		return "model_context_window_exceeded"
	}
	return "end_turn"
}

func anthropicUsageOf(u Usage) anthropicUsage {
	return anthropicUsage{
		InputTokens:              u.Input,
		CacheCreationInputTokens: u.CacheWrite,
		CacheReadInputTokens:     u.CacheRead,
		OutputTokens:             u.Output,
	}
}

// blocks lists the content blocks in the order the API sends them:
// thinking, redacted thinking, text, tool calls. A reply with no content at
// all (a fault that shapes the reply) has one empty text block.
func (anthropicAPI) blocks(rp *reply) []any {
	var out []any
	if rp.thinking != "" {
		out = append(out, anthropicThinking{Type: "thinking", Thinking: rp.thinking, Signature: rp.signature})
	}
	if rp.redacted != "" {
		out = append(out, anthropicRedacted{Type: "redacted_thinking", Data: rp.redacted})
	}
	if rp.text != "" || len(out) == 0 && len(rp.calls) == 0 {
		out = append(out, anthropicText{Type: "text", Text: rp.text})
	}
	for k, c := range rp.calls {
		out = append(out, anthropicToolUse{Type: "tool_use", ID: rp.callID("toolu", k), Name: c.name, Input: json.RawMessage(c.args)})
	}
	return out
}

func (a anthropicAPI) body(rp *reply) any {
	stop := anthropicStop(rp.stop)
	return anthropicMessage{
		ID:         rp.id("msg"),
		Type:       "message",
		Role:       "assistant",
		Model:      rp.model,
		Content:    a.blocks(rp),
		StopReason: &stop,
		Usage:      anthropicUsageOf(rp.usage),
	}
}

func (a anthropicAPI) events(rp *reply) []event {
	var evs []event
	emit := func(typ string, kv ...any) {
		evs = append(evs, event{name: typ, data: marshal(obj(append([]any{"type", typ}, kv...)...))})
	}
	start := anthropicUsageOf(rp.usage)
	start.OutputTokens = min(1, rp.usage.Output)
	emit("message_start", "message", anthropicMessage{
		ID: rp.id("msg"), Type: "message", Role: "assistant", Model: rp.model,
		Content: []any{}, Usage: start,
	})
	emit("ping")
	delta := func(i int, typ, key, value string) {
		emit("content_block_delta", "index", i, "delta", obj("type", typ, key, value))
	}
	for i, b := range a.blocks(rp) {
		switch b := b.(type) {
		case anthropicThinking:
			emit("content_block_start", "index", i, "content_block", anthropicThinking{Type: "thinking"})
			for _, part := range rp.textChunks(b.Thinking) {
				delta(i, "thinking_delta", "thinking", part)
			}
			delta(i, "signature_delta", "signature", b.Signature)
		case anthropicRedacted:
			emit("content_block_start", "index", i, "content_block", b)
		case anthropicText:
			emit("content_block_start", "index", i, "content_block", anthropicText{Type: "text"})
			for _, part := range rp.textChunks(b.Text) {
				delta(i, "text_delta", "text", part)
			}
		case anthropicToolUse:
			emit("content_block_start", "index", i, "content_block", anthropicToolUse{
				Type: "tool_use", ID: b.ID, Name: b.Name, Input: json.RawMessage("{}"),
			})
			delta(i, "input_json_delta", "partial_json", "")
			for _, part := range rp.argChunks(string(b.Input)) {
				delta(i, "input_json_delta", "partial_json", part)
			}
		}
		emit("content_block_stop", "index", i)
	}
	emit("message_delta",
		"delta", obj("stop_reason", anthropicStop(rp.stop), "stop_sequence", nil),
		"usage", anthropicUsageOf(rp.usage))
	emit("message_stop")
	return evs
}

func (anthropicAPI) errorBody(status int, msg string) any {
	return obj("type", "error", "error", obj("type", anthropicErrorType(status), "message", msg))
}

func (anthropicAPI) tooLong(n, max int) string {
	return fmt.Sprintf("prompt is too long: %d tokens > %d maximum", n, max)
}
