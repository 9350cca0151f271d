package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRPCSubagentAdvisor: with advisor.subagents, a task subagent gets an
// advisor of its own, whose transcript lives in the subagent's artifacts
// folder and holds the subagent's steps, not the parent's.
func TestRPCSubagentAdvisor(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - model: m
    steps:
      - tool_calls: [{name: task, arguments: {prompt: "SUB-TASK: list the folder", description: "look"}}]
      - tool_calls: [{name: bash, arguments: {command: "echo SUB-OUTPUT"}}]
      - text: "SUB-DONE"
      - text: "MAIN-DONE"
  - model: adv
    repeat: true
    steps:
      - text: "Nothing to add."
`)
	addAdvisorModel(t, agentDir)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  subagents: true\n  syncBacklog: \"1\"\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startVigil(t, agentDir, work, "--advisor-model", "fake/adv")
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "delegate it"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("idle", isType("idle"))
	file := p.sessionFile()
	p.finish()

	artifacts := strings.TrimSuffix(file, ".jsonl")
	subs, _ := filepath.Glob(filepath.Join(artifacts, "task-*", "__advisor.jsonl"))
	if len(subs) != 1 {
		t.Fatalf("subagent advisor transcripts: %v, want one", subs)
	}
	sub, _ := os.ReadFile(subs[0])
	if !strings.Contains(string(sub), "SUB-OUTPUT") || strings.Contains(string(sub), "MAIN-DONE") {
		t.Errorf("the subagent's advisor saw the wrong steps:\n%.800s", sub)
	}
	main, err := os.ReadFile(filepath.Join(artifacts, "__advisor.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(main), "SUB-OUTPUT") {
		t.Error("the main advisor was shown the subagent's own steps")
	}
}
