package openai_test

import (
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/llmtest"
	"github.com/vigil-dev/vigil/llm/openai"
)

func TestConformance(t *testing.T) {
	for _, tt := range []struct {
		name string
		api  llm.API
		wire string
	}{
		{"Chat", llm.APIOpenAICompletions, "chat"},
		{"Responses", llm.APIOpenAIResponses, "responses"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			llmtest.Run(t, llmtest.Harness{
				API: tt.wire,
				New: func(t *testing.T, baseURL, model string) llm.Model {
					m, err := openai.New(openai.Config{
						API:     tt.api,
						BaseURL: baseURL + "/v1", // the harness gives fakellm's root
						APIKey:  "test",
						Model:   model,
						// Reasoning models get their encrypted reasoning back,
						// which the thinking round trip needs.
						Reasoning: true,
					})
					if err != nil {
						t.Fatal(err)
					}
					return m
				},
			})
		})
	}
}
