package fakellm

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/respjson"
)

// chatResult is a chat completion as a client saw it.
type chatResult struct {
	Text, Reasoning, Finish string
	Calls                   []gotCall
}

// extraString reads a string field the SDK does not model (and so does
// not mark valid).
func extraString(t *testing.T, f respjson.Field) string {
	t.Helper()
	if f.Raw() == respjson.Omitted || f.Raw() == respjson.Null {
		return ""
	}
	var s string
	if err := json.Unmarshal([]byte(f.Raw()), &s); err != nil {
		t.Fatalf("extra field %s: %v", f.Raw(), err)
	}
	return s
}

// chatAsk sends params and returns the completion, accumulated from the
// stream (with include_usage) when streaming.
func chatAsk(t *testing.T, s *Server, stream bool, params openai.ChatCompletionNewParams) (chatResult, openai.CompletionUsage) {
	t.Helper()
	client := openaiClient(s)
	var res chatResult
	if !stream {
		cc, err := client.Chat.Completions.New(t.Context(), params)
		if err != nil {
			t.Fatalf("Chat.Completions.New: %v", err)
		}
		if cc.Object != "chat.completion" || cc.Model != params.Model || len(cc.Choices) != 1 {
			t.Fatalf("completion %s", cc.RawJSON())
		}
		m := cc.Choices[0].Message
		res = chatResult{Text: m.Content, Reasoning: extraString(t, m.JSON.ExtraFields["reasoning_content"]), Finish: cc.Choices[0].FinishReason}
		for _, c := range m.ToolCalls {
			res.Calls = append(res.Calls, gotCall{c.ID, c.Function.Name, c.Function.Arguments})
		}
		return res, cc.Usage
	}
	params.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	st := client.Chat.Completions.NewStreaming(t.Context(), params)
	defer st.Close()
	var acc openai.ChatCompletionAccumulator
	for st.Next() {
		chunk := st.Current()
		if !acc.AddChunk(chunk) {
			t.Fatalf("accumulator rejected chunk %s", chunk.RawJSON())
		}
		if len(chunk.Choices) > 0 {
			res.Reasoning += extraString(t, chunk.Choices[0].Delta.JSON.ExtraFields["reasoning_content"])
		}
	}
	if err := st.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	m := acc.Choices[0].Message
	res.Text, res.Finish = m.Content, acc.Choices[0].FinishReason
	for _, c := range m.ToolCalls {
		res.Calls = append(res.Calls, gotCall{c.ID, c.Function.Name, c.Function.Arguments})
	}
	return res, acc.Usage
}

func chatParams(model string, msgs ...openai.ChatCompletionMessageParamUnion) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: model, Messages: msgs}
}

func TestChatSDK(t *testing.T) {
	const long = "Hello, wörld! 👋 This reply is streamed in several pieces."
	tests := []struct {
		name string
		step string
		want chatResult
	}{{
		name: "text",
		step: `{text: "` + long + `"}`,
		want: chatResult{Text: long, Finish: "stop"},
	}, {
		name: "thinking",
		step: `{thinking: "Six times seven.", text: "42"}`,
		want: chatResult{Text: "42", Reasoning: "Six times seven.", Finish: "stop"},
	}, {
		name: "one tool call",
		step: `{tool_calls: [{id: call_1, name: get_weather, arguments: {city: Paris}}]}`,
		want: chatResult{Finish: "tool_calls", Calls: []gotCall{{"call_1", "get_weather", `{"city":"Paris"}`}}},
	}, {
		name: "several tool calls",
		step: `{text: "Checking.", chunk: 2, tool_calls: [{name: a, arguments: {x: 1}}, {name: b, arguments: '{"y": "ü"}'}]}`,
		want: chatResult{Text: "Checking.", Finish: "tool_calls", Calls: []gotCall{
			{"call_fakellm_1_0", "a", `{"x":1}`},
			{"call_fakellm_1_1", "b", `{"y": "ü"}`},
		}},
	}, {
		name: "length",
		step: `{text: "cut sho", stop_reason: max_tokens}`,
		want: chatResult{Text: "cut sho", Finish: "length"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				s := serveStep(t, tt.step)
				got, usage := chatAsk(t, s, stream, chatParams("gpt-test", openai.UserMessage("hi")))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("completion (-want +got):\n%s", diff)
				}
				if usage.CompletionTokens == 0 || usage.PromptTokens == 0 || usage.TotalTokens != usage.PromptTokens+usage.CompletionTokens {
					t.Errorf("usage %+v", usage)
				}
			})
		})
	}
}

func TestChatUsage(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		s := serveStep(t, `{text: "Sunny."}`)
		first := chatParams("gpt-test",
			openai.SystemMessage("You are a weather assistant. Answer briefly."),
			openai.UserMessage("What is the weather in Paris?"))
		second := chatParams("gpt-test", append(append([]openai.ChatCompletionMessageParamUnion(nil), first.Messages...),
			openai.AssistantMessage("Sunny."), openai.UserMessage("And tomorrow?"))...)
		second.MaxTokens = openai.Int(50)

		_, u1 := chatAsk(t, s, stream, first)
		if u1.PromptTokensDetails.CachedTokens != 0 {
			t.Errorf("first request cached %d tokens", u1.PromptTokensDetails.CachedTokens)
		}
		_, u2 := chatAsk(t, s, stream, second)
		reqs := s.Requests()
		p1, _ := chatAPI{}.parse(reqs[0].Body)
		p2, _ := chatAPI{}.parse(reqs[1].Body)
		if want := int64(tokens(len(p2.prompt))); u2.PromptTokens != want {
			t.Errorf("prompt tokens %d, want the whole prompt %d", u2.PromptTokens, want)
		}
		if want := int64(sharedParts(p1.prompt, p2.prompt) / 4); want == 0 || u2.PromptTokensDetails.CachedTokens != want {
			t.Errorf("cached tokens %d, want %d (> 0)", u2.PromptTokensDetails.CachedTokens, want)
		}
		if want := int64(tokens(len("Sunny."))); u2.CompletionTokens != want {
			t.Errorf("completion tokens %d, want %d", u2.CompletionTokens, want)
		}
	})
}

func TestChatStreamWithoutUsage(t *testing.T) {
	s := serveStep(t, `{text: "no usage please"}`)
	client := openaiClient(s)
	st := client.Chat.Completions.NewStreaming(t.Context(), chatParams("gpt-test", openai.UserMessage("hi")))
	defer st.Close()
	var acc openai.ChatCompletionAccumulator
	for st.Next() {
		chunk := st.Current()
		if len(chunk.Choices) == 0 || chunk.JSON.Usage.Valid() {
			t.Errorf("chunk without include_usage: %s", chunk.RawJSON())
		}
		acc.AddChunk(chunk)
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.Choices[0].Message.Content != "no usage please" {
		t.Errorf("content %q", acc.Choices[0].Message.Content)
	}
}

func TestOpenAIModels(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - {model: gpt-a, steps: [{text: a}]}
  - {model: "gpt-?", steps: [{text: b}]}
  - {model: gpt-b, api: responses, steps: [{text: c}]}
`))
	client := openaiClient(s)
	page, err := client.Models.List(t.Context())
	if err != nil {
		t.Fatalf("Models.List: %v", err)
	}
	var ids []string
	for _, m := range page.Data {
		if m.Object != "model" || m.OwnedBy == "" || m.Created == 0 {
			t.Errorf("model %s", m.RawJSON())
		}
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]string{"gpt-a", "gpt-b"}, ids); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
}
