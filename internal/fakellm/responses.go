package fakellm

import (
	"encoding/json"
	"fmt"
	"slices"
)

// responsesAPI is the OpenAI Responses API (POST /v1/responses). Thinking is a
// reasoning item whose summary is the thinking text; its encrypted_content
// (the step's signature, or its redacted thinking) is sent only when the
// request includes "reasoning.encrypted_content", as the real API does.
type responsesAPI struct{}

type responsesRequest struct {
	Model        string          `json:"model"`
	Stream       bool            `json:"stream"`
	Instructions json.RawMessage `json:"instructions"`
	Tools        json.RawMessage `json:"tools"`
	Input        json.RawMessage `json:"input"`
	Include      []string        `json:"include"`
	Reasoning    *struct {
		Effort *string `json:"effort"`
	} `json:"reasoning"`
}

func (responsesAPI) parse(body []byte) (*wireRequest, error) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("decode responses request: %w", err)
	}
	if req.Reasoning != nil {
		if err := checkOpenAIEffort("reasoning.effort", req.Reasoning.Effort); err != nil {
			return nil, err
		}
	}
	var p promptText
	p.add("system", req.Instructions)
	p.addEach("tool", req.Tools)
	p.addEach("message", req.Input)
	return &wireRequest{
		model:              req.Model,
		stream:             req.Stream,
		prompt:             p.String(),
		encryptedReasoning: slices.Contains(req.Include, "reasoning.encrypted_content"),
	}, nil
}

// responsesStatus is the response status and incomplete_details for a stop.
func responsesStatus(k stopKind) (string, any) {
	switch k {
	case stopMaxTokens, stopContextWindow:
		return "incomplete", obj("reason", "max_output_tokens")
	case stopRefusal, stopContentFilter:
		return "incomplete", obj("reason", "content_filter")
	}
	return "completed", nil
}

func responsesUsage(rp *reply) object {
	u := rp.usage
	input := u.Input + u.CacheRead + u.CacheWrite
	return obj(
		"input_tokens", input,
		"input_tokens_details", obj("cached_tokens", u.CacheRead),
		"output_tokens", u.Output,
		"output_tokens_details", obj("reasoning_tokens", min(u.Output, tokens(len(rp.thinking)))),
		"total_tokens", input+u.Output,
	)
}

// response renders the response object with the given output and status;
// usage is left null while the response is in progress.
func (responsesAPI) response(rp *reply, status string, incomplete any, output []object) object {
	var usage any
	if status != "in_progress" {
		usage = responsesUsage(rp)
	}
	if output == nil {
		output = []object{}
	}
	return obj(
		"id", rp.id("resp"),
		"object", "response",
		"created_at", rp.created.Unix(),
		"status", status,
		"background", false,
		"error", nil,
		"incomplete_details", incomplete,
		"instructions", nil,
		"max_output_tokens", nil,
		"model", rp.model,
		"output", output,
		"parallel_tool_calls", true,
		"previous_response_id", nil,
		"reasoning", obj("effort", nil, "summary", nil),
		"store", false,
		"temperature", 1,
		"text", obj("format", obj("type", "text")),
		"tool_choice", "auto",
		"tools", []any{},
		"top_p", 1,
		"truncation", "disabled",
		"usage", usage,
		"user", nil,
		"metadata", obj(),
	)
}

// Output item kinds, in the order they are sent.
const (
	itemReasoning = "reasoning"
	itemMessage   = "message"
	itemCall      = "function_call"
)

// outputItem is one item of the output, with what streaming needs to know.
type outputItem struct {
	kind string
	id   string
	call int // index into rp.calls for a function call
}

func (responsesAPI) items(rp *reply) []outputItem {
	var out []outputItem
	if rp.thinking != "" || rp.redacted != "" {
		out = append(out, outputItem{kind: itemReasoning, id: rp.id("rs")})
	}
	if rp.text != "" || len(out) == 0 && len(rp.calls) == 0 {
		out = append(out, outputItem{kind: itemMessage, id: rp.id("msg")})
	}
	for k := range rp.calls {
		out = append(out, outputItem{kind: itemCall, id: rp.itemID("fc", k), call: k})
	}
	return out
}

