package fakellm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
)

// responsesResult is a response as a client saw it.
type responsesResult struct {
	Text, Summary, Encrypted, Status, Incomplete string
	Calls                                        []gotCall
}

func responsesResultOf(r *responses.Response) responsesResult {
	res := responsesResult{Status: string(r.Status), Incomplete: string(r.IncompleteDetails.Reason)}
	for _, item := range r.Output {
		switch item.Type {
		case "reasoning":
			for _, s := range item.Summary {
				res.Summary += s.Text
			}
			res.Encrypted = item.EncryptedContent
		case "message":
			for _, c := range item.Content {
				res.Text += c.Text
			}
		case "function_call":
			res.Calls = append(res.Calls, gotCall{item.CallID, item.Name, item.Arguments.OfString})
		}
	}
	return res
}

// responsesAsk sends params and returns the final response. When
// streaming, it also checks that the deltas add up to the final response
// and that sequence numbers count up from 0.
func responsesAsk(t *testing.T, s *Server, stream bool, params responses.ResponseNewParams) (responsesResult, responses.ResponseUsage) {
	t.Helper()
	client := openaiClient(s)
	if !stream {
		r, err := client.Responses.New(t.Context(), params)
		if err != nil {
			t.Fatalf("Responses.New: %v", err)
		}
		if r.Model != params.Model || r.Object != "response" {
			t.Errorf("response %s", r.RawJSON())
		}
		if got := r.OutputText(); got != responsesResultOf(r).Text {
			t.Errorf("OutputText() = %q", got)
		}
		return responsesResultOf(r), r.Usage
	}
	st := client.Responses.NewStreaming(t.Context(), params)
	defer st.Close()
	var final *responses.Response
	var text, summary string
	args := map[string]string{}
	var types []string
	for st.Next() {
		ev := st.Current()
		if ev.SequenceNumber != int64(len(types)) {
			t.Errorf("event %d (%s) has sequence_number %d", len(types), ev.Type, ev.SequenceNumber)
		}
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			text += ev.Delta
		case "response.reasoning_summary_text.delta":
			summary += ev.Delta
		case "response.function_call_arguments.delta":
			args[ev.ItemID] += ev.Delta
		case "response.completed", "response.incomplete":
			r := ev.Response
			final = &r
		}
	}
	if err := st.Err(); err != nil {
		t.Fatalf("stream: %v", err)
	}
	if final == nil {
		t.Fatalf("no terminal event in %v", types)
	}
	if types[0] != "response.created" || types[1] != "response.in_progress" {
		t.Errorf("stream starts %v", types[:2])
	}
	res := responsesResultOf(final)
	if text != res.Text || summary != res.Summary {
		t.Errorf("deltas add up to text %q summary %q; final has %q, %q", text, summary, res.Text, res.Summary)
	}
	for _, item := range final.Output {
		if item.Type == "function_call" && args[item.ID] != item.Arguments.OfString {
			t.Errorf("argument deltas of %s add up to %q, want %q", item.ID, args[item.ID], item.Arguments.OfString)
		}
	}
	return res, final.Usage
}

func responsesParams(model, input string, include ...responses.ResponseIncludable) responses.ResponseNewParams {
	return responses.ResponseNewParams{
		Model:   model,
		Input:   responses.ResponseNewParamsInputUnion{OfString: openai.String(input)},
		Include: include,
	}
}

