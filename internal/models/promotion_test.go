package models_test

import (
	"testing"

	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

func TestFamily(t *testing.T) {
	for id, want := range map[string]string{
		"claude-sonnet-4-5":          "claude-sonnet",
		"claude-sonnet-5-20260101":   "claude-sonnet",
		"claude-3-5-sonnet-20241022": "claude-sonnet",
		"claude-opus-5-5":            "claude-opus",
		"gpt-5-mini":                 "gpt-mini",
		"gpt-5.2-mini":               "gpt-mini",
		"gpt-5.2":                    "gpt",
		"o4-mini":                    "o4-mini",
		"claude-sonnet-4-5[1m]":      "claude-sonnet",
		"model-latest":               "model",
		"5":                          "5",
	} {
		if got := models.Family(id); got != want {
			t.Errorf("Family(%q) = %q, want %q", id, got, want)
		}
	}
}

// TestPromotionTarget drives the policy over one provider: adv-1 (the
// advisor, 40k), adv-3 (the agent's, 200k), adv-2 (400k), big-9 (another
// family, 1M), adv-4 (no key, 800k), and other/adv-5 (another provider).
func TestPromotionTarget(t *testing.T) {
	data := `providers:
  p:
    baseUrl: http://127.0.0.1:1
    api: anthropic-messages
    auth: none
    models:
      - {id: adv-1, reasoning: true, contextWindow: 40000, contextPromotionTarget: ""}
      - {id: adv-3, contextWindow: 200000}
      - {id: adv-2, reasoning: true, contextWindow: 400000}
      - {id: big-9, reasoning: true, contextWindow: 1000000}
      - {id: small-1, contextWindow: 40000, contextPromotionTarget: big-9}
  keyed:
    baseUrl: http://127.0.0.1:1
    api: anthropic-messages
    apiKey: UNSET_KEY_VAR
    models:
      - {id: adv-4, contextWindow: 800000}
  other:
    baseUrl: http://127.0.0.1:1
    api: anthropic-messages
    auth: none
    models:
      - {id: adv-5, contextWindow: 800000}
`
	f, err := models.ParseFile("models.yml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: f})
	resolve := func(s string) *models.Resolved {
		res, err := r.Resolve(s)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	agent := llm.Ref{Provider: "p", Model: "adv-3"}
	for _, tc := range []struct {
		name string
		cur  string
		need int64
		p    models.PromotionPolicy
		want string // "" = none
	}{
		{"default skips the agent's model", "p/adv-1:high", 35000, models.PromotionPolicy{Avoid: agent}, "p/adv-2:high"},
		{"default takes the smallest that fits", "p/adv-1", 35000, models.PromotionPolicy{}, "p/adv-3"},
		{"default: too big for all, the largest", "p/adv-1", 900000, models.PromotionPolicy{}, "p/adv-2"},
		{"default: nothing larger in the family", "p/adv-2", 350000, models.PromotionPolicy{}, ""},
		{"contextPromotionTarget first", "p/small-1", 35000, models.PromotionPolicy{}, "p/big-9"},
		{"listed, in order", "p/adv-1", 35000, models.PromotionPolicy{Listed: true, Candidates: []string{"p/adv-3", "p/adv-2"}}, "p/adv-3"},
		{"listed: another provider and family", "p/adv-1", 35000, models.PromotionPolicy{Listed: true, Candidates: []string{"other/adv-5"}}, "other/adv-5"},
		{"listed: skips unusable and smaller", "p/adv-2", 35000, models.PromotionPolicy{Listed: true, Candidates: []string{"keyed/adv-4", "p/adv-1", "nope/x", "p/big-9:low"}}, "p/big-9:low"},
		{"listed empty never promotes", "p/adv-1", 35000, models.PromotionPolicy{Listed: true}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := r.PromotionTarget(resolve(tc.cur), tc.need, tc.p)
			switch {
			case tc.want == "" && ok:
				t.Errorf("PromotionTarget = %s, want none", got.Ref())
			case tc.want != "" && !ok:
				t.Errorf("PromotionTarget found none, want %s", tc.want)
			case ok && got.Ref().String() != tc.want:
				t.Errorf("PromotionTarget = %s, want %s", got.Ref(), tc.want)
			}
		})
	}
}

func TestDefaultModel(t *testing.T) {
	env := map[string]string{}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	r := models.New(models.Options{LookupEnv: lookup})
	if _, _, err := r.DefaultModel(); err == nil || err.Error() != "no API key is set: set ANTHROPIC_API_KEY or OPENAI_API_KEY" {
		t.Errorf("no keys: err = %v", err)
	}
	env["OPENAI_API_KEY"] = "sk-test"
	res, why, err := r.DefaultModel()
	if err != nil || res.Ref().String() != "openai/gpt-6.1-sol" || why != "OPENAI_API_KEY is set" {
		t.Errorf("OpenAI key: %v, %q, %v", res, why, err)
	}
	env["ANTHROPIC_API_KEY"] = "sk-ant-test"
	if res, _, err := r.DefaultModel(); err != nil || res.Ref().String() != "anthropic/claude-sonnet-5-5" {
		t.Errorf("both keys: %v, %v; want anthropic first", res, err)
	}
	// A provider of the user's own that needs no key, with no default
	// marked: its first model.
	f, err := models.ParseFile("models.yml", []byte("providers:\n  local:\n    baseUrl: http://127.0.0.1:1\n    api: openai-completions\n    auth: none\n    models: [{id: qwen}, {id: llama}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	clear(env)
	res, why, err = models.New(models.Options{User: f, LookupEnv: lookup}).DefaultModel()
	if err != nil || res.Ref().String() != "local/qwen" || why != "it needs no key" {
		t.Errorf("keyless provider: %v, %q, %v", res, why, err)
	}
}