// render renders an output item, finished (done) or as first announced.
func (responsesAPI) render(rp *reply, it outputItem, done bool, itemStatus string) object {
	switch it.kind {
	case itemReasoning:
		summary := []object{}
		if done && rp.thinking != "" {
			summary = append(summary, obj("type", "summary_text", "text", rp.thinking))
		}
		o := obj("id", it.id, "type", "reasoning", "summary", summary)
		if rp.encryptedReasoning {
			enc := rp.redacted
			if rp.thinking != "" {
				enc = rp.signature
			}
			o = append(o, "encrypted_content", enc)
		}
		return o
	case itemMessage:
		content := []object{}
		status := "in_progress"
		if done {
			content = append(content, outputText(rp.text))
			status = itemStatus
		}
		return obj("id", it.id, "type", "message", "status", status, "role", "assistant", "content", content)
	}
	c := rp.calls[it.call]
	args, status := "", "in_progress"
	if done {
		args, status = c.args, itemStatus
	}
	o := obj("id", it.id, "type", "function_call", "status", status,
		"arguments", args, "call_id", rp.callID("call", it.call), "name", c.name)
	if c.namespace != "" {
		o = append(o, "namespace", c.namespace)
	}
	return o
}

func outputText(text string) object {
	return obj("type", "output_text", "text", text, "annotations", []any{}, "logprobs", []any{})
}

func (r responsesAPI) body(rp *reply) any {
	status, incomplete := responsesStatus(rp.stop)
	var output []object
	for _, it := range r.items(rp) {
		output = append(output, r.render(rp, it, true, status))
	}
	return r.response(rp, status, incomplete, output)
}

func (r responsesAPI) events(rp *reply) []event {
	var evs []event
	emit := func(typ string, kv ...any) {
		fields := append([]any{"type", typ, "sequence_number", len(evs)}, kv...)
		evs = append(evs, event{name: typ, data: marshal(obj(fields...))})
	}
	status, incomplete := responsesStatus(rp.stop)
	emit("response.created", "response", r.response(rp, "in_progress", nil, nil))
	emit("response.in_progress", "response", r.response(rp, "in_progress", nil, nil))
	var output []object
	for i, it := range r.items(rp) {
		emit("response.output_item.added", "output_index", i, "item", r.render(rp, it, false, status))
		switch it.kind {
		case itemReasoning:
			if rp.thinking == "" {
				break
			}
			at := []any{"item_id", it.id, "output_index", i, "summary_index", 0}
			emit("response.reasoning_summary_part.added", append(at, "part", obj("type", "summary_text", "text", ""))...)
			for _, part := range rp.textChunks(rp.thinking) {
				emit("response.reasoning_summary_text.delta", append(at, "delta", part)...)
			}
			emit("response.reasoning_summary_text.done", append(at, "text", rp.thinking)...)
			emit("response.reasoning_summary_part.done", append(at, "part", obj("type", "summary_text", "text", rp.thinking))...)
		case itemMessage:
			at := []any{"item_id", it.id, "output_index", i, "content_index", 0}
			emit("response.content_part.added", append(at, "part", outputText(""))...)
			for _, part := range rp.textChunks(rp.text) {
				emit("response.output_text.delta", append(at, "delta", part, "logprobs", []any{})...)
			}
			emit("response.output_text.done", append(at, "text", rp.text, "logprobs", []any{})...)
			emit("response.content_part.done", append(at, "part", outputText(rp.text))...)
		case itemCall:
			at := []any{"item_id", it.id, "output_index", i}
			args := rp.calls[it.call].args
			for _, part := range rp.argChunks(args) {
				emit("response.function_call_arguments.delta", append(at, "delta", part)...)
			}
			emit("response.function_call_arguments.done", append(at, "name", rp.calls[it.call].name, "arguments", args)...)
		}
		done := r.render(rp, it, true, status)
		output = append(output, done)
		emit("response.output_item.done", "output_index", i, "item", done)
	}
	terminal := "response.completed"
	if status == "incomplete" {
		terminal = "response.incomplete"
	}
	emit(terminal, "response", r.response(rp, status, incomplete, output))
	return evs
}

func (responsesAPI) errorBody(status int, msg string) any { return openAIErrorBody(status, msg) }

func (responsesAPI) tooLong(n, max int) string { return openAITooLong(n, max) }
