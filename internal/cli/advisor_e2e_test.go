package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestRPCAdvisorAdviceReachesPrimary runs vigil with the advisor on: the
// primary runs `false` again and again; the advisor's first review sends
// an interrupting note, which must reach the primary's context within the
// same run and be recorded in the session.
func TestRPCAdvisorAdviceReachesPrimary(t *testing.T) {
	const advice = "ADVICE-stop-running-false"
	srv, agentDir, work := fakeSetup(t, advisorScript("cat gate", advice))
	addAdvisorModel(t, agentDir)

	// The second step blocks on a FIFO nobody opens: only the advisor's
	// concern, an interrupting steer, ends it. So the advice must reach the
	// primary within the run, with no timing assumption.
	if err := exec.Command("mkfifo", filepath.Join(work, "gate")).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	p := startVigil(t, agentDir, work, "--advisor", "--advisor-model", "fake/adv")
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "run false until it works"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "FINAL-answer")
	})
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := p.waitFor("/advisor status reply", func(m map[string]any) bool { return m["id"] == "st" })
	if !strings.Contains(fmt.Sprint(st), "Advisor is enabled (fake/adv)") {
		t.Errorf("/advisor status = %v, want the advisor on", st)
	}
	file := p.sessionFile()
	p.finish()

	var primary []string
	advisorCalls := 0
	for _, r := range srv.Requests() {
		switch r.Model {
		case "m":
			primary = append(primary, string(r.Body))
		case "adv":
			advisorCalls++
		}
	}
	if advisorCalls == 0 {
		t.Fatal("the advisor model was never called")
	}
	landed := -1
	for i, body := range primary {
		if strings.Contains(body, advice) {
			landed = i
			break
		}
	}
	switch {
	case landed < 0:
		t.Fatalf("no primary request (of %d) carries the advice", len(primary))
	case landed == 0:
		t.Errorf("the advice is in the first primary request, before any step was reviewed")
	case landed >= len(primary)-1:
		t.Errorf("the advice first lands in primary request %d of %d, want before the final one", landed+1, len(primary))
	}

	found := false
	for _, e := range checkTree(t, file) {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor" {
			for _, b := range c.Content {
				if strings.Contains(b.Text, advice) {
					found = true
				}
			}
		}
	}
	if !found {
		t.Errorf("the session file has no advisor entry holding %q", advice)
	}
}

// addAdvisorModel adds a second model, adv, for the advisor, on the same
// provider as the primary's.
func addAdvisorModel(t *testing.T, agentDir string) {
	t.Helper()
	yml := filepath.Join(agentDir, "models.yml")
	data, err := os.ReadFile(yml)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "      - {id: m,", "      - {id: adv, contextWindow: 200000, maxTokens: 4096}\n      - {id: m,", 1))
	if err := os.WriteFile(yml, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// advisorScript scripts a primary (model m) that runs bash `false`, then
// second, then `false` and answers, and an advisor (model adv) whose first
// review raises advice as a concern.
func advisorScript(second, advice string) string {
	return `
rules:
  - name: primary
    model: m
    repeat: true
    steps:
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "` + second + `"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - text: "FINAL-answer: false keeps failing."
  - name: advisor
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "` + advice + `", severity: concern}}]
      - text: "Nothing more to add."
`
}
