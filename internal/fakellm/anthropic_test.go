package fakellm

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/google/go-cmp/cmp"
)

// block is an Anthropic content block as a client saw it.
type block struct {
	Type, Text, Thinking, Signature, Data, ID, Name, Input string
}

func anthropicBlocks(t *testing.T, msg *anthropic.Message) []block {
	t.Helper()
	var out []block
	for _, c := range msg.Content {
		b := block{Type: c.Type, Text: c.Text, Thinking: c.Thinking, Signature: c.Signature, Data: c.Data, ID: c.ID, Name: c.Name}
		if c.Type == "tool_use" {
			var buf bytes.Buffer
			if err := json.Compact(&buf, c.Input); err != nil {
				t.Fatalf("tool input %q: %v", c.Input, err)
			}
			b.Input = buf.String()
		}
		out = append(out, b)
	}
	return out
}

// anthropicAsk sends one user message and returns the whole message,
// accumulated from the stream when streaming, and the number of deltas.
func anthropicAsk(t *testing.T, s *Server, stream bool, params anthropic.MessageNewParams) (*anthropic.Message, int) {
	t.Helper()
	client := anthropicClient(s)
	if !stream {
		msg, err := client.Messages.New(t.Context(), params)
		if err != nil {
			t.Fatalf("Messages.New: %v", err)
		}
		return msg, 0
	}
	st := client.Messages.NewStreaming(t.Context(), params)
	defer st.Close()
	var msg anthropic.Message
	deltas := 0
	for st.Next() {
		ev := st.Current()
		if ev.Type == "content_block_delta" {
			deltas++
		}
		if err := msg.Accumulate(ev); err != nil {
			t.Fatalf("accumulate %s: %v", ev.Type, err)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	return &msg, deltas
}

func userParams(model, text string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{
		Model:     anthropic.Model(model),
		MaxTokens: 1024,
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))},
	}
}

func TestAnthropicSDK(t *testing.T) {
	const long = "Hello, wörld! 👋 This reply is streamed in several pieces."
	tests := []struct {
		name       string
		step       string
		want       []block
		wantStop   anthropic.StopReason
		wantDeltas int // at least this many content_block_delta events
	}{{
		name:       "text",
		step:       `{text: "` + long + `"}`,
		want:       []block{{Type: "text", Text: long}},
		wantStop:   "end_turn",
		wantDeltas: 5,
	}, {
		name: "thinking",
		step: `{thinking: "Six times seven.", signature: "sig-1", text: "42"}`,
		want: []block{
			{Type: "thinking", Thinking: "Six times seven.", Signature: "sig-1"},
			{Type: "text", Text: "42"},
		},
		wantStop: "end_turn",
	}, {
		name: "redacted thinking",
		step: `{redacted_thinking: "ZW5jcnlwdGVk", text: "done"}`,
		want: []block{
			{Type: "redacted_thinking", Data: "ZW5jcnlwdGVk"},
			{Type: "text", Text: "done"},
		},
		wantStop: "end_turn",
	}, {
		name: "one tool call",
		step: `{tool_calls: [{id: toolu_1, name: get_weather, arguments: {city: Paris, days: 3}}]}`,
		want: []block{
			{Type: "tool_use", ID: "toolu_1", Name: "get_weather", Input: `{"city":"Paris","days":3}`},
		},
		wantStop: "tool_use",
	}, {
		name: "several tool calls",
		step: `{text: "Checking.", chunk: 3, tool_calls: [{name: a, arguments: {x: "é"}}, {name: b, arguments: '{"y": [1, 2]}'}, {name: c}]}`,
		want: []block{
			{Type: "text", Text: "Checking."},
			{Type: "tool_use", ID: "toolu_fakellm_1_0", Name: "a", Input: `{"x":"é"}`},
			{Type: "tool_use", ID: "toolu_fakellm_1_1", Name: "b", Input: `{"y":[1,2]}`},
			{Type: "tool_use", ID: "toolu_fakellm_1_2", Name: "c", Input: `{}`},
		},
		wantStop:   "tool_use",
		wantDeltas: 10,
	}, {
		name:     "stop reason",
		step:     `{text: "cut sho", stop_reason: length}`,
		want:     []block{{Type: "text", Text: "cut sho"}},
		wantStop: "max_tokens",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				s := serveStep(t, tt.step)
				msg, deltas := anthropicAsk(t, s, stream, userParams("claude-test", "hi"))
				if diff := cmp.Diff(tt.want, anthropicBlocks(t, msg)); diff != "" {
					t.Errorf("content (-want +got):\n%s", diff)
				}
				if msg.StopReason != tt.wantStop {
					t.Errorf("stop reason %q, want %q", msg.StopReason, tt.wantStop)
				}
				if msg.Model != "claude-test" || msg.Role != "assistant" || msg.ID == "" {
					t.Errorf("model %q role %q id %q", msg.Model, msg.Role, msg.ID)
				}
				if stream && deltas < tt.wantDeltas {
					t.Errorf("%d deltas, want at least %d", deltas, tt.wantDeltas)
				}
				if msg.Usage.OutputTokens == 0 {
					t.Errorf("no output tokens")
				}
			})
		})
	}
}

func TestAnthropicGeneratedSignature(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		s := serveStep(t, `{thinking: "hmm", text: "ok"}`)
		msg, _ := anthropicAsk(t, s, stream, userParams("claude-test", "hi"))
		if len(msg.Content) != 2 || msg.Content[0].Signature == "" {
			t.Fatalf("want a thinking block with a signature, got %+v", anthropicBlocks(t, msg))
		}
	})
}

