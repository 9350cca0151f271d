package openai

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/shared"

	"github.com/vigil-dev/vigil/llm"
)

// chatParams converts req to a Chat Completions request.
func (m *Model) chatParams(req llm.Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model: m.cfg.Model,
		StreamOptions: openai.ChatCompletionStreamOptionsParam{
			IncludeUsage: param.NewOpt(true),
		},
	}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	for i, msg := range req.Messages {
		var err error
		switch msg.Role {
		case llm.RoleUser:
			p.Messages, err = appendChatUser(p.Messages, msg)
		case llm.RoleAssistant:
			p.Messages, err = appendChatAssistant(p.Messages, msg)
		default:
			err = fmt.Errorf("unknown role %q", msg.Role)
		}
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
	}
	for _, t := range req.Tools {
		params, err := toolParameters(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		def := shared.FunctionDefinitionParam{Name: t.Name, Parameters: params}
		if t.Description != "" {
			def.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, openai.ChatCompletionFunctionTool(def))
	}
	if n := m.maxTokens(req); n > 0 {
		p.MaxCompletionTokens = param.NewOpt(n)
	}
	if e := m.effort(m.thinking(req)); e != "" {
		p.ReasoningEffort = e
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	return p, nil
}

// appendChatUser appends a user message. Its tool results become one tool
// message each, first, because Chat Completions wants them right after the
// assistant message that made the calls. Then comes one user message with
// the images the tool results returned (a tool message holds only text;
// each image set is introduced by a line naming its call, and the tool
// message says where its images went), followed by the message's own text
// and images.
func appendChatUser(out []openai.ChatCompletionMessageParamUnion, msg llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var parts, toolImages []openai.ChatCompletionContentPartUnionParam
	for _, b := range msg.Content {
		switch b.Type {
		case llm.BlockText:
			parts = append(parts, openai.TextContentPart(b.Text))
		case llm.BlockImage:
			parts = append(parts, chatImage(b))
		case llm.BlockToolResult:
			text, images := splitToolResult(b)
			if len(images) > 0 {
				toolImages = append(toolImages, openai.TextContentPart(fmt.Sprintf("Images returned by tool call %s:", b.ID)))
				for _, img := range images {
					toolImages = append(toolImages, chatImage(img))
				}
				text = joinNonEmpty(text, fmt.Sprintf("[%d image(s) attached in the next user message]", len(images)))
			}
			out = append(out, openai.ToolMessage(text, b.ID))
		case llm.BlockThinking, llm.BlockRedactedThinking:
			// Not the user's to send; nothing to carry.
		default:
			return out, fmt.Errorf("user message holds a %s block", b.Type)
		}
	}
	parts = append(toolImages, parts...)
	switch {
	case len(parts) == 0:
		return out, nil
	case len(parts) == 1 && parts[0].OfText != nil:
		// A plain string is what every compatible server understands.
		return append(out, openai.UserMessage(parts[0].OfText.Text)), nil
	}
	return append(out, openai.UserMessage(parts)), nil
}

// appendChatAssistant appends an assistant message: its text and tool calls.
// Thinking is left out, as Chat Completions has no field to send it back in;
// a message left with nothing is dropped.
func appendChatAssistant(out []openai.ChatCompletionMessageParamUnion, msg llm.Message) ([]openai.ChatCompletionMessageParamUnion, error) {
	var text []string
	var calls []openai.ChatCompletionMessageToolCallUnionParam
	for _, b := range msg.Content {
		switch b.Type {
		case llm.BlockText:
			if b.Text != "" {
				text = append(text, b.Text)
			}
		case llm.BlockToolCall:
			args, err := callArguments(b)
			if err != nil {
				return out, err
			}
			calls = append(calls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID: b.ID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{
						Name:      b.Name,
						Arguments: args,
					},
				},
			})
		case llm.BlockThinking, llm.BlockRedactedThinking, llm.BlockImage:
			// No Chat Completions field carries these in an assistant turn.
		default:
			return out, fmt.Errorf("assistant message holds a %s block", b.Type)
		}
	}
	if len(text) == 0 && len(calls) == 0 {
		return out, nil
	}
	a := openai.ChatCompletionAssistantMessageParam{ToolCalls: calls}
	if len(text) > 0 {
		a.Content.OfString = param.NewOpt(strings.Join(text, "\n"))
	}
	return append(out, openai.ChatCompletionMessageParamUnion{OfAssistant: &a}), nil
}

func chatImage(b llm.Block) openai.ChatCompletionContentPartUnionParam {
	return openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(b)})
}

// dataURL returns an image block as a data URL.
func dataURL(b llm.Block) string {
	mt := b.MediaType
	if mt == "" {
		mt = "image/png"
	}
	return "data:" + mt + ";base64," + b.Data
}

// splitToolResult returns a tool result's text, its text blocks joined by
// newlines, and its image blocks.
func splitToolResult(b llm.Block) (string, []llm.Block) {
	var text []string
	var images []llm.Block
	for _, c := range b.Content {
		switch c.Type {
		case llm.BlockText:
			text = append(text, c.Text)
		case llm.BlockImage:
			images = append(images, c)
		}
	}
	return strings.Join(text, "\n"), images
}

func joinNonEmpty(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n" + b
}

// callArguments returns a tool call's arguments as the JSON text both APIs
// want, {} when empty.
func callArguments(b llm.Block) (string, error) {
	if len(b.Arguments) == 0 {
		return "{}", nil
	}
	if !json.Valid(b.Arguments) {
		return "", fmt.Errorf("tool call %s (%s): arguments are not valid JSON", b.ID, b.Name)
	}
	return string(b.Arguments), nil
}

// toolParameters turns a tool's JSON schema into the SDK's parameters map.
// Each top-level value stays raw JSON, so nested key order is kept as the
// caller wrote it. An empty schema is an object with no properties.
func toolParameters(schema json.RawMessage) (map[string]any, error) {
	if len(schema) == 0 {
		return map[string]any{"type": "object", "properties": map[string]any{}}, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(schema, &fields); err != nil {
		return nil, fmt.Errorf("schema is not a JSON object: %w", err)
	}
	params := make(map[string]any, len(fields))
	for k, v := range fields {
		params[k] = v
	}
	return params, nil
}