func TestResponsesSDK(t *testing.T) {
	const long = "Hello, wörld! 👋 This reply is streamed in several pieces."
	encrypted := responses.ResponseIncludableReasoningEncryptedContent
	tests := []struct {
		name    string
		step    string
		include []responses.ResponseIncludable
		want    responsesResult
	}{{
		name: "text",
		step: `{text: "` + long + `"}`,
		want: responsesResult{Text: long, Status: "completed"},
	}, {
		name: "thinking",
		step: `{thinking: "Six times seven.", text: "42"}`,
		want: responsesResult{Summary: "Six times seven.", Text: "42", Status: "completed"},
	}, {
		name:    "thinking with encrypted content",
		step:    `{thinking: "Six times seven.", signature: "opaque", text: "42"}`,
		include: []responses.ResponseIncludable{encrypted},
		want:    responsesResult{Summary: "Six times seven.", Encrypted: "opaque", Text: "42", Status: "completed"},
	}, {
		name:    "redacted thinking",
		step:    `{redacted_thinking: "sealed", text: "ok"}`,
		include: []responses.ResponseIncludable{encrypted},
		want:    responsesResult{Encrypted: "sealed", Text: "ok", Status: "completed"},
	}, {
		name: "one tool call",
		step: `{tool_calls: [{id: call_1, name: get_weather, arguments: {city: Paris}}]}`,
		want: responsesResult{Status: "completed", Calls: []gotCall{{"call_1", "get_weather", `{"city":"Paris"}`}}},
	}, {
		name: "several tool calls",
		step: `{thinking: "Two lookups.", text: "Checking.", tool_calls: [{name: a, arguments: {x: 1}}, {name: b}]}`,
		want: responsesResult{Summary: "Two lookups.", Text: "Checking.", Status: "completed", Calls: []gotCall{
			{"call_fakellm_1_0", "a", `{"x":1}`},
			{"call_fakellm_1_1", "b", `{}`},
		}},
	}, {
		name: "max tokens",
		step: `{text: "cut sho", stop_reason: length}`,
		want: responsesResult{Text: "cut sho", Status: "incomplete", Incomplete: "max_output_tokens"},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			modes(t, func(t *testing.T, stream bool) {
				s := serveStep(t, tt.step)
				got, usage := responsesAsk(t, s, stream, responsesParams("gpt-test", "hi", tt.include...))
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("response (-want +got):\n%s", diff)
				}
				if usage.OutputTokens == 0 || usage.InputTokens == 0 || usage.TotalTokens != usage.InputTokens+usage.OutputTokens {
					t.Errorf("usage %s", usage.RawJSON())
				}
			})
		})
	}
}

func TestResponsesUsage(t *testing.T) {
	modes(t, func(t *testing.T, stream bool) {
		s := serveStep(t, `{thinking: "Look it up.", text: "Sunny."}`)
		first := responses.ResponseNewParams{
			Model:        "gpt-test",
			Instructions: openai.String("You are a weather assistant. Answer briefly."),
			Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
				responses.ResponseInputItemParamOfMessage("What is the weather in Paris?", responses.EasyInputMessageRoleUser),
			}},
		}
		second := first
		second.Input.OfInputItemList = append(append(responses.ResponseInputParam(nil), first.Input.OfInputItemList...),
			responses.ResponseInputItemParamOfMessage("Sunny.", responses.EasyInputMessageRoleAssistant),
			responses.ResponseInputItemParamOfMessage("And tomorrow?", responses.EasyInputMessageRoleUser))
		second.MaxOutputTokens = openai.Int(100)

		_, u1 := responsesAsk(t, s, stream, first)
		if u1.InputTokensDetails.CachedTokens != 0 {
			t.Errorf("first request cached %d tokens", u1.InputTokensDetails.CachedTokens)
		}
		_, u2 := responsesAsk(t, s, stream, second)
		reqs := s.Requests()
		p1, _ := responsesAPI{}.parse(reqs[0].Body)
		p2, _ := responsesAPI{}.parse(reqs[1].Body)
		if want := int64(tokens(len(p2.prompt))); u2.InputTokens != want {
			t.Errorf("input tokens %d, want the whole prompt %d", u2.InputTokens, want)
		}
		if want := int64(sharedParts(p1.prompt, p2.prompt) / 4); want == 0 || u2.InputTokensDetails.CachedTokens != want {
			t.Errorf("cached tokens %d, want %d (> 0)", u2.InputTokensDetails.CachedTokens, want)
		}
		if want := int64(tokens(len("Look it up.Sunny."))); u2.OutputTokens != want {
			t.Errorf("output tokens %d, want %d", u2.OutputTokens, want)
		}
		if want := int64(tokens(len("Look it up."))); u2.OutputTokensDetails.ReasoningTokens != want {
			t.Errorf("reasoning tokens %d, want %d", u2.OutputTokensDetails.ReasoningTokens, want)
		}
	})
}
