package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRPCAdvisorRulesReviewer runs the advisor with advisor.reviewer
// rules: no advisor model at all, and the detectors' note about a command
// that keeps failing the same way reaches the primary within the run.
func TestRPCAdvisorRulesReviewer(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - text: "FINAL: the folder is missing."
  - name: after-advice
    model: m
    repeat: true
    steps:
      - text: "ACK"
`)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  reviewer: rules\n  syncBacklog: \"1\"\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "list the folder"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := p.waitFor("status", func(m map[string]any) bool { return m["id"] == "st" })
	if !strings.Contains(strings.Join([]string{st["data"].(string)}, ""), "rules: zero-token detectors") {
		t.Errorf("/advisor status = %v", st)
	}
	p.finish()

	landed := -1
	n := 0
	for _, r := range srv.Requests() {
		if r.Model != "m" {
			t.Errorf("a request to model %q: the rules reviewer must call no model", r.Model)
			continue
		}
		n++
		if landed < 0 && strings.Contains(string(r.Body), "advisory") {
			landed = n
		}
	}
	if landed < 0 {
		t.Fatalf("no primary request of %d carries the detectors' advisory", n)
	}
	if landed > 4 {
		t.Errorf("the advisory first lands in request %d, want within the run of repeated failures", landed)
	}
}
