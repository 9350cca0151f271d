package models

import (
	"github.com/vigil-dev/vigil/internal/yamlfile"
	"github.com/vigil-dev/vigil/llm"
)

// thinkingStyles are the thinking styles each supported API takes; the
// first is what a model with no thinking map gets.
var thinkingStyles = map[llm.API][]llm.ThinkingStyle{
	llm.APIAnthropicMessages: {llm.ThinkingBudget, llm.ThinkingAdaptive},
	llm.APIOpenAICompletions: {llm.ThinkingEffort},
	llm.APIOpenAIResponses:   {llm.ThinkingEffort},
}

// validateThinking checks a model's thinking map, at key at of the file:
// its values, and its style against api (the model's or its provider's,
// "" when the file names neither, as for a built-in provider).
func validateThinking(name string, data []byte, at string, api llm.API, tm llm.ThinkingMap) error {
	if err := tm.Validate(); err != nil {
		return yamlfile.At(name, data, at, "%v", err)
	}
	styles, ok := thinkingStyles[api]
	if !ok || tm.Style == "" {
		return nil
	}
	for _, s := range styles {
		if s == tm.Style {
			return nil
		}
	}
	return yamlfile.At(name, data, at+".style", "api %s takes no thinking style %q (want %v)", api, tm.Style, styles)
}
