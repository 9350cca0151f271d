package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRPCAdvisorToggle turns the advisor on in the middle of a session:
// it must persist the setting, start at the current end (the earlier
// prompt is not replayed), review the next step, dump its transcript, and
// turn off again.
func TestRPCAdvisorToggle(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    repeat: true
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo hi $VIGIL_TEST_SERVICE_TOKEN"}}]
      - text: "done"
  - name: advisor
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "Check the output of echo before moving on.", severity: nit}}]
      - text: "One note sent."
`)
	addAdvisorModel(t, agentDir)
	// A secret in the environment, which the primary prints: the advisor
	// must never see it.
	const secret = "tok-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
	t.Setenv("VIGIL_TEST_SERVICE_TOKEN", secret)
	// A project setting makes the primary wait for each review, so the
	// advisor is done when the run is.
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte("advisor:\n  syncBacklog: \"1\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	userCfg := filepath.Join(agentDir, "config.yml")
	if err := os.WriteFile(userCfg, []byte("# my settings\nmodelRoles:\n  advisor: fake/adv\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startVigil(t, agentDir, work)
	cmd := func(id, line string) string {
		p.send(map[string]any{"type": "prompt", "id": id, "message": line})
		return fmt.Sprint(p.waitFor(line, func(m map[string]any) bool { return m["id"] == id }))
	}
	run := func(id, prompt string) {
		p.send(map[string]any{"type": "prompt", "id": id, "message": prompt})
		p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == id && m["success"] == true })
		p.waitFor("idle", isType("idle"))
	}

	if got := cmd("s1", "/advisor status"); !strings.Contains(got, "Advisor is disabled.") {
		t.Errorf("status before = %s", got)
	}
	run("p1", "OLD-PROMPT before the advisor")
	if got := cmd("on", "/advisor on"); !strings.Contains(got, "Advisor enabled.") {
		t.Fatalf("/advisor on = %s", got)
	}
	if data, _ := os.ReadFile(userCfg); !strings.Contains(string(data), "enabled: true") || !strings.Contains(string(data), "# my settings") {
		t.Errorf("user settings after /advisor on:\n%s", data)
	}
	run("p2", "NEW-PROMPT with the advisor")
	if got := cmd("s2", "/advisor status"); !strings.Contains(got, "Advisor is enabled (fake/adv). Context:") || !strings.Contains(got, "Reviews: 2") {
		t.Errorf("status after a review = %s", got)
	}
	if got := cmd("d1", "/advisor dump"); !strings.Contains(got, "## user") || !strings.Contains(got, "Check the output of echo") || strings.Contains(got, "System Prompt") {
		t.Errorf("/advisor dump = %s", got)
	}
	if got := cmd("d2", "/advisor dump raw"); !strings.Contains(got, "## System Prompt") || !strings.Contains(got, "## Available Tools") {
		t.Errorf("/advisor dump raw = %s", got)
	}
	if got := cmd("off", "/advisor"); !strings.Contains(got, "Advisor disabled.") {
		t.Errorf("/advisor toggle = %s", got)
	}
	if data, _ := os.ReadFile(userCfg); !strings.Contains(string(data), "enabled: false") {
		t.Errorf("user settings after toggling off:\n%s", data)
	}
	if got := cmd("d3", "/advisor dump"); !strings.Contains(got, "not active") {
		t.Errorf("/advisor dump when off = %s", got)
	}
	file := p.sessionFile()
	p.finish()

	// The advisor's turns are in the session's advisor transcript.
	advPath := filepath.Join(strings.TrimSuffix(file, ".jsonl"), "__advisor.jsonl")
	if data, err := os.ReadFile(advPath); err != nil || !strings.Contains(string(data), "advisor_update") || !strings.Contains(string(data), "Check the output of echo") {
		t.Errorf("advisor transcript %s: %v\n%.600s", advPath, err, data)
	}

	var adv []string
	for _, r := range srv.Requests() {
		if r.Model == "adv" {
			adv = append(adv, string(r.Body))
		}
	}
	if len(adv) == 0 {
		t.Fatal("the advisor was never called")
	}
	for _, body := range adv {
		if strings.Contains(body, secret) {
			t.Errorf("an environment secret reached the advisor")
		}
	}
	if !strings.Contains(adv[0], "REDACTED") {
		t.Errorf("the advisor's update shows no redaction marker: %.600s", adv[0])
	}
	if !strings.Contains(adv[0], "NEW-PROMPT") || strings.Contains(adv[0], "OLD-PROMPT") {
		t.Errorf("the advisor enabled mid-session was shown history from before it: %.400s", adv[0])
	}
}
