package anthropic

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/llm"
)

// wire converts req as a Model with the given defaults would and returns
// the request body as generic JSON.
func wire(t *testing.T, req llm.Request, maxOutput int64, thinking llm.ThinkingLevel) map[string]any {
	t.Helper()
	p, err := convertRequest(req, "claude-test", maxOutput, thinking, llm.ThinkingMap{})
	if err != nil {
		t.Fatalf("convert: %v", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var v map[string]any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
	return v
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("bad test JSON %s: %v", s, err)
	}
	return v
}

func TestConvertRequest(t *testing.T) {
	temp := 0.25
	tests := []struct {
		name      string
		req       llm.Request
		maxOutput int64
		thinking  llm.ThinkingLevel
		// want maps top-level keys to their expected JSON; a key mapped to
		// "" must be absent.
		want map[string]string
	}{
		{
			name:      "Minimal",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}},
			maxOutput: 8192,
			want: map[string]string{
				"model":      `"claude-test"`,
				"max_tokens": `8192`,
				"messages":   `[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]`,
				"system":     "",
				"tools":      "",
				"thinking":   "",
			},
		},
		{
			name:      "MaxTokensFromRequest",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}, MaxTokens: 300},
			maxOutput: 8192,
			want:      map[string]string{"max_tokens": `300`},
		},
		{
			name:      "SystemCached",
			req:       llm.Request{System: "Be brief.", Messages: []llm.Message{llm.UserText("hi")}},
			maxOutput: 8192,
			want:      map[string]string{"system": `[{"type":"text","text":"Be brief.","cache_control":{"type":"ephemeral"}}]`},
		},
		{
			name: "ToolsLastCached",
			req: llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Tools: []llm.Tool{
				{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`)},
				{Name: "noop"},
			}},
			maxOutput: 8192,
			want: map[string]string{"tools": `[
				{"name":"read","description":"Read a file.","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}},
				{"name":"noop","input_schema":{"type":"object","properties":{}},"cache_control":{"type":"ephemeral"}}]`},
		},
		{
			name:      "TemperatureWithoutThinking",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Temperature: &temp},
			maxOutput: 8192,
			want:      map[string]string{"temperature": `0.25`, "thinking": ""},
		},
		{
			name:      "ThinkingDropsTemperature",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Temperature: &temp, Thinking: llm.ThinkingLow, MaxTokens: 16000},
			maxOutput: 8192,
			want:      map[string]string{"temperature": "", "thinking": `{"type":"enabled","budget_tokens":4096,"display":"summarized"}`, "max_tokens": `16000`},
		},
		{
			name:      "ThinkingRaisesMaxTokens",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: llm.ThinkingHigh, MaxTokens: 20000},
			maxOutput: 4000,
			want:      map[string]string{"thinking": `{"type":"enabled","budget_tokens":20000,"display":"summarized"}`, "max_tokens": `24000`},
		},
		{
			name:      "ThinkingFromConfig",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}},
			maxOutput: 8192,
			thinking:  llm.ThinkingMinimal,
			want:      map[string]string{"thinking": `{"type":"enabled","budget_tokens":1024,"display":"summarized"}`, "max_tokens": `8192`},
		},
		{
			name:      "RequestThinkingOverridesConfig",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: llm.ThinkingXHigh},
			maxOutput: 8192,
			thinking:  llm.ThinkingLow,
			want:      map[string]string{"thinking": `{"type":"enabled","budget_tokens":32000,"display":"summarized"}`, "max_tokens": `40192`},
		},
		{
			name:      "RequestThinkingOffOverridesConfig",
			req:       llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: llm.ThinkingOff, Temperature: &temp},
			maxOutput: 8192,
			thinking:  llm.ThinkingHigh,
			want:      map[string]string{"thinking": "", "temperature": `0.25`, "max_tokens": `8192`},
		},
		{
			name: "ConversationRoundTrip",
			req: llm.Request{Messages: []llm.Message{
				llm.UserText("list files"),
				{Role: llm.RoleAssistant, Content: []llm.Block{
					llm.Thinking("I should run ls.", "SIG-abc"),
					llm.RedactedThinking("ENCRYPTED"),
					llm.Text("Running it."),
					llm.ToolCall("toolu_1", "bash", json.RawMessage(`{"command":"ls"}`)),
					llm.ToolCall("toolu_2", "pwd", nil),
				}},
				{Role: llm.RoleUser, Content: []llm.Block{
					llm.ToolResult("toolu_1", false, llm.Text("a.go\nb.go"), llm.Image("image/png", "iVBORw0KGgo=")),
					llm.ToolResult("toolu_2", true, llm.Text("permission denied")),
					llm.ToolResult("toolu_3", false),
				}},
			}},
			maxOutput: 8192,
			want: map[string]string{"messages": `[
				{"role":"user","content":[{"type":"text","text":"list files"}]},
				{"role":"assistant","content":[
					{"type":"thinking","thinking":"I should run ls.","signature":"SIG-abc"},
					{"type":"redacted_thinking","data":"ENCRYPTED"},
					{"type":"text","text":"Running it."},
					{"type":"tool_use","id":"toolu_1","name":"bash","input":{"command":"ls"}},
					{"type":"tool_use","id":"toolu_2","name":"pwd","input":{}}]},
				{"role":"user","content":[
					{"type":"tool_result","tool_use_id":"toolu_1","content":[
						{"type":"text","text":"a.go\nb.go"},
						{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]},
					{"type":"tool_result","tool_use_id":"toolu_2","is_error":true,"content":[{"type":"text","text":"permission denied"}]},
					{"type":"tool_result","tool_use_id":"toolu_3","cache_control":{"type":"ephemeral"}}]}]`},
		},
		{
			name: "ImageCachedLast",
			req: llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{
				llm.Text("what is this?"), llm.Image("image/jpeg", "/9j/4AAQ"),
			}}}},
			maxOutput: 8192,
			want: map[string]string{"messages": `[{"role":"user","content":[
				{"type":"text","text":"what is this?"},
				{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"},"cache_control":{"type":"ephemeral"}}]}]`},
		},
		{
			name: "BreakpointSkipsTrailingThinking",
			req: llm.Request{Messages: []llm.Message{
				llm.UserText("go on"),
				{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("So far"), llm.Thinking("hmm", "SIG")}},
			}},
			maxOutput: 8192,
			want: map[string]string{"messages": `[
				{"role":"user","content":[{"type":"text","text":"go on"}]},
				{"role":"assistant","content":[{"type":"text","text":"So far","cache_control":{"type":"ephemeral"}},{"type":"thinking","thinking":"hmm","signature":"SIG"}]}]`},
		},
		{
			name: "DropsWhatTheAPIRejects",
			req: llm.Request{Messages: []llm.Message{
				{Role: llm.RoleUser, Content: []llm.Block{llm.Text(""), llm.Text("hi")}},
				// Reasoning from another provider has no signature.
				{Role: llm.RoleAssistant, Content: []llm.Block{llm.Thinking("unsigned", ""), llm.Text("hello")}},
				{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("")}},
				{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("toolu_1", false, llm.Text(""))}},
			}},
			maxOutput: 8192,
			want: map[string]string{"messages": `[
				{"role":"user","content":[{"type":"text","text":"hi"}]},
				{"role":"assistant","content":[{"type":"text","text":"hello"}]},
				{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","cache_control":{"type":"ephemeral"}}]}]`},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := wire(t, tt.req, tt.maxOutput, tt.thinking)
			for key, want := range tt.want {
				v, ok := got[key]
				if want == "" {
					if ok {
						t.Errorf("%s = %v, want it absent", key, v)
					}
					continue
				}
				if diff := cmp.Diff(decode(t, want), v); diff != "" {
					t.Errorf("%s (-want +got):\n%s", key, diff)
				}
			}
		})
	}
}

func TestThinkingBudgets(t *testing.T) {
	want := map[llm.ThinkingLevel]float64{
		llm.ThinkingMinimal: 1024,
		llm.ThinkingLow:     4096,
		llm.ThinkingMedium:  10000,
		llm.ThinkingHigh:    20000,
		llm.ThinkingXHigh:   32000,
	}
	for _, level := range llm.ThinkingLevels {
		got := wire(t, llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: level}, 8192, "")
		if !level.Enabled() {
			if _, ok := got["thinking"]; ok {
				t.Errorf("%s: thinking = %v, want none", level, got["thinking"])
			}
			continue
		}
		th, _ := got["thinking"].(map[string]any)
		if th["budget_tokens"] != want[level] || th["type"] != "enabled" {
			t.Errorf("%s: thinking = %v, want enabled with budget %v", level, th, want[level])
		}
		if mt := got["max_tokens"].(float64); mt <= want[level] {
			t.Errorf("%s: max_tokens %v does not exceed the budget %v", level, mt, want[level])
		}
	}
}

// TestAdaptiveThinking checks each kind of adaptive-style value: an effort
// goes with thinking {type: adaptive}, the other thinking types alone, and
// temperature only where no thinking is on.
func TestAdaptiveThinking(t *testing.T) {
	temp := 0.5
	tm := llm.ThinkingMap{Style: llm.ThinkingAdaptive, Levels: llm.ThinkingValues{
		Off: "between_tools", Minimal: "disabled", Low: "adaptive", Medium: "default", High: "max",
	}}
	tests := []struct {
		level llm.ThinkingLevel
		// thinking and output_config as JSON, "" when absent; temperature
		// tells whether it is sent.
		thinking, output string
		temperature      bool
	}{
		{"", "", "", true},
		{llm.ThinkingOff, `{"type":"between_tools"}`, "", false},
		{llm.ThinkingMinimal, `{"type":"disabled"}`, "", true},
		{llm.ThinkingLow, `{"type":"adaptive","display":"summarized"}`, "", false},
		{llm.ThinkingMedium, "", "", true},
		{llm.ThinkingHigh, `{"type":"adaptive","display":"summarized"}`, `{"effort":"max"}`, false},
		// Left out of the map: the style's default.
		{llm.ThinkingXHigh, `{"type":"adaptive","display":"summarized"}`, `{"effort":"xhigh"}`, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.level), func(t *testing.T) {
			p, err := convertRequest(llm.Request{Messages: []llm.Message{llm.UserText("hi")}, Thinking: tt.level, Temperature: &temp}, "claude-test", 8192, "", tm)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			for key, want := range map[string]string{"thinking": tt.thinking, "output_config": tt.output} {
				v, ok := got[key]
				if want == "" {
					if ok {
						t.Errorf("%s = %v, want it absent", key, v)
					}
					continue
				}
				if diff := cmp.Diff(decode(t, want), v); diff != "" {
					t.Errorf("%s (-want +got):\n%s", key, diff)
				}
			}
			if _, ok := got["temperature"]; ok != tt.temperature {
				t.Errorf("temperature sent: %t, want %t", ok, tt.temperature)
			}
			if got["max_tokens"] != float64(8192) {
				t.Errorf("max_tokens = %v, want 8192 (adaptive thinking does not raise it)", got["max_tokens"])
			}
		})
	}
}

