package openai

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

func TestChatParams(t *testing.T) {
	temp := 0.25
	tests := []struct {
		name string
		cfg  Config
		req  llm.Request
		want string
	}{{
		name: "SystemAndText",
		req:  llm.Request{System: "Be brief.", Messages: []llm.Message{llm.UserText("hi")}},
		want: `{
			"model": "test-model",
			"stream_options": {"include_usage": true},
			"messages": [
				{"role": "system", "content": "Be brief."},
				{"role": "user", "content": "hi"}
			]}`,
	}, {
		name: "LimitsAndTemperature",
		cfg:  Config{MaxOutput: 500},
		req:  llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Temperature: &temp},
		want: `{
			"model": "test-model",
			"stream_options": {"include_usage": true},
			"max_completion_tokens": 500,
			"temperature": 0.25,
			"messages": [{"role": "user", "content": "hi"}]}`,
	}, {
		name: "UserImages",
		req: llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			llm.Text("what is this?"), llm.Image("image/jpeg", "QUJD"),
		}}}},
		want: `{
			"model": "test-model",
			"stream_options": {"include_usage": true},
			"messages": [{"role": "user", "content": [
				{"type": "text", "text": "what is this?"},
				{"type": "image_url", "image_url": {"url": "data:image/jpeg;base64,QUJD"}}
			]}]}`,
	}, {
		name: "ToolRoundTrip",
		req: llm.Request{
			Messages: []llm.Message{
				llm.UserText("list and read"),
				{Role: llm.RoleAssistant, Content: []llm.Block{
					llm.Thinking("I should look first.", "opaque"),
					llm.Text("Looking."),
					llm.ToolCall("call_1", "bash", json.RawMessage(`{"command":"ls"}`)),
					llm.ToolCall("call_2", "read", nil),
				}},
				{Role: llm.RoleUser, Content: []llm.Block{
					llm.ToolResult("call_1", false, llm.Text("a.go"), llm.Image("image/png", "UE5H")),
					llm.ToolResult("call_2", true, llm.Text("no such file")),
					llm.Text("and then?"),
				}},
			},
			Tools: []llm.Tool{{Name: "bash", Description: "Run a command.", Schema: json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"}}}`)}},
		},
		want: `{
			"model": "test-model",
			"stream_options": {"include_usage": true},
			"tools": [{"type": "function", "function": {
				"name": "bash", "description": "Run a command.",
				"parameters": {"type": "object", "properties": {"command": {"type": "string"}}}
			}}],
			"messages": [
				{"role": "user", "content": "list and read"},
				{"role": "assistant", "content": "Looking.", "tool_calls": [
					{"id": "call_1", "type": "function", "function": {"name": "bash", "arguments": "{\"command\":\"ls\"}"}},
					{"id": "call_2", "type": "function", "function": {"name": "read", "arguments": "{}"}}
				]},
				{"role": "tool", "tool_call_id": "call_1", "content": "a.go\n[1 image(s) attached in the next user message]"},
				{"role": "tool", "tool_call_id": "call_2", "content": "no such file"},
				{"role": "user", "content": [
					{"type": "text", "text": "Images returned by tool call call_1:"},
					{"type": "image_url", "image_url": {"url": "data:image/png;base64,UE5H"}},
					{"type": "text", "text": "and then?"}
				]}
			]}`,
	}, {
		name: "OnlyToolCallsAndEmptyTurns",
		req: llm.Request{Messages: []llm.Message{
			llm.UserText("go"),
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.Thinking("just thinking", "")}},
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolCall("c", "bash", json.RawMessage(`{}`))}},
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("c", false)}},
		}},
		want: `{
			"model": "test-model",
			"stream_options": {"include_usage": true},
			"messages": [
				{"role": "user", "content": "go"},
				{"role": "assistant", "tool_calls": [{"id": "c", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
				{"role": "tool", "tool_call_id": "c", "content": ""}
			]}`,
	}, {
		name: "EmptySchema",
		req:  llm.Request{Messages: []llm.Message{llm.UserText("x")}, Tools: []llm.Tool{{Name: "now"}}},
		want: `{
			"model": "test-model",
			"stream_options": {"include_usage": true},
			"tools": [{"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}}],
			"messages": [{"role": "user", "content": "x"}]}`,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := newModel(t, tt.cfg).chatParams(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			assertJSON(t, p, tt.want)
		})
	}
}

