package fakellm

import (
	"net/http"
	"strings"
	"testing"
)

// TestThinkingSettings posts thinking settings the real APIs accept and
// reject: the accepted ones are answered from the script, the rejected
// ones with 400 naming the field, before any step is consumed.
func TestThinkingSettings(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	tests := []struct {
		name, path, body string
		want             string // "" for accepted, else a substring of the 400's message
	}{
		{"NoThinking", "/v1/messages", `{"model":"m","max_tokens":100,` + msgs + `}`, ""},
		{"Budget", "/v1/messages", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},` + msgs + `}`, ""},
		{"Adaptive", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"adaptive"},"output_config":{"effort":"max"},` + msgs + `}`, ""},
		{"EffortAlone", "/v1/messages", `{"model":"m","max_tokens":100,"output_config":{"effort":"low"},` + msgs + `}`, ""},
		{"Disabled", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"disabled"},"temperature":0.2,` + msgs + `}`, ""},
		{"BetweenTools", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"between_tools"},` + msgs + `}`, ""},
		{"AdaptiveSummarized", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"adaptive","display":"summarized"},` + msgs + `}`, ""},
		{"BudgetOmitted", "/v1/messages", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024,"display":"omitted"},` + msgs + `}`, ""},
		{"UnknownDisplay", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"adaptive","display":"full"},` + msgs + `}`, `thinking.display: "full" is not one of summarized, omitted`},
		{"DisplayWithDisabled", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"disabled","display":"summarized"},` + msgs + `}`, `thinking.display: not allowed with thinking.type "disabled"`},
		{"DisplayWithBetweenTools", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"between_tools","display":"omitted"},` + msgs + `}`, `thinking.display: not allowed with thinking.type "between_tools"`},
		{"UnknownType", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"extended"},` + msgs + `}`, `thinking.type: "extended" is not one of`},
		{"UnknownEffort", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"adaptive"},"output_config":{"effort":"minimal"},` + msgs + `}`, `output_config.effort: "minimal"`},
		{"SmallBudget", "/v1/messages", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":512},` + msgs + `}`, "at least 1024, got 512"},
		{"BudgetOverMax", "/v1/messages", `{"model":"m","max_tokens":1024,"thinking":{"type":"enabled","budget_tokens":1024},` + msgs + `}`, "max_tokens must be greater than thinking.budget_tokens"},
		{"NoBudget", "/v1/messages", `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled"},` + msgs + `}`, "required"},
		{"BudgetWithAdaptive", "/v1/messages", `{"model":"m","max_tokens":20000,"thinking":{"type":"adaptive","budget_tokens":4096},` + msgs + `}`, `not allowed with thinking.type "adaptive"`},
		{"TemperatureWithThinking", "/v1/messages", `{"model":"m","max_tokens":100,"thinking":{"type":"adaptive"},"temperature":0.2,` + msgs + `}`, "temperature may only be 1"},
		{"ChatEffort", "/v1/chat/completions", `{"model":"m","reasoning_effort":"none",` + msgs + `}`, ""},
		{"ChatBadEffort", "/v1/chat/completions", `{"model":"m","reasoning_effort":"extreme",` + msgs + `}`, `reasoning_effort: "extreme"`},
		{"ResponsesEffort", "/v1/responses", `{"model":"m","reasoning":{"effort":"max","summary":"auto"},"input":"hi"}`, ""},
		{"ResponsesNoEffort", "/v1/responses", `{"model":"m","reasoning":{"summary":"auto"},"input":"hi"}`, ""},
		{"ResponsesBadEffort", "/v1/responses", `{"model":"m","reasoning":{"effort":"adaptive"},"input":"hi"}`, `reasoning.effort: "adaptive"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := serveStep(t, `{text: ok}`)
			status, body := post(t, s, tt.path, tt.body)
			if tt.want == "" {
				if status != http.StatusOK {
					t.Fatalf("status %d, want 200: %s", status, body)
				}
				return
			}
			// The message is a JSON string: its quotes are escaped.
			if status != http.StatusBadRequest || !strings.Contains(strings.ReplaceAll(body, `\"`, `"`), tt.want) {
				t.Fatalf("status %d %s, want 400 with %q", status, body, tt.want)
			}
			if r := s.Requests(); len(r) != 1 || r[0].StepIndex != -1 {
				t.Errorf("requests %+v, want one that consumed no step", r)
			}
		})
	}
}
