package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/tools"
)

// TestAdvisorConsultTool: with the advisor on, the app offers ask_advisor,
// which asks the advisor running now with the consult settings
// (advisor.consult.maxPerRun here), counted in /advisor status; with the
// advisor turned off it answers at once that the advisor is unavailable;
// a rules-only advisor, and one whose notes are withheld
// (advisor.allowPromptInjection: false), offer no tool.
func TestAdvisorConsultTool(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - model: adv
    steps:
      - text: "Staging first: the <prod> backup is old."
`))
	root := t.TempDir()
	agentDir, work := filepath.Join(root, "agent"), filepath.Join(root, "work")
	for _, d := range []string{agentDir, filepath.Join(work, ".git"), filepath.Join(work, ".vigil")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	yml := fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: m, contextWindow: 200000, maxTokens: 4096}\n      - {id: adv, contextWindow: 200000, maxTokens: 4096}\n", srv.URL())
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Trust(agentDir, work, false); err != nil { // its settings turn the advisor on
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  consult: {maxPerRun: 1, timeoutSeconds: 30}\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(work)
	var stderr strings.Builder
	e := &env{ctx: t.Context(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: &stderr, lookupEnv: func(k string) (string, bool) {
		if k == "VIGIL_AGENT_DIR" {
			return agentDir, true
		}
		return "", false
	}}
	a, err := newApp(e, appOptions{model: "fake/m", advModel: "fake/adv"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.close()
	set := a.advisorTools()
	if len(set) != 1 || set[0].Definition().Name != advisor.AskToolName {
		t.Fatalf("advisor tools %v, want ask_advisor", set)
	}
	ask := func() tools.Result {
		return tools.Invoke(t.Context(), set, tools.Call{Name: advisor.AskToolName, Arguments: json.RawMessage(`{"question": "Prod or staging?"}`)})
	}
	if res := ask(); res.IsError || res.Text() != "Staging first: the &lt;prod&gt; backup is old." {
		t.Errorf("first question: %+v", res)
	}
	if reqs := srv.Requests(); len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "Prod or staging?") {
		t.Errorf("advisor requests %d, want one with the question", len(reqs))
	}
	if res := ask(); !res.IsError || !strings.Contains(res.Text(), "maxPerRun is 1") {
		t.Errorf("second question of the run: %+v", res)
	}
	if st := a.AdvisorStatus(); !strings.Contains(st, "Consults (the agent's questions): 1 answered, 0 failed, 1 refused") {
		t.Errorf("/advisor status %q", st)
	}
	if _, err := a.SetAdvisor(false); err != nil {
		t.Fatal(err)
	}
	if res := ask(); !res.IsError || !strings.Contains(res.Text(), "unavailable") {
		t.Errorf("with the advisor off: %+v", res)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d advisor requests, want still 1", len(srv.Requests()))
	}
	if set := a.advisorTools(); len(set) != 0 {
		t.Errorf("with the advisor off an agent built now is offered %v, want no tool", set)
	}
	a.advFlagRef = "rules"
	a.advOn = true
	if set := a.advisorTools(); len(set) != 0 {
		t.Errorf("a rules-only advisor offers %v", set)
	}
	a.advFlagRef = "fake/adv"
	if set := a.advisorTools(); len(set) != 1 {
		t.Fatalf("the model advisor back on offers %v", set)
	}
	a.settings.Advisor.AllowPromptInjection = false
	if set := a.advisorTools(); len(set) != 0 {
		t.Errorf("an advisor whose words are withheld offers %v", set)
	}
}
