package openai_test

import (
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/llmtest"
	"github.com/vigil-dev/vigil/llm/openai"
)

func TestConformance(t *testing.T) {
	for _, tt := range []struct {
		name     string
		api      llm.API
		wire     string
		thinking []llmtest.ThinkingCase
	}{
		{"Chat", llm.APIOpenAICompletions, "chat", effortCases("reasoning_effort", func(e string) string { return `"` + e + `"` })},
		{"Responses", llm.APIOpenAIResponses, "responses", effortCases("reasoning", func(e string) string { return `{"effort":"` + e + `","summary":"auto"}` })},
	} {
		t.Run(tt.name, func(t *testing.T) {
			newModel := func(t *testing.T, baseURL, model string, tm llm.ThinkingMap) llm.Model {
				m, err := openai.New(openai.Config{
					API:     tt.api,
					BaseURL: baseURL + "/v1", // the harness gives fakellm's root
					APIKey:  "test",
					Model:   model,
					// Reasoning models get their encrypted reasoning back,
					// which the thinking round trip needs.
					Reasoning:   true,
					ThinkingMap: tm,
				})
				if err != nil {
					t.Fatal(err)
				}
				return m
			}
			llmtest.Run(t, llmtest.Harness{
				API: tt.wire,
				New: func(t *testing.T, baseURL, model string) llm.Model {
					return newModel(t, baseURL, model, llm.ThinkingMap{})
				},
				NewThinking: newModel,
				Thinking:    tt.thinking,
			})
		})
	}
}

// effortCases are the default map (each level's own name, nothing for off)
// and the catalog's map for GPT-6 Sol (none for off, low for the minimal it
// rejects), with the field that carries the effort and its JSON.
func effortCases(field string, sent func(effort string) string) []llmtest.ThinkingCase {
	want := func(efforts map[llm.ThinkingLevel]string) map[llm.ThinkingLevel]map[string]string {
		out := map[llm.ThinkingLevel]map[string]string{}
		for _, l := range append([]llm.ThinkingLevel{""}, llm.ThinkingLevels...) {
			out[l] = map[string]string{}
			if e := efforts[l]; e != "" {
				out[l][field] = sent(e)
			}
		}
		return out
	}
	return []llmtest.ThinkingCase{
		{
			Name:   "Default",
			Fields: []string{field},
			Want: want(map[llm.ThinkingLevel]string{
				llm.ThinkingMinimal: "minimal", llm.ThinkingLow: "low", llm.ThinkingMedium: "medium",
				llm.ThinkingHigh: "high", llm.ThinkingXHigh: "xhigh",
			}),
		},
		{
			Name: "NoneAndNoMinimal",
			Map: llm.ThinkingMap{Style: llm.ThinkingEffort, Levels: llm.ThinkingValues{
				Off: "none", Minimal: "low", Low: "low", Medium: "medium", High: "high", XHigh: "xhigh",
			}},
			Fields: []string{field},
			Want: want(map[llm.ThinkingLevel]string{
				llm.ThinkingOff: "none", llm.ThinkingMinimal: "low", llm.ThinkingLow: "low", llm.ThinkingMedium: "medium",
				llm.ThinkingHigh: "high", llm.ThinkingXHigh: "xhigh",
			}),
		},
	}
}
