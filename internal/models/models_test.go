package models_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestCatalogIsValid(t *testing.T) {
	r := models.New(models.Options{})
	entries := r.Entries()
	providers := map[string]int{}
	for _, e := range entries {
		providers[e.Info.Provider]++
		if e.Info.ContextWindow <= 0 || e.Info.MaxOutput <= 0 || e.Info.Price.Input <= 0 || e.Info.Price.Output <= 0 {
			t.Errorf("%s: incomplete catalog entry %+v", e.Info.Ref(), e.Info)
		}
		if !strings.Contains(e.Problem, "is not set") {
			t.Errorf("%s: problem = %q, want a missing key with an empty environment", e.Info.Ref(), e.Problem)
		}
	}
	if providers["anthropic"] < 3 || providers["openai"] < 3 {
		t.Errorf("catalog providers = %v, want Anthropic and OpenAI models", providers)
	}
}

func TestResolve(t *testing.T) {
	user, err := models.ParseFile("models.yml", []byte(`
providers:
  local:
    baseUrl: http://127.0.0.1:8080/v1
    api: openai-completions
    auth: none
    models:
      - id: qwen3-coder
        contextWindow: 32768
        maxTokens: 4096
      - id: claude-opus-5
  anthropic:
    modelOverrides:
      claude-haiku-4-5:
        name: Haiku (team)
`))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: user, LookupEnv: env("ANTHROPIC_API_KEY", "k")})
	tests := []struct {
		ref      string
		want     string
		thinking llm.ThinkingLevel
		api      llm.API
	}{
		{"anthropic/claude-opus-5:high", "anthropic/claude-opus-5", llm.ThinkingHigh, llm.APIAnthropicMessages},
		{"claude-sonnet-5-5", "anthropic/claude-sonnet-5-5", "", llm.APIAnthropicMessages},
		{"qwen3-coder:low", "local/qwen3-coder", llm.ThinkingOff, llm.APIOpenAICompletions},
		{"openai/gpt-6-astra:xhigh", "openai/gpt-6-astra", llm.ThinkingXHigh, llm.APIOpenAIResponses},
	}
	for _, tt := range tests {
		m, err := r.Resolve(tt.ref)
		if err != nil {
			t.Errorf("Resolve(%q): %v", tt.ref, err)
			continue
		}
		if got := m.Info.Ref().String(); got != tt.want || m.Thinking != tt.thinking || m.Info.API != tt.api {
			t.Errorf("Resolve(%q) = %s thinking %q api %s, want %s %q %s", tt.ref, got, m.Thinking, m.Info.API, tt.want, tt.thinking, tt.api)
		}
	}
	m, _ := r.Resolve("anthropic/claude-haiku-4-5")
	if m.Info.Name != "Haiku (team)" {
		t.Errorf("override not applied: name %q", m.Info.Name)
	}
}

func TestResolveErrors(t *testing.T) {
	user, err := models.ParseFile("models.yml", []byte(`
providers:
  local:
    baseUrl: http://127.0.0.1:8080/v1
    api: openai-completions
    auth: none
    models:
      - id: claude-opus-5
`))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: user})
	tests := []struct{ ref, want string }{
		{"nope/x", `unknown provider "nope"`},
		{"nope/x", "known providers are anthropic (9 models), openai (6 models), local (1 models)"},
		{"anthropic/claude-opus-9", "provider anthropic has no model"},
		{"anthropic/claude-opus-9", "claude-opus-5-5"},
		{"gpt-7", `no provider has a model "gpt-7": looked at anthropic`},
		{"claude-opus-5", `model "claude-opus-5" is ambiguous: it is anthropic/claude-opus-5 and local/claude-opus-5`},
		{"opus", "did you mean anthropic/claude-opus-5-5"},
		{"", "empty"},
	}
	for _, tt := range tests {
		_, err := r.Resolve(tt.ref)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Resolve(%q) = %v, want an error containing %q", tt.ref, err, tt.want)
		}
	}
}

