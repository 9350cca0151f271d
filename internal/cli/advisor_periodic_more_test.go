package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeConfig writes the project's .vigil/config.yml.
func writeConfig(t *testing.T, work, cfg string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestRPCPeriodicReviewsAResumedRun is issue 17 item 3: a run the user
// starts with the RPC resume command is the user's work, so its tool
// calls count and, after everyToolCalls of them, its review forks and the
// correction reaches the resumed run's next request.
func TestRPCPeriodicReviewsAResumedRun(t *testing.T) {
	const correction = "CORRECTION-resumed-run: read the log first."
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: review
    model: m
    match: ["### Advisor review"]
    steps:
      - text: "CORRECTION\n`+correction+`"
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo polling"}}]
      - text: "RESUMED-done"
`)
	writeConfig(t, work, "advisor:\n  enabled: true\n  mode: periodic\n  periodic:\n    everyToolCalls: 1\n")
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "resume", "id": "1", "message": "go on polling"})
	p.waitFor("resume accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "RESUMED-done")
	})
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := fmt.Sprint(p.waitFor("/advisor status reply", func(m map[string]any) bool { return m["id"] == "st" }))
	p.finish()

	var primary []string
	forks := 0
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "### Advisor review") {
			forks++
		} else {
			primary = append(primary, string(r.Body))
		}
	}
	if forks != 1 || len(primary) != 2 {
		t.Fatalf("%d forks and %d agent requests, want 1 and 2", forks, len(primary))
	}
	if !strings.Contains(primary[1], correction) {
		t.Error("the correction is not in the resumed run's next request")
	}
	if !strings.Contains(st, "Reviews: 1 (1 steered") {
		t.Errorf("/advisor status: %s", st)
	}
}

// TestRPCPeriodicSubagentAdvisor is issue 17 item 3: with advisor.mode
// periodic and advisor.subagents true, a task subagent gets a periodic
// advisor of its own: after its first tool call its review forks its own
// conversation (not the parent's), and the correction reaches the
// subagent's next request; the exchange is in the subagent's advisor
// transcript. The parent's review counts the task call once.
func TestRPCPeriodicSubagentAdvisor(t *testing.T) {
	const correction = "SUB-CORRECTION: check the output before you answer."
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: parent-review
    model: m
    match: ["### Advisor review", "delegate it"]
    repeat: true
    steps:
      - text: NO_CHANGE
  - name: sub-review
    model: m
    match: ["### Advisor review"]
    steps:
      - text: "CORRECTION\n`+correction+`"
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: task, arguments: {prompt: "SUB-TASK: list the folder", description: "look"}}]
      - tool_calls: [{name: bash, arguments: {command: "echo SUB-OUTPUT"}}]
      - text: "SUB-DONE"
      - text: "MAIN-DONE"
`)
	writeConfig(t, work, "advisor:\n  enabled: true\n  subagents: true\n  mode: periodic\n  periodic:\n    everyToolCalls: 1\n")
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "delegate it"})
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "MAIN-DONE")
	})
	p.waitFor("idle", isType("idle"))
	file := p.sessionFile()
	p.finish()

	var subForks, parentForks int
	var primary []string
	for _, r := range srv.Requests() {
		switch body := string(r.Body); {
		case r.Rule == "sub-review":
			subForks++
			if !strings.Contains(body, "SUB-OUTPUT") {
				t.Errorf("the subagent's fork lacks its tool result:\n%.2000s", body)
			}
		case r.Rule == "parent-review":
			parentForks++
		default:
			primary = append(primary, body)
		}
	}
	if subForks != 1 || parentForks != 1 {
		t.Fatalf("%d subagent and %d parent forks, want 1 each", subForks, parentForks)
	}
	if len(primary) != 4 {
		t.Fatalf("%d agent requests, want 4", len(primary))
	}
	// Request 3 is the subagent's after its call: the correction is there.
	if !strings.Contains(primary[2], correction) || !strings.Contains(primary[2], "SUB-TASK") {
		t.Errorf("the subagent's next request lacks the correction:\n%.2000s", primary[2])
	}
	if strings.Contains(primary[3], correction) {
		t.Error("the subagent's correction reached the parent")
	}
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(file, ".jsonl"), "task-*", "__advisor.jsonl"))
	if len(subs) != 1 {
		t.Fatalf("subagent advisor transcripts: %v, want one", subs)
	}
	data, err := os.ReadFile(subs[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "advisor_review") || !strings.Contains(string(data), correction) {
		t.Errorf("the subagent's advisor transcript lacks its review:\n%.1500s", data)
	}
}