func TestChatParamsEffort(t *testing.T) {
	tests := []struct {
		name      string
		reasoning bool
		cfgLevel  llm.ThinkingLevel
		reqLevel  llm.ThinkingLevel
		want      any // the reasoning_effort sent, nil for none
	}{
		{"NotAReasoningModel", false, "", llm.ThinkingHigh, nil},
		{"Unset", true, "", "", nil},
		{"Off", true, llm.ThinkingHigh, llm.ThinkingOff, nil},
		{"Minimal", true, "", llm.ThinkingMinimal, "minimal"},
		{"Low", true, "", llm.ThinkingLow, "low"},
		{"Medium", true, "", llm.ThinkingMedium, "medium"},
		{"High", true, "", llm.ThinkingHigh, "high"},
		{"XHigh", true, "", llm.ThinkingXHigh, "xhigh"},
		{"ConfigDefault", true, llm.ThinkingLow, "", "low"},
		{"RequestWins", true, llm.ThinkingLow, llm.ThinkingHigh, "high"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newModel(t, Config{Reasoning: tt.reasoning, Thinking: tt.cfgLevel})
			req := userText("x")
			req.Thinking = tt.reqLevel
			p, err := m.chatParams(req)
			if err != nil {
				t.Fatal(err)
			}
			if got := field(t, p, "reasoning_effort"); got != tt.want {
				t.Errorf("reasoning_effort = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestEffortFromThinkingMap checks that the model's thinking map decides
// the effort: values it names, the level's own name where it names none,
// and nothing for "default".
func TestEffortFromThinkingMap(t *testing.T) {
	tm := llm.ThinkingMap{Style: llm.ThinkingEffort, Levels: llm.ThinkingValues{
		Off: "none", Minimal: "low", High: "default", XHigh: "max",
	}}
	want := map[llm.ThinkingLevel]any{
		"":                  nil,
		llm.ThinkingOff:     "none",
		llm.ThinkingMinimal: "low",
		llm.ThinkingLow:     "low",
		llm.ThinkingMedium:  "medium",
		llm.ThinkingHigh:    nil,
		llm.ThinkingXHigh:   "max",
	}
	m := newModel(t, Config{Reasoning: true, ThinkingMap: tm})
	for level, w := range want {
		req := userText("x")
		req.Thinking = level
		p, err := m.chatParams(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := field(t, p, "reasoning_effort"); got != w {
			t.Errorf("%q: reasoning_effort = %v, want %v", level, got, w)
		}
	}
}

func TestNewRejectsThinkingMap(t *testing.T) {
	for _, tt := range []struct {
		tm   llm.ThinkingMap
		want string
	}{
		{llm.ThinkingMap{Style: llm.ThinkingAdaptive}, `thinking style "adaptive"`},
		{llm.ThinkingMap{Style: llm.ThinkingEffort, Levels: llm.ThinkingValues{Low: "Low!"}}, `level low: "Low!" is not an effort`},
	} {
		_, err := New(Config{Model: "m", ThinkingMap: tt.tm})
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("New with %+v: error %v, want one containing %q", tt.tm, err, tt.want)
		}
	}
}

func TestChatParamsErrors(t *testing.T) {
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"BadArguments", llm.Request{Messages: []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.ToolCall("c", "bash", json.RawMessage(`{"command":`)),
		}}}}, "not valid JSON"},
		{"UnknownRole", llm.Request{Messages: []llm.Message{{Role: "system", Content: []llm.Block{llm.Text("x")}}}}, `unknown role "system"`},
		{"ToolCallFromUser", llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolCall("c", "bash", nil),
		}}}}, "user message holds a tool_call block"},
		{"SchemaNotObject", llm.Request{Messages: []llm.Message{llm.UserText("x")}, Tools: []llm.Tool{{Name: "t", Schema: json.RawMessage(`[1]`)}}}, "tool t: schema is not a JSON object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newModel(t, Config{}).chatParams(tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want one containing %q", err, tt.want)
			}
		})
	}
}
