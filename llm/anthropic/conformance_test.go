package anthropic_test

import (
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/llm/llmtest"
)

func TestConformance(t *testing.T) {
	newModel := func(t *testing.T, baseURL, model string, tm llm.ThinkingMap) llm.Model {
		m, err := anthropic.New(anthropic.Config{BaseURL: baseURL, APIKey: "test", Model: model, ThinkingMap: tm})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	llmtest.Run(t, llmtest.Harness{
		API: "anthropic",
		New: func(t *testing.T, baseURL, model string) llm.Model {
			return newModel(t, baseURL, model, llm.ThinkingMap{})
		},
		NewThinking: newModel,
		Thinking:    thinkingCases,
	})
}

// thinkingCases hold the maps the catalog gives a budget model (Claude
// Haiku 4.5), an adaptive model that cannot turn thinking off (Claude Opus
// 5.5) and one that turns it off with between_tools (Claude Sonnet 5.5),
// each asking for summarized thinking by default, and two that override
// the display (omitted; default, which sends none), with the request each
// level must send. The suite asks for max_tokens 1024; the adapter's
// MaxOutput is its default, 8192.
var thinkingCases = []llmtest.ThinkingCase{
	{
		Name: "Budget",
		Map: llm.ThinkingMap{Style: llm.ThinkingBudget, Levels: llm.ThinkingValues{
			Off: "default", Minimal: "1024", Low: "4096", Medium: "10000", High: "20000", XHigh: "32000",
		}},
		Fields: []string{"thinking", "output_config", "max_tokens"},
		Want: map[llm.ThinkingLevel]map[string]string{
			"":                  {"max_tokens": `1024`},
			llm.ThinkingOff:     {"max_tokens": `1024`},
			llm.ThinkingMinimal: {"thinking": `{"type":"enabled","budget_tokens":1024,"display":"summarized"}`, "max_tokens": `9216`},
			llm.ThinkingLow:     {"thinking": `{"type":"enabled","budget_tokens":4096,"display":"summarized"}`, "max_tokens": `12288`},
			llm.ThinkingMedium:  {"thinking": `{"type":"enabled","budget_tokens":10000,"display":"summarized"}`, "max_tokens": `18192`},
			llm.ThinkingHigh:    {"thinking": `{"type":"enabled","budget_tokens":20000,"display":"summarized"}`, "max_tokens": `28192`},
			llm.ThinkingXHigh:   {"thinking": `{"type":"enabled","budget_tokens":32000,"display":"summarized"}`, "max_tokens": `40192`},
		},
	},
	{
		Name: "AdaptiveAlwaysOn",
		Map: llm.ThinkingMap{Style: llm.ThinkingAdaptive, Levels: llm.ThinkingValues{
			Off: "low", Minimal: "low", Low: "low", Medium: "medium", High: "high", XHigh: "xhigh",
		}},
		Fields: []string{"thinking", "output_config", "max_tokens"},
		Want: map[llm.ThinkingLevel]map[string]string{
			"":                  {"max_tokens": `1024`},
			llm.ThinkingOff:     {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"low"}`, "max_tokens": `1024`},
			llm.ThinkingMinimal: {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"low"}`, "max_tokens": `1024`},
			llm.ThinkingLow:     {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"low"}`, "max_tokens": `1024`},
			llm.ThinkingMedium:  {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"medium"}`, "max_tokens": `1024`},
			llm.ThinkingHigh:    {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"high"}`, "max_tokens": `1024`},
			llm.ThinkingXHigh:   {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"xhigh"}`, "max_tokens": `1024`},
		},
	},
	{
		Name: "AdaptiveBetweenTools",
		Map: llm.ThinkingMap{Style: llm.ThinkingAdaptive, Levels: llm.ThinkingValues{
			Off: "between_tools", Minimal: "low", Low: "low", Medium: "medium", High: "high", XHigh: "xhigh",
		}},
		Fields: []string{"thinking", "output_config"},
		Want: map[llm.ThinkingLevel]map[string]string{
			"":                  {},
			llm.ThinkingOff:     {"thinking": `{"type":"between_tools"}`},
			llm.ThinkingMinimal: {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"low"}`},
			llm.ThinkingLow:     {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"low"}`},
			llm.ThinkingMedium:  {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"medium"}`},
			llm.ThinkingHigh:    {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"high"}`},
			llm.ThinkingXHigh:   {"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"xhigh"}`},
		},
	}, {
		Name: "AdaptiveDisplayOmitted",
		Map: llm.ThinkingMap{Style: llm.ThinkingAdaptive, Display: llm.ThinkingDisplayOmitted, Levels: llm.ThinkingValues{
			Off: "disabled", Minimal: "adaptive", Low: "low", Medium: "medium", High: "high", XHigh: "xhigh",
		}},
		Fields: []string{"thinking", "output_config"},
		Want: map[llm.ThinkingLevel]map[string]string{
			"":                  {},
			llm.ThinkingOff:     {"thinking": `{"type":"disabled"}`},
			llm.ThinkingMinimal: {"thinking": `{"type":"adaptive","display":"omitted"}`},
			llm.ThinkingLow:     {"thinking": `{"type":"adaptive","display":"omitted"}`, "output_config": `{"effort":"low"}`},
			llm.ThinkingMedium:  {"thinking": `{"type":"adaptive","display":"omitted"}`, "output_config": `{"effort":"medium"}`},
			llm.ThinkingHigh:    {"thinking": `{"type":"adaptive","display":"omitted"}`, "output_config": `{"effort":"high"}`},
			llm.ThinkingXHigh:   {"thinking": `{"type":"adaptive","display":"omitted"}`, "output_config": `{"effort":"xhigh"}`},
		},
	},
	{
		Name:   "BudgetDisplayDefault",
		Map:    llm.ThinkingMap{Style: llm.ThinkingBudget, Display: llm.ThinkingSendNothing},
		Fields: []string{"thinking", "output_config"},
		Want: map[llm.ThinkingLevel]map[string]string{
			"":                  {},
			llm.ThinkingOff:     {},
			llm.ThinkingMinimal: {"thinking": `{"type":"enabled","budget_tokens":1024}`},
			llm.ThinkingLow:     {"thinking": `{"type":"enabled","budget_tokens":4096}`},
			llm.ThinkingMedium:  {"thinking": `{"type":"enabled","budget_tokens":10000}`},
			llm.ThinkingHigh:    {"thinking": `{"type":"enabled","budget_tokens":20000}`},
			llm.ThinkingXHigh:   {"thinking": `{"type":"enabled","budget_tokens":32000}`},
		},
	},
}
