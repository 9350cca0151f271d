package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/cli"
	"github.com/vigil-dev/vigil/internal/fakellm"
)

func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = cli.Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

// isolate points the agent folder at an empty temporary one and clears the
// provider keys, so the user's own setup never leaks into a test.
func isolate(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("VIGIL_AGENT_DIR", dir)
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	return dir
}

func TestVersionAndHelp(t *testing.T) {
	out, _, err := run(t, "--version")
	if err != nil || strings.TrimSpace(out) == "" {
		t.Errorf("--version = %q, %v", out, err)
	}
	out, _, err = run(t, "--help")
	if err != nil {
		t.Fatalf("--help: %v", err)
	}
	for _, want := range []string{"Usage: vigil", "models", "ask", "demo"} {
		if !strings.Contains(out, want) {
			t.Errorf("--help lacks %q:\n%s", want, out)
		}
	}
	if _, _, err := run(t, "frobnicate"); err == nil {
		t.Error("unknown command: no error")
	}
}

func TestModelsListsCatalogAndProblems(t *testing.T) {
	isolate(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-test")
	out, _, err := run(t, "models")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out, "\n")
	var sonnet, gpt string
	for _, l := range lines {
		if strings.HasPrefix(l, "anthropic/claude-sonnet-5-5 ") {
			sonnet = l
		}
		if strings.HasPrefix(l, "openai/gpt-6-astra ") {
			gpt = l
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(sonnet), "ready") {
		t.Errorf("sonnet line = %q, want ready with ANTHROPIC_API_KEY set", sonnet)
	}
	if !strings.Contains(gpt, "OPENAI_API_KEY is not set") {
		t.Errorf("gpt line = %q, want the missing key named", gpt)
	}
	out, _, err = run(t, "models", "--available", "--json")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m struct {
			Ref   string
			Ready bool
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %q: %v", l, err)
		}
		if !m.Ready || !strings.HasPrefix(m.Ref, "anthropic/") {
			t.Errorf("--available listed %+v", m)
		}
	}
}

func TestModelsReportsBadFile(t *testing.T) {
	dir := isolate(t)
	path := filepath.Join(dir, "models.yml")
	if err := os.WriteFile(path, []byte("providers:\n  local:\n    baseUrl: http://x\n    api: openai-chat\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := run(t, "models")
	if err == nil || !strings.Contains(err.Error(), path+":4:10: providers.local.api: unknown api") {
		t.Errorf("err = %v, want file, line and key", err)
	}
}

func TestAskStreamsReply(t *testing.T) {
	dir := isolate(t)
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - model: local-model
    steps:
      - {thinking: "pondering", text: "Hello, streamed.", chunk: 3}
`))
	yml := "providers:\n  local:\n    baseUrl: " + srv.URL() + "/v1\n    api: openai-completions\n    auth: none\n    models:\n      - {id: local-model, cost: {input: 1, output: 2}}\n"
	if err := os.WriteFile(filepath.Join(dir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, err := run(t, "ask", "-m", "local/local-model", "say", "hello")
	if err != nil {
		t.Fatal(err)
	}
	if out != "Hello, streamed.\n" {
		t.Errorf("stdout = %q", out)
	}
	if !strings.Contains(errOut, "thinking: pondering") || !strings.Contains(errOut, "local/local-model · ") || !strings.Contains(errOut, "$0.0000") {
		t.Errorf("stderr = %q, want thinking, usage and cost", errOut)
	}
	if body := string(srv.Requests()[0].Body); !strings.Contains(body, "say hello") {
		t.Errorf("request lacks the prompt: %s", body)
	}
	if _, _, err := run(t, "ask", "-m", "local/other", "x"); err == nil || !strings.Contains(err.Error(), "its models are local-model") {
		t.Errorf("unknown model err = %v", err)
	}
}

func TestDemo(t *testing.T) {
	isolate(t)
	out, _, err := run(t, "demo", "--wire")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== anthropic-messages", "== openai-completions", "== openai-responses", "tool read", "cache read", "go.mod declares the module example.com/demo"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "go.mod declares the module"); n != 3 {
		t.Errorf("demo finished %d conversations, want 3", n)
	}
}
