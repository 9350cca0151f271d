package fakellm

import (
	"fmt"
	"slices"
	"strings"
)

// The thinking settings the real APIs accept from any model. A request
// outside them is answered 400, as the provider would, so that an adapter
// sending a malformed thinking setting fails its tests rather than in use.
// Which settings a given model accepts is not checked here.
var (
	// anthropicThinkingTypes are the values of thinking.type.
	anthropicThinkingTypes = []string{"enabled", "adaptive", "disabled", "between_tools"}
	// anthropicDisplays are the values of thinking.display, which only
	// types enabled and adaptive take.
	anthropicDisplays = []string{"summarized", "omitted"}
	// anthropicEfforts are the values of output_config.effort.
	anthropicEfforts = []string{"low", "medium", "high", "xhigh", "max"}
	// openAIEfforts are the values of reasoning_effort and
	// reasoning.effort.
	openAIEfforts = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}
)

// minThinkingBudget is the smallest budget_tokens Anthropic accepts.
const minThinkingBudget = 1024

// anthropicThinking is the thinking part of a Messages request.
type anthropicThinkingRequest struct {
	MaxTokens int64 `json:"max_tokens"`
	Thinking  *struct {
		Type         string  `json:"type"`
		BudgetTokens *int64  `json:"budget_tokens"`
		Display      *string `json:"display"`
	} `json:"thinking"`
	OutputConfig *struct {
		Effort *string `json:"effort"`
	} `json:"output_config"`
	Temperature *float64 `json:"temperature"`
}

// check reports the first thinking setting the Messages API would reject:
// an unknown thinking type, effort or display, a budget under 1024 or not
// under max_tokens (when the request has one), a budget with another type,
// a display with a type other than enabled or adaptive, or a temperature
// other than 1 while thinking is enabled or adaptive.
func (r *anthropicThinkingRequest) check() error {
	if oc := r.OutputConfig; oc != nil && oc.Effort != nil && !slices.Contains(anthropicEfforts, *oc.Effort) {
		return fmt.Errorf("output_config.effort: %q is not one of %s", *oc.Effort, strings.Join(anthropicEfforts, ", "))
	}
	th := r.Thinking
	if th == nil {
		return nil
	}
	if !slices.Contains(anthropicThinkingTypes, th.Type) {
		return fmt.Errorf("thinking.type: %q is not one of %s", th.Type, strings.Join(anthropicThinkingTypes, ", "))
	}
	if d := th.Display; d != nil {
		if th.Type != "enabled" && th.Type != "adaptive" {
			return fmt.Errorf("thinking.display: not allowed with thinking.type %q", th.Type)
		}
		if !slices.Contains(anthropicDisplays, *d) {
			return fmt.Errorf("thinking.display: %q is not one of %s", *d, strings.Join(anthropicDisplays, ", "))
		}
	}
	if th.Type != "enabled" {
		if th.BudgetTokens != nil {
			return fmt.Errorf("thinking.budget_tokens: not allowed with thinking.type %q", th.Type)
		}
	} else {
		switch b := th.BudgetTokens; {
		case b == nil:
			return fmt.Errorf("thinking.budget_tokens: required with thinking.type \"enabled\"")
		case *b < minThinkingBudget:
			return fmt.Errorf("thinking.budget_tokens: must be at least %d, got %d", minThinkingBudget, *b)
		case r.MaxTokens > 0 && *b >= r.MaxTokens:
			return fmt.Errorf("max_tokens must be greater than thinking.budget_tokens (%d <= %d)", r.MaxTokens, *b)
		}
	}
	if (th.Type == "enabled" || th.Type == "adaptive") && r.Temperature != nil && *r.Temperature != 1 {
		return fmt.Errorf("temperature may only be 1 when thinking is %s, got %g", th.Type, *r.Temperature)
	}
	return nil
}

// checkOpenAIEffort reports an effort OpenAI would reject; field names it.
func checkOpenAIEffort(field string, effort *string) error {
	if effort != nil && !slices.Contains(openAIEfforts, *effort) {
		return fmt.Errorf("%s: %q is not one of %s", field, *effort, strings.Join(openAIEfforts, ", "))
	}
	return nil
}
