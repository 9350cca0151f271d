package models_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

// accepts is what a provider documents a model as accepting: the
// Anthropic thinking.type values and the efforts (Anthropic
// output_config.effort, OpenAI reasoning.effort). A request that sends no
// thinking type or effort is always accepted.
type accepts struct {
	types   []string
	efforts []string
}

var (
	claudeEfforts = []string{"low", "medium", "high", "xhigh", "max"}
	// documented lists every catalog model with what its provider's pages
	// (read 2026-11) say it accepts. It is written from the providers'
	// side, not copied from the catalog, so the test below checks the
	// catalog against it.
	documented = map[string]accepts{
		"anthropic/claude-fable-5-1":  {[]string{"adaptive"}, claudeEfforts},
		"anthropic/claude-opus-5-5":   {[]string{"adaptive"}, claudeEfforts},
		"anthropic/claude-opus-5":     {[]string{"adaptive", "disabled"}, claudeEfforts},
		"anthropic/claude-sonnet-5-5": {[]string{"adaptive", "between_tools"}, claudeEfforts},
		"anthropic/claude-sonnet-5":   {[]string{"adaptive", "disabled"}, claudeEfforts},
		"anthropic/claude-haiku-5-5":  {[]string{"adaptive", "disabled"}, claudeEfforts},
		"anthropic/claude-opus-4-8":   {[]string{"adaptive", "disabled"}, claudeEfforts},
		"anthropic/claude-sonnet-4-6": {[]string{"adaptive", "enabled", "disabled"}, []string{"low", "medium", "high", "max"}},
		"anthropic/claude-haiku-4-5":  {[]string{"enabled", "disabled"}, nil},
		"openai/gpt-6-astra":          {nil, []string{"low", "medium", "high", "xhigh", "max"}},
		"openai/gpt-6.1-sol":          {nil, []string{"low", "medium", "high", "xhigh", "max"}},
		"openai/gpt-6-sol":            {nil, []string{"none", "low", "medium", "high", "xhigh", "max"}},
		"openai/gpt-6-luna":           {nil, []string{"none", "low", "medium", "high", "xhigh", "max"}},
		"openai/gpt-5.4":              {nil, []string{"none", "low", "medium", "high", "xhigh"}},
		"openai/gpt-5.4-mini":         {nil, []string{"none", "low", "medium", "high", "xhigh"}},
	}
)

// fakeRegistry is the built-in catalog with both providers pointed at srv.
func fakeRegistry(t *testing.T, srv *fakellm.Server) *models.Registry {
	t.Helper()
	user, err := models.ParseFile("models.yml", fmt.Appendf(nil, `
providers:
  anthropic: {baseUrl: %q, apiKey: test-key}
  openai: {baseUrl: %q, apiKey: test-key}
`, srv.URL(), srv.URL()+"/v1"))
	if err != nil {
		t.Fatal(err)
	}
	return models.New(models.Options{User: user})
}

// sendAt opens ref at level ("" for none), sends one short request and
// returns its body as JSON fields.
func sendAt(t *testing.T, r *models.Registry, srv *fakellm.Server, ref string, level llm.ThinkingLevel) map[string]json.RawMessage {
	t.Helper()
	if level != "" {
		ref += ":" + string(level)
	}
	res, err := r.Resolve(ref)
	if err != nil {
		t.Fatal(err)
	}
	m, err := res.Open()
	if err != nil {
		t.Fatal(err)
	}
	n := len(srv.Requests())
	req := llm.Request{Messages: []llm.Message{llm.UserText("think")}, MaxTokens: 1024}
	if _, err := llm.Accumulate(m.Stream(context.Background(), req)); err != nil {
		t.Fatalf("%s: %v", ref, err)
	}
	reqs := srv.Requests()
	if len(reqs) != n+1 {
		t.Fatalf("%s: %d requests, want %d", ref, len(reqs), n+1)
	}
	var body map[string]json.RawMessage
	if err := json.Unmarshal(reqs[n].Body, &body); err != nil {
		t.Fatal(err)
	}
	return body
}

func serveOK(t *testing.T) *fakellm.Server {
	t.Helper()
	return fakellm.StartTest(t, fakellm.MustParse(t, "rules:\n  - repeat: true\n    steps: [{text: ok}]\n"))
}

