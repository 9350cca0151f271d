package openai

import (
	"encoding/json"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

func TestResponsesParams(t *testing.T) {
	sig := reasoningItem{ID: "rs_1", EncryptedContent: "ENC==", Summary: []string{"Part one.", "Part two."}}.encode()
	tests := []struct {
		name string
		cfg  Config
		req  llm.Request
		want string
	}{{
		name: "SystemAndText",
		cfg:  Config{API: llm.APIOpenAIResponses},
		req:  llm.Request{System: "Be brief.", Messages: []llm.Message{llm.UserText("hi")}, MaxTokens: 64},
		want: `{
			"model": "test-model",
			"store": false,
			"instructions": "Be brief.",
			"max_output_tokens": 64,
			"input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]}`,
	}, {
		name: "Reasoning",
		cfg:  Config{API: llm.APIOpenAIResponses, Reasoning: true, Thinking: llm.ThinkingHigh},
		req:  userText("hi"),
		want: `{
			"model": "test-model",
			"store": false,
			"include": ["reasoning.encrypted_content"],
			"reasoning": {"effort": "high", "summary": "auto"},
			"input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]}`,
	}, {
		// A reasoning model reasons at its default effort even when asked
		// for none, so its encrypted reasoning is still requested.
		name: "ReasoningOff",
		cfg:  Config{API: llm.APIOpenAIResponses, Reasoning: true, Thinking: llm.ThinkingOff},
		req:  userText("hi"),
		want: `{
			"model": "test-model",
			"store": false,
			"include": ["reasoning.encrypted_content"],
			"input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]}]}`,
	}, {
		name: "ToolRoundTrip",
		cfg:  Config{API: llm.APIOpenAIResponses},
		req: llm.Request{
			Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Block{llm.Text("look"), llm.Image("image/png", "UE5H")}},
				{Role: llm.RoleAssistant, Content: []llm.Block{
					llm.Thinking("Part one.\n\nPart two.", sig),
					llm.Thinking("from another provider", "anthropic-signature"),
					llm.Thinking("no encrypted content", reasoningItem{ID: "rs_2"}.encode()),
					llm.RedactedThinking("opaque"),
					llm.Text("Looking."),
					llm.ToolCall("call_1", "bash", json.RawMessage(`{"command":"ls"}`)),
					llm.ToolCall("call_2", "read", nil),
				}},
				{Role: llm.RoleUser, Content: []llm.Block{
					llm.ToolResult("call_1", false, llm.Text("a.go"), llm.Image("image/jpeg", "QUJD")),
					llm.ToolResult("call_2", true, llm.Text("no such file")),
					llm.Text("and then?"),
				}},
			},
			Tools: []llm.Tool{{Name: "bash", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
		},
		want: `{
			"model": "test-model",
			"store": false,
			"tools": [{"type": "function", "name": "bash", "description": "Run a command.", "strict": false,
				"parameters": {"type": "object", "properties": {"command": {"type": "string"}}}}],
			"input": [
				{"type": "message", "role": "user", "content": [
					{"type": "input_text", "text": "look"},
					{"type": "input_image", "image_url": "data:image/png;base64,UE5H", "detail": "auto"}
				]},
				{"type": "reasoning", "id": "rs_1", "encrypted_content": "ENC==", "summary": [
					{"type": "summary_text", "text": "Part one."},
					{"type": "summary_text", "text": "Part two."}
				]},
				{"type": "message", "role": "assistant", "status": "completed", "content": [
					{"type": "output_text", "text": "Looking.", "annotations": []}
				]},
				{"type": "function_call", "call_id": "call_1", "name": "bash", "arguments": "{\"command\":\"ls\"}"},
				{"type": "function_call", "call_id": "call_2", "name": "read", "arguments": "{}"},
				{"type": "function_call_output", "call_id": "call_1", "output": [
					{"type": "input_text", "text": "a.go"},
					{"type": "input_image", "image_url": "data:image/jpeg;base64,QUJD", "detail": "auto"}
				]},
				{"type": "function_call_output", "call_id": "call_2", "output": "no such file"},
				{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "and then?"}]}
			]}`,
	}, {
		name: "ReasoningWithoutSummary",
		cfg:  Config{API: llm.APIOpenAIResponses},
		req: llm.Request{Messages: []llm.Message{
			llm.UserText("x"),
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.Thinking("", reasoningItem{ID: "rs_9", EncryptedContent: "E"}.encode()), llm.Text("y")}},
		}},
		want: `{
			"model": "test-model",
			"store": false,
			"input": [
				{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]},
				{"type": "reasoning", "id": "rs_9", "encrypted_content": "E", "summary": []},
				{"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "y", "annotations": []}]}
			]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newModel(t, tt.cfg).responsesParams(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, p, tt.want)
		})
	}
}

func TestReasoningSignature(t *testing.T) {
	want := reasoningItem{ID: "rs_1", EncryptedContent: "gAAA", Summary: []string{"a", "b"}}
	got, ok := decodeReasoning(want.encode())
	if !ok || got.ID != want.ID || got.EncryptedContent != want.EncryptedContent || len(got.Summary) != 2 {
		t.Errorf("round trip = %+v, %v; want %+v", got, ok, want)
	}
	for _, sig := range []string{"", "EqQBCkgIBxABGAIiQL", "{not json", `{"id":"rs_1"}`, `{"encrypted_content":"x"}`} {
		if _, ok := decodeReasoning(sig); ok {
			t.Errorf("decodeReasoning(%q) accepted a signature it cannot send back", sig)
		}
	}
}