func TestKeys(t *testing.T) {
	user, err := models.ParseFile("models.yml", []byte(`
providers:
  literal:
    baseUrl: http://x/v1
    api: openai-completions
    apiKey: sk-literal-key
    models: [{id: a}]
  fromenv:
    baseUrl: http://x/v1
    api: openai-completions
    apiKey: MY_PROXY_KEY
    models: [{id: b}]
  google:
    baseUrl: http://x
    api: google-generative-ai
    apiKey: sk-x
    models: [{id: gemini}]
`))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: user, LookupEnv: env("OPENAI_API_KEY", "sk-o")})
	problems := map[string]string{}
	for _, e := range r.Entries() {
		problems[e.Info.Ref().String()] = e.Problem
	}
	for ref, want := range map[string]string{
		"literal/a":               "",
		"fromenv/b":               "environment variable MY_PROXY_KEY is not set",
		"google/gemini":           "api google-generative-ai is not supported",
		"openai/gpt-6-astra":      "",
		"anthropic/claude-opus-5": "environment variable ANTHROPIC_API_KEY is not set",
	} {
		if got := problems[ref]; !strings.Contains(got, want) || (want == "" && got != "") {
			t.Errorf("%s: problem %q, want %q", ref, got, want)
		}
	}
	m, _ := r.Resolve("fromenv/b")
	if _, err := m.Open(); err == nil || !strings.Contains(err.Error(), "MY_PROXY_KEY") {
		t.Errorf("Open without key = %v, want it to name the variable", err)
	}
}

func TestParseFileErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"unknown key", "providers:\n  x:\n    baseURL: http://a\n", "models.yml:3:5: providers.x.baseURL: unknown key (providers.x takes baseUrl, api, apiKey, "},
		{"unknown model key", "providers:\n  x:\n    models:\n      - id: m\n        window: 5\n", "models.yml:5:9: providers.x.models[0].window: unknown key (providers.x.models[0] takes id, name, "},
		// The decoder alone says "cannot unmarshal string into Go struct
		// field File.Providers of type int".
		{"window not a number", "providers:\n  x:\n    models:\n      - id: m\n        contextWindow: big\n", `models.yml:5:24: providers.x.models[0].contextWindow: want a whole number, got "big"`},
		{"price not a number", "providers:\n  x:\n    models:\n      - id: m\n        cost: {input: cheap}\n", `models.yml:5:23: providers.x.models[0].cost.input: want a number, got "cheap"`},
		{"override not a number", "providers:\n  'a.b':\n    modelOverrides:\n      m:\n        maxTokens: lots\n", `models.yml:5:20: providers.'a.b'.modelOverrides.m.maxTokens: want a whole number, got "lots"`},
		{"reasoning not a boolean", "providers:\n  x:\n    models: [{id: m, reasoning: maybe}]\n", `models.yml:3:33: providers.x.models[0].reasoning: want true or false, got "maybe"`},
		{"headers not a mapping", "providers:\n  x:\n    headers: [a]\n", "models.yml:3:14: providers.x.headers: sequence was used where mapping is expected"},
		{"bad api", "providers:\n  x:\n    api: grpc\n", `models.yml:3:10: providers.x.api: unknown api "grpc"`},
		{"no id", "providers:\n  x:\n    models:\n      - name: m\n", "providers.x.models[0]: model has no id"},
		{"negative window", "providers:\n  x:\n    models:\n      - id: m\n        contextWindow: -1\n", "models.yml:5:24: providers.x.models[0].contextWindow: must be positive"},
		{"bad auth", "providers:\n  x:\n    auth: oauth\n", "models.yml:3:11: providers.x.auth"},
		{"duplicate", "providers:\n  x:\n    models:\n      - id: m\n      - id: m\n", "listed twice"},
		{"syntax", "providers: [\n", "models.yml:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := models.ParseFile("models.yml", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("err = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	if f, err := models.LoadFile(filepath.Join(dir, "missing.yml")); f != nil || err != nil {
		t.Errorf("missing file = %v, %v; want nil, nil", f, err)
	}
	path := filepath.Join(dir, "models.yml")
	if err := os.WriteFile(path, []byte("providers:\n  x:\n    bogus: 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := models.LoadFile(path); err == nil || !strings.HasPrefix(err.Error(), path+":3:") {
		t.Errorf("err = %v, want it to start with %s:3:", err, path)
	}
}

// TestOpenTalksToEachAPI resolves one model per API from a models.yml that
// points at fakellm, opens it and gets a reply.
func TestOpenTalksToEachAPI(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - {api: anthropic, repeat: true, steps: [{text: "from messages"}]}
  - {api: chat, repeat: true, steps: [{text: "from chat"}]}
  - {api: responses, repeat: true, steps: [{text: "from responses"}]}
`))
	user, err := models.ParseFile("models.yml", []byte(`
providers:
  fake-anthropic:
    baseUrl: `+srv.URL()+`
    api: anthropic-messages
    apiKey: FAKE_KEY
    models: [{id: m1, reasoning: true, maxTokens: 1000}]
  fake-openai:
    baseUrl: `+srv.URL()+`/v1
    apiKey: FAKE_KEY
    authHeader: true
    api: openai-completions
    models:
      - {id: m2}
      - {id: m3, api: openai-responses}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: user, LookupEnv: env("FAKE_KEY", "secret-value")})
	for ref, want := range map[string]string{
		"fake-anthropic/m1:low": "from messages",
		"fake-openai/m2":        "from chat",
		"fake-openai/m3":        "from responses",
	} {
		res, err := r.Resolve(ref)
		if err != nil {
			t.Fatal(err)
		}
		m, err := res.Open()
		if err != nil {
			t.Fatalf("Open(%s): %v", ref, err)
		}
		resp, err := llm.Accumulate(m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if got := resp.Message.Text(); got != want {
			t.Errorf("%s replied %q, want %q", ref, got, want)
		}
	}
	for _, req := range srv.Requests() {
		if req.Status != 200 {
			t.Errorf("%s %s: status %d", req.API, req.Path, req.Status)
		}
	}
}

func TestOpenRetries(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - steps:
      - fault: {status: 500, message: boom}
      - text: recovered
`))
	user, err := models.ParseFile("models.yml", []byte("providers:\n  f:\n    baseUrl: "+srv.URL()+"\n    api: anthropic-messages\n    auth: none\n    models: [{id: m}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: user, Retry: llm.RetryPolicy{MaxAttempts: 2}})
	res, _ := r.Resolve("f/m")
	m, err := res.Open()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := llm.Accumulate(m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	if err != nil || resp.Message.Text() != "recovered" {
		t.Fatalf("got %q, %v; want the retry to recover", resp.Message.Text(), err)
	}
	var e *llm.Error
	if errors.As(err, &e) {
		t.Errorf("unexpected error %v", e)
	}
}

func TestProviderAPIOverrideReachesBuiltInModels(t *testing.T) {
	user, err := models.ParseFile("models.yml", []byte("providers:\n  openai:\n    baseUrl: http://gateway/v1\n    api: openai-completions\n"))
	if err != nil {
		t.Fatal(err)
	}
	r := models.New(models.Options{User: user})
	m, err := r.Resolve("openai/gpt-6-astra")
	if err != nil {
		t.Fatal(err)
	}
	if m.Info.API != llm.APIOpenAICompletions {
		t.Errorf("api = %s, want the provider's override openai-completions", m.Info.API)
	}
	if m, _ := r.Resolve("anthropic/claude-opus-5"); m.Info.API != llm.APIAnthropicMessages {
		t.Errorf("untouched provider's api = %s", m.Info.API)
	}
}