// TestCatalogThinkingAsDocumented sends every thinking level to every
// catalog model, through the registry and the adapters, and checks that
// each request carries only a thinking type and effort the provider
// documents the model as accepting. It is the test that keeps the catalog
// from sending a budget to a model that only thinks adaptively, or minimal
// to one that has no such effort.
func TestCatalogThinkingAsDocumented(t *testing.T) {
	srv := serveOK(t)
	r := fakeRegistry(t, srv)
	seen := map[string]bool{}
	for _, e := range r.Entries() {
		ref := e.Info.Ref().String()
		seen[ref] = true
		doc, ok := documented[ref]
		if !ok {
			t.Errorf("%s: not in the documented table; add what its provider says it accepts", ref)
			continue
		}
		if e.Info.ThinkingMap.Style == "" {
			t.Errorf("%s: the catalog gives no thinking map", ref)
		}
		for _, level := range append([]llm.ThinkingLevel{""}, llm.ThinkingLevels...) {
			body := sendAt(t, r, srv, ref, level)
			typ, effort := thinkingSent(t, body)
			if typ != "" && !slices.Contains(doc.types, typ) {
				t.Errorf("%s:%s sends thinking.type %q; it accepts %v", ref, level, typ, doc.types)
			}
			if effort != "" && !slices.Contains(doc.efforts, effort) {
				t.Errorf("%s:%s sends effort %q; it accepts %v", ref, level, effort, doc.efforts)
			}
			if level.Enabled() && typ == "" && effort == "" {
				t.Errorf("%s:%s sends no thinking setting", ref, level)
			}
		}
	}
	for ref := range documented {
		if !seen[ref] {
			t.Errorf("%s is documented but not in the catalog", ref)
		}
	}
}

// thinkingSent reads the thinking type and effort a request carries.
func thinkingSent(t *testing.T, body map[string]json.RawMessage) (typ, effort string) {
	t.Helper()
	var th struct {
		Type string `json:"type"`
	}
	var eff struct {
		Effort string `json:"effort"`
	}
	for key, dst := range map[string]any{"thinking": &th, "output_config": &eff, "reasoning": &eff} {
		if raw, ok := body[key]; ok {
			if err := json.Unmarshal(raw, dst); err != nil {
				t.Fatalf("%s: %v", key, err)
			}
		}
	}
	if raw, ok := body["reasoning_effort"]; ok {
		if err := json.Unmarshal(raw, &eff.Effort); err != nil {
			t.Fatal(err)
		}
	}
	return th.Type, eff.Effort
}

// TestCatalogThinkingWire checks the exact request of every level for one
// budget model (Claude Haiku 4.5), one adaptive model that cannot turn
// thinking off (Claude Opus 5.5) and one OpenAI model with none (GPT-6
// Sol), resolved from the catalog and sent through fakellm. The Claude
// models ask for summarized thinking whenever it is on.
func TestCatalogThinkingWire(t *testing.T) {
	adaptive := func(effort string) map[string]string {
		return map[string]string{"thinking": `{"type":"adaptive","display":"summarized"}`, "output_config": `{"effort":"` + effort + `"}`, "max_tokens": `1024`}
	}
	budget := func(n int) map[string]string {
		// max_tokens is raised above the budget by the model's maxTokens.
		return map[string]string{"thinking": fmt.Sprintf(`{"type":"enabled","budget_tokens":%d,"display":"summarized"}`, n), "max_tokens": fmt.Sprint(n + 64000)}
	}
	effort := func(e string) map[string]string {
		return map[string]string{"reasoning": `{"effort":"` + e + `","summary":"auto"}`}
	}
	tests := []struct {
		ref    string
		fields []string
		want   map[llm.ThinkingLevel]map[string]string
	}{
		{"anthropic/claude-haiku-4-5", []string{"thinking", "output_config", "max_tokens"}, map[llm.ThinkingLevel]map[string]string{
			"":                  {"max_tokens": `1024`},
			llm.ThinkingOff:     {"max_tokens": `1024`},
			llm.ThinkingMinimal: budget(1024),
			llm.ThinkingLow:     budget(4096),
			llm.ThinkingMedium:  budget(10000),
			llm.ThinkingHigh:    budget(20000),
			llm.ThinkingXHigh:   budget(32000),
		}},
		{"anthropic/claude-opus-5-5", []string{"thinking", "output_config", "max_tokens"}, map[llm.ThinkingLevel]map[string]string{
			"":                  {"max_tokens": `1024`},
			llm.ThinkingOff:     adaptive("low"),
			llm.ThinkingMinimal: adaptive("low"),
			llm.ThinkingLow:     adaptive("low"),
			llm.ThinkingMedium:  adaptive("medium"),
			llm.ThinkingHigh:    adaptive("high"),
			llm.ThinkingXHigh:   adaptive("xhigh"),
		}},
		{"openai/gpt-6-sol", []string{"reasoning"}, map[llm.ThinkingLevel]map[string]string{
			"":                  {},
			llm.ThinkingOff:     effort("none"),
			llm.ThinkingMinimal: effort("low"),
			llm.ThinkingLow:     effort("low"),
			llm.ThinkingMedium:  effort("medium"),
			llm.ThinkingHigh:    effort("high"),
			llm.ThinkingXHigh:   effort("xhigh"),
		}},
	}
	srv := serveOK(t)
	r := fakeRegistry(t, srv)
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			for _, level := range append([]llm.ThinkingLevel{""}, llm.ThinkingLevels...) {
				body := sendAt(t, r, srv, tt.ref, level)
				for _, f := range tt.fields {
					got, want := compact(t, body[f]), tt.want[level][f]
					if want != "" {
						want = compact(t, json.RawMessage(want))
					}
					if got != want {
						t.Errorf("level %q: %s = %s, want %s", level, f, orAbsent(got), orAbsent(want))
					}
				}
			}
		})
	}
}

