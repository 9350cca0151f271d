package fakellm

import (
	"encoding/json"
	"fmt"
)

// chatAPI is the OpenAI Chat Completions API (POST /v1/chat/completions).
// Thinking is sent as reasoning_content, as DeepSeek and vLLM do; Chat has
// no place for redacted thinking or signatures.
type chatAPI struct{}

// chatFingerprint is the system_fingerprint of every reply.
const chatFingerprint = "fp_fakellm"

type chatRequest struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools           json.RawMessage `json:"tools"`
	Messages        json.RawMessage `json:"messages"`
	ReasoningEffort *string         `json:"reasoning_effort"`
}

func (chatAPI) parse(body []byte) (*wireRequest, error) {
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode chat completion request: %w", err)
	}
	if err := checkOpenAIEffort("reasoning_effort", req.ReasoningEffort); err != nil {
		return nil, err
	}
	var p promptText
	p.addEach("tool", req.Tools)
	p.addEach("message", req.Messages)
	return &wireRequest{
		model:        req.Model,
		stream:       req.Stream,
		prompt:       p.String(),
		includeUsage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage,
	}, nil
}

func chatFinish(k stopKind) string {
	switch k {
	case stopMaxTokens, stopContextWindow:
		return "length"
	case stopToolUse:
		return "tool_calls"
	case stopRefusal, stopContentFilter:
		return "content_filter"
	}
	return "stop"
}

func chatUsage(rp *reply) object {
	u := rp.usage
	prompt := u.Input + u.CacheRead + u.CacheWrite
	return obj(
		"prompt_tokens", prompt,
		"completion_tokens", u.Output,
		"total_tokens", prompt+u.Output,
		"prompt_tokens_details", obj("cached_tokens", u.CacheRead, "audio_tokens", 0),
		"completion_tokens_details", obj(
			"reasoning_tokens", min(u.Output, tokens(len(rp.thinking))),
			"audio_tokens", 0,
			"accepted_prediction_tokens", 0,
			"rejected_prediction_tokens", 0,
		),
	)
}

func (chatAPI) body(rp *reply) any {
	var content any // null when the reply is only tool calls
	if rp.text != "" || len(rp.calls) == 0 {
		content = rp.text
	}
	msg := obj("role", "assistant", "content", content, "refusal", nil)
	if rp.thinking != "" {
		msg = append(msg, "reasoning_content", rp.thinking)
	}
	if len(rp.calls) > 0 {
		var calls []object
		for k, c := range rp.calls {
			calls = append(calls, obj(
				"id", rp.callID("call", k),
				"type", "function",
				"function", obj("name", c.name, "arguments", c.args),
			))
		}
		msg = append(msg, "tool_calls", calls)
	}
	return obj(
		"id", rp.id("chatcmpl"),
		"object", "chat.completion",
		"created", rp.created.Unix(),
		"model", rp.model,
		"choices", []object{obj(
			"index", 0,
			"message", msg,
			"logprobs", nil,
			"finish_reason", chatFinish(rp.stop),
		)},
		"usage", chatUsage(rp),
		"system_fingerprint", chatFingerprint,
	)
}

func (chatAPI) events(rp *reply) []event {
	var evs []event
	chunk := func(choices []object, usage any) {
		c := obj(
			"id", rp.id("chatcmpl"),
			"object", "chat.completion.chunk",
			"created", rp.created.Unix(),
			"model", rp.model,
			"system_fingerprint", chatFingerprint,
			"choices", choices,
		)
		if rp.includeUsage {
			c = append(c, "usage", usage)
		}
		evs = append(evs, event{data: marshal(c)})
	}
	delta := func(d object) {
		chunk([]object{obj("index", 0, "delta", d, "logprobs", nil, "finish_reason", nil)}, nil)
	}
	delta(obj("role", "assistant", "content", ""))
	for _, part := range rp.textChunks(rp.thinking) {
		delta(obj("reasoning_content", part))
	}
	for _, part := range rp.textChunks(rp.text) {
		delta(obj("content", part))
	}
	for k, c := range rp.calls {
		delta(obj("tool_calls", []object{obj(
			"index", k,
			"id", rp.callID("call", k),
			"type", "function",
			"function", obj("name", c.name, "arguments", ""),
		)}))
		for _, part := range rp.argChunks(c.args) {
			delta(obj("tool_calls", []object{obj("index", k, "function", obj("arguments", part))}))
		}
	}
	chunk([]object{obj("index", 0, "delta", obj(), "logprobs", nil, "finish_reason", chatFinish(rp.stop))}, nil)
	if rp.includeUsage {
		chunk([]object{}, chatUsage(rp))
	}
	return append(evs, event{data: []byte("[DONE]")})
}

func (chatAPI) errorBody(status int, msg string) any { return openAIErrorBody(status, msg) }

func (chatAPI) tooLong(n, max int) string { return openAITooLong(n, max) }

// openAITooLong is OpenAI's message for a prompt over the context window.
func openAITooLong(n, max int) string {
	return fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", max, n)
}
