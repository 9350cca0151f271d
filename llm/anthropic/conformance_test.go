package anthropic_test

import (
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/llm/llmtest"
)

func TestConformance(t *testing.T) {
	llmtest.Run(t, llmtest.Harness{
		API: "anthropic",
		New: func(t *testing.T, baseURL, model string) llm.Model {
			m, err := anthropic.New(anthropic.Config{BaseURL: baseURL, APIKey: "test", Model: model})
			if err != nil {
				t.Fatal(err)
			}
			return m
		},
	})
}
