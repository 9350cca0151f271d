package openai

import (
	"fmt"

	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/vigil-dev/vigil/llm"
)

// responsesParams converts req to a Responses request. Nothing is stored on
// the server (store: false): every request carries the whole conversation,
// reasoning items included, so it also works where storage is disabled.
func (m *Model) responsesParams(req llm.Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model: m.cfg.Model,
		Store: param.NewOpt(false),
	}
	if req.System != "" {
		p.Instructions = param.NewOpt(req.System)
	}
	var items responses.ResponseInputParam
	for i, msg := range req.Messages {
		var err error
		switch msg.Role {
		case llm.RoleUser:
			items, err = appendResponsesUser(items, msg)
		case llm.RoleAssistant:
			items, err = appendResponsesAssistant(items, msg)
		default:
			err = fmt.Errorf("unknown role %q", msg.Role)
		}
		if err != nil {
			return p, fmt.Errorf("message %d: %w", i, err)
		}
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: items}
	for _, t := range req.Tools {
		params, err := toolParameters(t.Schema)
		if err != nil {
			return p, fmt.Errorf("tool %s: %w", t.Name, err)
		}
		fn := &responses.FunctionToolParam{Name: t.Name, Parameters: params, Strict: param.NewOpt(false)}
		if t.Description != "" {
			fn.Description = param.NewOpt(t.Description)
		}
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfFunction: fn})
	}
	if n := m.maxTokens(req); n > 0 {
		p.MaxOutputTokens = param.NewOpt(n)
	}
	if m.cfg.Reasoning {
		// A reasoning model reasons even at its default effort; without
		// the encrypted content its reasoning could not be sent back.
		p.Include = []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}
		if e := m.effort(m.thinking(req)); e != "" {
			p.Reasoning = shared.ReasoningParam{Effort: e, Summary: shared.ReasoningSummaryAuto}
		}
	}
	if req.Temperature != nil {
		p.Temperature = param.NewOpt(*req.Temperature)
	}
	return p, nil
}

// appendResponsesUser appends a user message: each tool result becomes a
// function_call_output item where it stands, and the text and images
// between them a message item.
func appendResponsesUser(items responses.ResponseInputParam, msg llm.Message) (responses.ResponseInputParam, error) {
	var content responses.ResponseInputMessageContentListParam
	flush := func() {
		if len(content) == 0 {
			return
		}
		items = append(items, responses.ResponseInputItemUnionParam{OfInputMessage: &responses.ResponseInputItemMessageParam{
			Type:    "message",
			Role:    "user",
			Content: content,
		}})
		content = nil
	}
	for _, b := range msg.Content {
		switch b.Type {
		case llm.BlockText:
			content = append(content, responses.ResponseInputContentUnionParam{OfInputText: &responses.ResponseInputTextParam{Text: b.Text}})
		case llm.BlockImage:
			content = append(content, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
				ImageURL: param.NewOpt(dataURL(b)),
				Detail:   responses.ResponseInputImageDetailAuto,
			}})
		case llm.BlockToolResult:
			flush()
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
				CallID: param.NewOpt(b.ID),
				Output: functionOutput(b),
			}})
		case llm.BlockThinking, llm.BlockRedactedThinking:
		default:
			return items, fmt.Errorf("user message holds a %s block", b.Type)
		}
	}
	flush()
	return items, nil
}

// functionOutput is a tool result's output: its text, or a list of text and
// images when it returned images, which the Responses API accepts.
func functionOutput(b llm.Block) responses.ResponseInputItemFunctionCallOutputOutputUnionParam {
	text, images := splitToolResult(b)
	if len(images) == 0 {
		return responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: param.NewOpt(text)}
	}
	var list responses.ResponseFunctionCallOutputItemListParam
	for _, c := range b.Content {
		switch c.Type {
		case llm.BlockText:
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputText: &responses.ResponseInputTextContentParam{Text: c.Text}})
		case llm.BlockImage:
			list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{OfInputImage: &responses.ResponseInputImageContentParam{
				ImageURL: param.NewOpt(dataURL(c)),
				Detail:   responses.ResponseInputImageContentDetailAuto,
			}})
		}
	}
	return responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list}
}

// appendResponsesAssistant appends an assistant message's blocks in order:
// thinking as the reasoning item its signature holds, text as an output
// message, tool calls as function_call items. Thinking from another
// provider, or without encrypted content, cannot be sent back and is left
// out; so is redacted thinking, which only Anthropic makes.
func appendResponsesAssistant(items responses.ResponseInputParam, msg llm.Message) (responses.ResponseInputParam, error) {
	for _, b := range msg.Content {
		switch b.Type {
		case llm.BlockThinking:
			r, ok := decodeReasoning(b.Signature)
			if !ok {
				continue
			}
			summary := make([]responses.ResponseReasoningItemSummaryParam, 0, len(r.Summary))
			for _, s := range r.Summary {
				summary = append(summary, responses.ResponseReasoningItemSummaryParam{Text: s})
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfReasoning: &responses.ResponseReasoningItemParam{
				ID:               r.ID,
				Summary:          summary,
				EncryptedContent: param.NewOpt(r.EncryptedContent),
			}})
		case llm.BlockText:
			if b.Text == "" {
				continue
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfOutputMessage: &responses.ResponseOutputMessageParam{
				Content: []responses.ResponseOutputMessageContentUnionParam{{
					OfOutputText: &responses.ResponseOutputTextParam{Text: b.Text, Annotations: []responses.ResponseOutputTextAnnotationUnionParam{}},
				}},
				Status: responses.ResponseOutputMessageStatusCompleted,
			}})
		case llm.BlockToolCall:
			args, err := callArguments(b)
			if err != nil {
				return items, err
			}
			items = append(items, responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
				CallID:    b.ID,
				Name:      b.Name,
				Arguments: args,
			}})
		case llm.BlockRedactedThinking, llm.BlockImage:
		default:
			return items, fmt.Errorf("assistant message holds a %s block", b.Type)
		}
	}
	return items, nil
}
