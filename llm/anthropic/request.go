package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/packages/param"

	"github.com/vigil-dev/vigil/llm"
)

// emptySchema stands in for a tool that declares no schema: the API requires
// an object schema.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// newParams converts req to the SDK's request. A request that cannot be
// expressed fails with a BadRequest error, before anything is sent.
func (m *Model) newParams(req llm.Request) (sdk.MessageNewParams, error) {
	p, err := convertRequest(req, m.model, m.maxOutput, m.thinking, m.thinkingMap)
	if err != nil {
		return p, &llm.Error{Kind: llm.BadRequest, Provider: m.provider, Message: err.Error(), Err: err}
	}
	return p, nil
}

// convertRequest converts req for the model id. maxOutput is max_tokens when
// req sets none, thinking the level when req asks for none, and tm what
// each level becomes (its style budget or adaptive).
func convertRequest(req llm.Request, model string, maxOutput int64, thinking llm.ThinkingLevel, tm llm.ThinkingMap) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{
		Model:     sdk.Model(model),
		MaxTokens: maxOutput,
	}
	if req.MaxTokens < 0 {
		return p, fmt.Errorf("convert request: negative MaxTokens %d", req.MaxTokens)
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = int64(req.MaxTokens)
	}

	level := req.Thinking
	if level == "" {
		level = thinking
	}
	if level != "" {
		if _, err := llm.ParseThinkingLevel(string(level)); err != nil {
			return p, fmt.Errorf("convert request: %w", err)
		}
	}
	tm = tm.WithDefaultStyle(llm.ThinkingBudget)
	thinks, err := setThinking(&p, tm.Value(level), tm.Style, tm.DisplayValue(), maxOutput)
	if err != nil {
		return p, fmt.Errorf("convert request: thinking level %s: %w", level, err)
	}
	if !thinks && req.Temperature != nil {
		// The SDK no longer models temperature, which the API deprecates;
		// it goes as an extra field for the models and proxies that take it.
		// Thinking does not accept one.
		p.SetExtraFields(map[string]any{"temperature": *req.Temperature})
	}

	if req.System != "" {
		p.System = []sdk.TextBlockParam{{Text: req.System, CacheControl: ephemeral()}}
	}

	tools, err := convertTools(req.Tools)
	if err != nil {
		return p, fmt.Errorf("convert tools: %w", err)
	}
	p.Tools = tools

	msgs, err := convertMessages(req.Messages)
	if err != nil {
		return p, fmt.Errorf("convert messages: %w", err)
	}
	p.Messages = msgs
	return p, nil
}

// setThinking sets p's thinking (and, for an adaptive effort, its
// output_config) to the wire value v of a map of the given style, and
// reports whether that turns thinking on. display is thinking.display for
// the types that take one (enabled and adaptive), "default" for none. A
// budget counts towards max_tokens, which must exceed it: max_tokens is
// raised to the budget plus maxOutput when it would not.
func setThinking(p *sdk.MessageNewParams, v string, style llm.ThinkingStyle, display string, maxOutput int64) (bool, error) {
	if display == llm.ThinkingSendNothing {
		display = ""
	}
	switch v {
	case llm.ThinkingSendNothing:
		return false, nil
	case llm.ThinkingDisabled:
		p.Thinking = sdk.ThinkingConfigParamUnion{OfDisabled: &sdk.ThinkingConfigDisabledParam{}}
		return false, nil
	}
	switch style {
	case llm.ThinkingBudget:
		budget, ok := llm.ThinkingBudgetOf(v)
		if !ok {
			return false, fmt.Errorf("%q is not a thinking budget", v)
		}
		p.Thinking = sdk.ThinkingConfigParamUnion{OfEnabled: &sdk.ThinkingConfigEnabledParam{
			BudgetTokens: budget,
			Display:      sdk.ThinkingConfigEnabledDisplay(display),
		}}
		if p.MaxTokens <= budget {
			p.MaxTokens = budget + maxOutput
		}
	case llm.ThinkingAdaptive:
		switch v {
		case llm.ThinkingBetweenTools:
			p.Thinking = sdk.ThinkingConfigParamUnion{OfBetweenTools: &sdk.ThinkingConfigBetweenToolsParam{}}
		default:
			p.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{
				Display: sdk.ThinkingConfigAdaptiveDisplay(display),
			}}
			if v != llm.ThinkingAdaptiveOnly {
				p.OutputConfig = sdk.OutputConfigParam{Effort: sdk.OutputConfigEffort(v)}
			}
		}
	default:
		return false, fmt.Errorf("the Messages API takes no thinking style %q", style)
	}
	return true, nil
}

// ephemeral is a prompt-cache breakpoint with the API's default lifetime.
func ephemeral() sdk.CacheControlEphemeralParam {
	return sdk.NewCacheControlEphemeralParam()
}

