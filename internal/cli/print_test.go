package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
)

// TestPrintFlagThenMode: -p is a flag and the prompt an argument, so the
// way claude and omp are called (-p, then other flags, then the prompt)
// works.
func TestPrintFlagThenMode(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - text: "ANSWER-json-mode"
`)
	out, err := vigilCommand(agentDir, work, "-p", "--mode", "json", "-m", "fake/m", "say", "hello").Output()
	if err != nil {
		t.Fatalf("vigil: %v\n%s", err, out)
	}
	ends := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		if m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "ANSWER-json-mode") {
			ends++
		}
	}
	if ends != 1 {
		t.Errorf("%d message_end events carry the answer, want 1:\n%s", ends, out)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "say hello") {
		t.Errorf("the model was not sent the words joined, %q", requestBodies(srv.Requests()))
	}
}

// TestPrintPromptFromStdin: echo task | vigil -p.
func TestPrintPromptFromStdin(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - match: ["PIPED-TASK line two"]
    steps:
      - text: "ANSWER-from-stdin"
`)
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "-p")
	cmd.Stdin = strings.NewReader("PIPED-TASK line one\nPIPED-TASK line two\n")
	out, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ANSWER-from-stdin" {
		t.Fatalf("vigil = %q, %v; requests %q", out, err, requestBodies(srv.Requests()))
	}
}

// TestPrintPromptErrors: each way of giving no usable prompt is an error
// that says what to do, before any model is called.
func TestPrintPromptErrors(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, "rules:\n  - steps:\n      - text: never\n")
	for _, tc := range []struct {
		name, stdin string
		args        []string
		want        string
	}{
		{"no prompt, nothing piped", "", []string{"-p"}, "no prompt: pass it as an argument"},
		{"empty stdin", "\n\n", []string{"-p"}, "stdin was empty"},
		{"binary stdin", "\xff\xfe\x00", []string{"-p"}, "not UTF-8"},
		{"no -p, no terminal", "", []string{"fix", "it"}, `terminal UI needs a terminal (stdin and stdout are not one): run the prompt with vigil -p "fix it"`},
		{"no arguments, no terminal", "", nil, "terminal UI needs a terminal (stdin and stdout are not one): pass -p PROMPT"},
		{"bare --resume outside the UI", "", []string{"-p", "hi", "--resume"}, "--resume needs a session id outside the terminal UI"},
		{"rpc with a prompt", "", []string{"--mode", "rpc", "hi"}, "--mode rpc takes its prompts as commands"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := vigilCommand(agentDir, work, append([]string{"-m", "fake/m"}, tc.args...)...)
			if tc.stdin != "" {
				cmd.Stdin = strings.NewReader(tc.stdin)
			}
			out, err := cmd.CombinedOutput()
			if err == nil || !strings.Contains(string(out), tc.want) {
				t.Errorf("vigil = %q, %v; want an error saying %q", out, err, tc.want)
			}
		})
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d model requests, want none", n)
	}
}

// TestPrintPicksModelFromKey: with no model configured, vigil runs the
// default model of the first provider whose key is set, and says so.
func TestPrintPicksModelFromKey(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - model: claude-sonnet-5-5
    steps:
      - text: "ANSWER-from-default-model"
`)
	// The built-in anthropic provider, pointed at the fake server.
	yml := fmt.Sprintf("providers:\n  anthropic:\n    baseUrl: %s\n", srv.URL())
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, "-p", "hi")
	cmd.Env = append(cmd.Env, "ANTHROPIC_API_KEY=sk-ant-test-key-0123456789", "OPENAI_API_KEY=")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "ANSWER-from-default-model" {
		t.Fatalf("vigil = %q, %v\n%s", out, err, stderr.String())
	}
	for _, want := range []string{"using anthropic/claude-sonnet-5-5 (ANTHROPIC_API_KEY is set", "--model provider/model", "modelRoles.default"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

func requestBodies(reqs []fakellm.Request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = string(r.Body)
	}
	return out
}