// compact re-encodes JSON without spaces; "" for none.
func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	if raw == nil {
		return ""
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func orAbsent(s string) string {
	if s == "" {
		return "absent"
	}
	return s
}

func TestThinkingInModelsFile(t *testing.T) {
	tests := []struct {
		name, yaml, want string // want "" for valid
	}{
		{"Adaptive", `
providers:
  proxy:
    baseUrl: http://127.0.0.1:9/
    api: anthropic-messages
    models:
      - id: claude-next
        thinking: {style: adaptive, levels: {off: between_tools, xhigh: max}}
`, ""},
		{"BadBudget", `
providers:
  proxy:
    baseUrl: http://127.0.0.1:9/
    api: anthropic-messages
    models:
      - id: claude-old
        thinking: {style: budget, levels: {low: 100}}
`, `models.yml:8:19: providers.proxy.models[0].thinking: level low: "100" is not a budget`},
		{"BadDisplay", `
providers:
  proxy:
    baseUrl: http://127.0.0.1:9/
    api: anthropic-messages
    models:
      - id: claude-next
        thinking: {style: adaptive, display: full}
`, `providers.proxy.models[0].thinking: display: "full" is not summarized, omitted or default`},
		{"StyleForOtherAPI", `
providers:
  proxy:
    baseUrl: http://127.0.0.1:9/v1
    api: openai-responses
    models:
      - id: gpt-next
        thinking: {style: adaptive}
`, `providers.proxy.models[0].thinking.style: api openai-responses takes no thinking style "adaptive"`},
		{"UnknownLevel", `
providers:
  proxy:
    baseUrl: http://127.0.0.1:9/v1
    api: openai-responses
    models:
      - id: gpt-next
        thinking: {style: effort, levels: {max: max}}
`, `max`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := models.ParseFile("models.yml", []byte(tt.yaml))
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

// TestUserThinkingMapReachesTheWire checks that a model defined in
// models.yml sends what its thinking map says.
func TestUserThinkingMapReachesTheWire(t *testing.T) {
	srv := serveOK(t)
	user, err := models.ParseFile("models.yml", fmt.Appendf(nil, `
providers:
  proxy:
    baseUrl: %q
    api: anthropic-messages
    auth: none
    models:
      - id: claude-next
        reasoning: true
        thinking: {style: adaptive, levels: {off: between_tools, xhigh: max}}
      - id: claude-quiet
        reasoning: true
        thinking: {style: adaptive, display: omitted}
`, srv.URL()))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: user})
	for _, tt := range []struct {
		ref   string
		level llm.ThinkingLevel
		want  string
	}{
		{"proxy/claude-next", llm.ThinkingOff, `{"thinking":{"type":"between_tools"}}`},
		{"proxy/claude-next", llm.ThinkingXHigh, `{"output_config":{"effort":"max"},"thinking":{"display":"summarized","type":"adaptive"}}`},
		{"proxy/claude-quiet", llm.ThinkingHigh, `{"output_config":{"effort":"high"},"thinking":{"display":"omitted","type":"adaptive"}}`},
	} {
		level, want := tt.level, tt.want
		body := sendAt(t, r, srv, tt.ref, level)
		got := map[string]json.RawMessage{"thinking": body["thinking"]}
		if oc, ok := body["output_config"]; ok {
			got["output_config"] = oc
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if g := compact(t, b); g != want {
			t.Errorf("%s:%s: %s, want %s", tt.ref, level, g, want)
		}
	}
}