// convertTools converts the tool definitions, with a cache breakpoint on the last.
func convertTools(tools []llm.Tool) ([]sdk.ToolUnionParam, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	out := make([]sdk.ToolUnionParam, 0, len(tools))
	for _, t := range tools {
		if t.Name == "" {
			return nil, fmt.Errorf("tool with no name")
		}
		schema := t.Schema
		if len(schema) == 0 {
			schema = emptySchema
		}
		if !json.Valid(schema) {
			return nil, fmt.Errorf("tool %s: schema is not valid JSON", t.Name)
		}
		tp := &sdk.ToolParam{
			Name: t.Name,
			// Sent exactly as written, keywords the SDK does not model
			// included.
			InputSchema: param.Override[sdk.ToolInputSchemaParam](schema),
		}
		if t.Description != "" {
			tp.Description = param.NewOpt(t.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: tp})
	}
	out[len(out)-1].OfTool.CacheControl = ephemeral()
	return out, nil
}

// convertMessages converts the conversation, with a cache breakpoint on the last
// block of the last message.
func convertMessages(msgs []llm.Message) ([]sdk.MessageParam, error) {
	out := make([]sdk.MessageParam, 0, len(msgs))
	for i, msg := range msgs {
		if msg.Role != llm.RoleUser && msg.Role != llm.RoleAssistant {
			return nil, fmt.Errorf("message %d: unknown role %q", i, msg.Role)
		}
		blocks, err := convertBlocks(msg.Content)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		if len(blocks) == 0 {
			// Nothing the API accepts is left; it merges the turns around
			// it when they share a role.
			continue
		}
		if msg.Role == llm.RoleUser {
			out = append(out, sdk.MessageParam{OfUser: &sdk.UserMessageParam{Content: blocks}})
		} else {
			out = append(out, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{Content: blocks}})
		}
	}
	if n := len(out); n > 0 {
		if u := out[n-1].OfUser; u != nil {
			markLastCacheable(u.Content)
		} else {
			markLastCacheable(out[n-1].OfAssistant.Content)
		}
	}
	return out, nil
}

// markLastCacheable puts a cache breakpoint on the last block that takes
// one; thinking blocks do not.
func markLastCacheable(blocks []sdk.ContentBlockParamUnion) {
	for i := len(blocks) - 1; i >= 0; i-- {
		b := &blocks[i]
		switch {
		case b.OfText != nil:
			b.OfText.CacheControl = ephemeral()
		case b.OfImage != nil:
			b.OfImage.CacheControl = ephemeral()
		case b.OfToolUse != nil:
			b.OfToolUse.CacheControl = ephemeral()
		case b.OfToolResult != nil:
			b.OfToolResult.CacheControl = ephemeral()
		default:
			continue
		}
		return
	}
}

// convertBlocks converts a message's content.
func convertBlocks(content []llm.Block) ([]sdk.ContentBlockParamUnion, error) {
	out := make([]sdk.ContentBlockParamUnion, 0, len(content))
	for i, b := range content {
		switch b.Type {
		case llm.BlockText:
			if b.Text == "" {
				continue
			}
			out = append(out, sdk.ContentBlockParamUnion{OfText: &sdk.TextBlockParam{Text: b.Text}})
		case llm.BlockThinking:
			if b.Signature == "" {
				continue
			}
			out = append(out, sdk.ContentBlockParamUnion{OfThinking: &sdk.ThinkingBlockParam{Thinking: b.Text, Signature: b.Signature}})
		case llm.BlockRedactedThinking:
			out = append(out, sdk.ContentBlockParamUnion{OfRedactedThinking: &sdk.RedactedThinkingBlockParam{Data: b.Data}})
		case llm.BlockToolCall:
			args := b.Arguments
			if len(args) == 0 {
				args = json.RawMessage("{}")
			}
			if !json.Valid(args) {
				return nil, fmt.Errorf("block %d: tool call %s (%s): arguments are not valid JSON", i, b.ID, b.Name)
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: b.ID, Name: b.Name, Input: args}})
		case llm.BlockToolResult:
			tr, err := convertToolResult(b)
			if err != nil {
				return nil, fmt.Errorf("block %d: %w", i, err)
			}
			out = append(out, sdk.ContentBlockParamUnion{OfToolResult: tr})
		case llm.BlockImage:
			out = append(out, sdk.ContentBlockParamUnion{OfImage: convertImage(b)})
		default:
			return nil, fmt.Errorf("block %d: unknown block type %q", i, b.Type)
		}
	}
	return out, nil
}

// convertToolResult converts a tool result, whose content may hold text and images.
func convertToolResult(b llm.Block) (*sdk.ToolResultBlockParam, error) {
	tr := &sdk.ToolResultBlockParam{ToolUseID: b.ID}
	if b.IsError {
		tr.IsError = param.NewOpt(true)
	}
	for _, c := range b.Content {
		switch c.Type {
		case llm.BlockText:
			if c.Text == "" {
				continue
			}
			tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfText: &sdk.TextBlockParam{Text: c.Text}})
		case llm.BlockImage:
			tr.Content = append(tr.Content, sdk.ToolResultBlockParamContentUnion{OfImage: convertImage(c)})
		default:
			return nil, fmt.Errorf("tool result %s holds a %s block; only text and images fit", b.ID, c.Type)
		}
	}
	return tr, nil
}

func convertImage(b llm.Block) *sdk.ImageBlockParam {
	return &sdk.ImageBlockParam{Source: sdk.ImageBlockParamSourceUnion{OfBase64: &sdk.Base64ImageSourceParam{
		Data:      b.Data,
		MediaType: sdk.Base64ImageSourceMediaType(b.MediaType),
	}}}
}
