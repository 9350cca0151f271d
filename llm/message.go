package llm

import (
	"encoding/json"
	"strings"
)

// Role says who wrote a message.
type Role string

// The roles a conversation holds. Tool results travel in user messages, as
// Anthropic's API has them; adapters for other APIs split them out.
const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// BlockType says what a content block holds.
type BlockType string

// The kinds of content block.
const (
	BlockText             BlockType = "text"
	BlockThinking         BlockType = "thinking"
	BlockRedactedThinking BlockType = "redacted_thinking"
	BlockToolCall         BlockType = "tool_call"
	BlockToolResult       BlockType = "tool_result"
	BlockImage            BlockType = "image"
)

// Block is one piece of a message's content. Which fields are meaningful
// depends on Type:
//
//   - text: Text.
//   - thinking: Text is the reasoning, Signature the provider's opaque proof
//     that must be returned unchanged on the next request.
//   - redacted_thinking: Data, opaque.
//   - tool_call: ID, Name, Arguments (a JSON object).
//   - tool_result: ID (the call it answers), Content (text and image blocks),
//     IsError.
//   - image: MediaType and Data (base64).
//
// The JSON form is the one vigil's session files store.
type Block struct {
	Type      BlockType       `json:"type"`
	Text      string          `json:"text,omitempty"`
	Signature string          `json:"signature,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
	Content   []Block         `json:"content,omitempty"`
	IsError   bool            `json:"is_error,omitempty"`
	MediaType string          `json:"media_type,omitempty"`
	Data      string          `json:"data,omitempty"`
}

// Text returns a text block.
func Text(s string) Block { return Block{Type: BlockText, Text: s} }

// Thinking returns a thinking block with the provider's signature.
func Thinking(text, signature string) Block {
	return Block{Type: BlockThinking, Text: text, Signature: signature}
}

// RedactedThinking returns a redacted thinking block holding opaque data.
func RedactedThinking(data string) Block {
	return Block{Type: BlockRedactedThinking, Data: data}
}

// ToolCall returns a tool call block. Empty arguments become {}.
func ToolCall(id, name string, arguments json.RawMessage) Block {
	if len(arguments) == 0 {
		arguments = json.RawMessage("{}")
	}
	return Block{Type: BlockToolCall, ID: id, Name: name, Arguments: arguments}
}

// ToolResult returns the result of the tool call with the given id.
func ToolResult(callID string, isError bool, content ...Block) Block {
	return Block{Type: BlockToolResult, ID: callID, IsError: isError, Content: content}
}

// Image returns an image block; data is base64.
func Image(mediaType, data string) Block {
	return Block{Type: BlockImage, MediaType: mediaType, Data: data}
}

// Message is one turn of a conversation.
type Message struct {
	Role    Role    `json:"role"`
	Content []Block `json:"content"`
}

// UserText returns a user message holding one text block.
func UserText(s string) Message { return Message{Role: RoleUser, Content: []Block{Text(s)}} }

// Text returns the concatenation of the message's text blocks.
func (m Message) Text() string {
	var sb strings.Builder
	for _, b := range m.Content {
		if b.Type == BlockText {
			sb.WriteString(b.Text)
		}
	}
	return sb.String()
}

// ToolCalls returns the message's tool call blocks in order.
func (m Message) ToolCalls() []Block {
	var calls []Block
	for _, b := range m.Content {
		if b.Type == BlockToolCall {
			calls = append(calls, b)
		}
	}
	return calls
}

// Tool describes a tool the model may call. Schema is a JSON schema of the
// arguments object.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
}

// Request is one call to a model.
type Request struct {
	// System is the system prompt.
	System string
	// Messages is the conversation so far; the last one is usually the
	// user's.
	Messages []Message
	// Tools the model may call.
	Tools []Tool
	// MaxTokens caps the reply; 0 means the model's own maximum output.
	MaxTokens int
	// Thinking sets how hard a reasoning model thinks; "" means the level
	// the model reference asked for, or when it named none the model's own
	// default (no thinking setting is sent). What a level becomes on the
	// wire is the model's [ThinkingMap].
	Thinking ThinkingLevel
	// Temperature, when set, overrides the provider's default.
	Temperature *float64
}
