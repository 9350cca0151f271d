package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lastMessage returns the text of a request body's last message, its
// blocks in order.
func lastMessage(t *testing.T, body string) string {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("request body: %v", err)
	}
	return string(req.Messages[len(req.Messages)-1])
}

// TestRPCPeriodicInstructionsApplyWithoutRestart: an edit of
// advisor.periodic.reviewInstructions reaches the next review of the
// running vigil, in place of the default guidance only.
func TestRPCPeriodicInstructionsApplyWithoutRestart(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: review
    model: m
    match: ["### Advisor review"]
    repeat: true
    steps:
      - text: NO_CHANGE
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo one"}}]
      - text: "FIRST-done"
      - tool_calls: [{name: bash, arguments: {command: "echo two"}}]
      - text: "SECOND-done"
`)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfgFile := filepath.Join(work, ".vigil", "config.yml")
	cfg := "advisor:\n  enabled: true\n  mode: periodic\n  periodic:\n    everyToolCalls: 1\n"
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startVigil(t, agentDir, work)
	for i, answer := range []string{"FIRST-done", "SECOND-done"} {
		if i == 1 {
			custom := cfg + "    reviewInstructions: \"  CUSTOM-GUIDANCE: flag any edit under vendor/.  \"\n"
			if err := os.WriteFile(cfgFile, []byte(custom), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		p.send(map[string]any{"type": "prompt", "message": "echo"})
		p.waitFor(answer, func(m map[string]any) bool {
			return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), answer)
		})
		p.waitFor("idle", isType("idle"))
	}
	p.finish()
	var forks []string
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "### Advisor review") {
			forks = append(forks, lastMessage(t, string(r.Body)))
		}
	}
	const defaultStart = "Decide whether the work is on course"
	if len(forks) != 2 {
		t.Fatalf("%d forks, want 2", len(forks))
	}
	if !strings.Contains(forks[0], defaultStart) || strings.Contains(forks[0], "CUSTOM-GUIDANCE") {
		t.Errorf("the first review does not follow the default guidance:\n%s", forks[0])
	}
	if !strings.Contains(forks[1], `CUSTOM-GUIDANCE: flag any edit under vendor/.\n\nReply in exactly`) || strings.Contains(forks[1], defaultStart) ||
		!strings.Contains(forks[1], "Tools are disabled") {
		t.Errorf("the second review does not follow the edited guidance alone:\n%s", forks[1])
	}
}