func TestAnthropicUsage(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		s := serveStep(t, `{text: "It is sunny in Paris today."}`)
		client := anthropicClient(s)
		system := []anthropic.TextBlockParam{{
			Text:         "You are a weather assistant. Answer briefly and precisely.",
			CacheControl: anthropic.NewCacheControlEphemeralParam(),
		}}
		first := userParams("claude-test", "What is the weather in Paris?")
		first.System = system
		second := first
		second.Messages = append(append([]anthropic.MessageParam(nil), first.Messages...),
			anthropic.NewAssistantMessage(anthropic.NewTextBlock("It is sunny in Paris today.")),
			anthropic.NewUserMessage(anthropic.NewTextBlock("And tomorrow?")))
		second.MaxTokens = 99 // options outside the prompt do not break the prefix

		count := func(p anthropic.MessageNewParams) int64 {
			n, err := client.Messages.CountTokens(t.Context(), anthropic.MessageCountTokensParams{
				Model: p.Model, Messages: p.Messages,
				System: anthropic.MessageCountTokensParamsSystemUnion{OfTextBlockArray: p.System},
			})
			if err != nil {
				t.Fatalf("CountTokens: %v", err)
			}
			return n.InputTokens
		}
		total1, total2 := count(first), count(second)

		m1, _ := anthropicAsk(t, s, stream, first)
		u := m1.Usage
		if u.CacheReadInputTokens != 0 || u.CacheCreationInputTokens != total1 || u.InputTokens != 0 {
			t.Errorf("first usage: input %d, cache read %d, cache write %d; want 0, 0, %d",
				u.InputTokens, u.CacheReadInputTokens, u.CacheCreationInputTokens, total1)
		}
		if want := int64(tokens(len("It is sunny in Paris today."))); u.OutputTokens != want {
			t.Errorf("output tokens %d, want %d", u.OutputTokens, want)
		}

		m2, _ := anthropicAsk(t, s, stream, second)
		u = m2.Usage
		reqs := s.Requests()
		p1, _ := anthropicAPI{}.parse(reqs[2].Body)
		p2, _ := anthropicAPI{}.parse(reqs[3].Body)
		wantRead := int64(sharedParts(p1.prompt, p2.prompt) / 4)
		if wantRead == 0 || u.CacheReadInputTokens != wantRead {
			t.Errorf("second cache read %d, want %d (> 0)", u.CacheReadInputTokens, wantRead)
		}
		if sum := u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens; sum != total2 {
			t.Errorf("second input+read+write = %d, want count_tokens %d", sum, total2)
		}
	})
}

func TestAnthropicUsageWithoutCacheControl(t *testing.T) {
	s := serveStep(t, `{text: "ok"}`)
	first := userParams("claude-test", "A question long enough to share a prefix.")
	second := first
	second.Messages = append(append([]anthropic.MessageParam(nil), first.Messages...),
		anthropic.NewAssistantMessage(anthropic.NewTextBlock("ok")),
		anthropic.NewUserMessage(anthropic.NewTextBlock("Another.")))
	anthropicAsk(t, s, false, first)
	m, _ := anthropicAsk(t, s, true, second)
	if m.Usage.CacheCreationInputTokens != 0 || m.Usage.CacheReadInputTokens == 0 || m.Usage.InputTokens == 0 {
		t.Errorf("usage %+v: want cache reads, no cache writes, some input", m.Usage)
	}
	// A different model has its own cache.
	m, _ = anthropicAsk(t, s, false, func() anthropic.MessageNewParams { p := second; p.Model = "other"; return p }())
	if m.Usage.CacheReadInputTokens != 0 {
		t.Errorf("other model read %d tokens from the cache", m.Usage.CacheReadInputTokens)
	}
}

func TestAnthropicUsageOverride(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		s := serveStep(t, `{text: hi, usage: {input: 10, output: 5, cache_read: 3, cache_write: 2}}`)
		m, _ := anthropicAsk(t, s, stream, userParams("claude-test", "hi"))
		u := m.Usage
		if u.InputTokens != 10 || u.OutputTokens != 5 || u.CacheReadInputTokens != 3 || u.CacheCreationInputTokens != 2 {
			t.Errorf("usage %+v, want 10/5/3/2", u)
		}
	})
}

func TestAnthropicBetaQuery(t *testing.T) {
	s := serveStep(t, `{text: "beta ok"}`)
	client := anthropicClient(s)
	msg, err := client.Beta.Messages.New(t.Context(), anthropic.BetaMessageNewParams{
		Model:     "claude-test",
		MaxTokens: 10,
		Messages:  []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("hi"))},
	})
	if err != nil {
		t.Fatalf("Beta.Messages.New: %v", err)
	}
	if len(msg.Content) != 1 || msg.Content[0].Text != "beta ok" {
		t.Errorf("content %+v", msg.Content)
	}
}

func TestAnthropicModels(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - {model: claude-a, steps: [{text: a}]}
  - {model: "claude-*", steps: [{text: b}]}
  - {model: claude-b, steps: [{text: c}]}
`))
	client := anthropicClient(s)
	page, err := client.Models.List(t.Context(), anthropic.ModelListParams{})
	if err != nil {
		t.Fatalf("Models.List: %v", err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]string{"claude-a", "claude-b"}, ids); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	if page.HasMore || page.FirstID != "claude-a" || page.LastID != "claude-b" {
		t.Errorf("page has_more %v first %q last %q", page.HasMore, page.FirstID, page.LastID)
	}
	m, err := client.Models.Get(t.Context(), "claude-b", anthropic.ModelGetParams{})
	if err != nil || m.ID != "claude-b" {
		t.Errorf("Models.Get = %v, %v", m, err)
	}
}