// TestCacheBreakpoints checks that a full request never uses more than the
// four breakpoints Anthropic allows.
func TestCacheBreakpoints(t *testing.T) {
	req := llm.Request{
		System: "system",
		Tools:  []llm.Tool{{Name: "a"}, {Name: "b"}, {Name: "c"}},
		Messages: []llm.Message{
			llm.UserText("one"),
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("two"), llm.ToolCall("t1", "a", nil)}},
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("t1", false, llm.Text("three")), llm.Text("four")}},
		},
	}
	b, err := json.Marshal(wire(t, req, 8192, llm.ThinkingHigh))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"cache_control"`); n != 3 {
		t.Errorf("request has %d cache breakpoints, want 3 (at most 4 allowed):\n%s", n, b)
	}
}

func TestConvertRequestErrors(t *testing.T) {
	user := func(blocks ...llm.Block) []llm.Message {
		return []llm.Message{{Role: llm.RoleUser, Content: blocks}}
	}
	tests := []struct {
		name string
		req  llm.Request
		want string
	}{
		{"NegativeMaxTokens", llm.Request{MaxTokens: -1}, "negative MaxTokens -1"},
		{"UnknownThinking", llm.Request{Thinking: "extreme"}, `unknown thinking level "extreme"`},
		{"UnnamedTool", llm.Request{Tools: []llm.Tool{{Description: "x"}}}, "tool with no name"},
		{"BadSchema", llm.Request{Tools: []llm.Tool{{Name: "x", Schema: json.RawMessage(`{"type":`)}}}, "tool x: schema is not valid JSON"},
		{"UnknownRole", llm.Request{Messages: []llm.Message{{Role: "system", Content: []llm.Block{llm.Text("x")}}}}, `message 0: unknown role "system"`},
		{"UnknownBlock", llm.Request{Messages: user(llm.Block{Type: "video"})}, `message 0: block 0: unknown block type "video"`},
		{"BadArguments", llm.Request{Messages: user(llm.ToolCall("t1", "bash", json.RawMessage(`{"command":`)))}, "message 0: block 0: tool call t1 (bash): arguments are not valid JSON"},
		{"ToolCallInResult", llm.Request{Messages: user(llm.ToolResult("t1", false, llm.ToolCall("t2", "x", nil)))}, "message 0: block 0: tool result t1 holds a tool_call block; only text and images fit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := convertRequest(tt.req, "claude-test", 8192, "", llm.ThinkingMap{})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestStreamRejectsBadRequestUnsent(t *testing.T) {
	srv, requests := replay(t, "")
	m := newTestModel(t, srv.URL)
	var final error
	for _, err := range m.Stream(t.Context(), llm.Request{Thinking: "extreme"}) {
		final = err
	}
	var e *llm.Error
	if !errors.As(final, &e) || e.Kind != llm.BadRequest || e.Provider != "anthropic" {
		t.Errorf("error = %v, want an anthropic BadRequest", final)
	}
	if n := len(requests()); n != 0 {
		t.Errorf("%d requests sent, want none", n)
	}
}

func TestNew(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string
	}{
		{"NoModel", Config{}, "no model id"},
		{"BadBaseURL", Config{Model: "m", BaseURL: "localhost:8080"}, "is not an http(s) URL"},
		{"NegativeMaxOutput", Config{Model: "m", MaxOutput: -5}, "negative MaxOutput"},
		{"BadThinking", Config{Model: "m", Thinking: "lots"}, "unknown thinking level"},
		{"EffortStyle", Config{Model: "m", ThinkingMap: llm.ThinkingMap{Style: llm.ThinkingEffort}}, `thinking style "effort"`},
		{"BadBudget", Config{Model: "m", ThinkingMap: llm.ThinkingMap{Style: llm.ThinkingBudget, Levels: llm.ThinkingValues{Low: "500"}}}, `level low: "500" is not a budget`},
		{"OK", Config{Model: "m", BaseURL: "https://proxy.example/anthropic", Thinking: llm.ThinkingHigh}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := New(tt.cfg)
			if tt.want == "" {
				if err != nil || m == nil {
					t.Fatalf("New = %v, %v", m, err)
				}
				if m.provider != "anthropic" || m.maxOutput != defaultMaxOutput {
					t.Errorf("defaults: provider %q, max output %d", m.provider, m.maxOutput)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
