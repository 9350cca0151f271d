package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestRPCPeriodicAdvisorSteersRepeatedFailure is issue 7's end-to-end
// test, in RPC mode: with advisor.mode periodic and everyToolCalls 3 (and
// no advisor model: the review runs on the agent's), the agent runs a
// failing check three times; the review forks after the third result,
// replies CORRECTION, and the correction is in the agent's very next
// request, in the same message as that result. The run goes on, in its
// one turn, and /advisor status says what happened.
func TestRPCPeriodicAdvisorSteersRepeatedFailure(t *testing.T) {
	const correction = "CORRECTION-read-check-yml: the key timout is misspelt; stop rerunning the check."
	const check = `echo 'check: unknown key timout in check.yml'; exit 1`
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
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "echo fixed"}}]
      - text: "READY"
`)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  mode: periodic\n  periodic:\n    everyToolCalls: 3\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}

	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "poll the check until it passes"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "READY")
	})
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := fmt.Sprint(p.waitFor("/advisor status reply", func(m map[string]any) bool { return m["id"] == "st" }))
	for _, want := range []string{"periodic mode", "fake/m", "every 3 tool calls", "Reviews: 1 (1 steered", "Last: steered"} {
		if !strings.Contains(st, want) {
			t.Errorf("/advisor status lacks %q: %s", want, st)
		}
	}
	file := p.sessionFile()
	p.finish()

	var primary, forks []string
	for _, r := range srv.Requests() {
		if body := string(r.Body); strings.Contains(body, "### Advisor review") {
			forks = append(forks, body)
		} else {
			primary = append(primary, body)
		}
	}
	if len(forks) != 1 || strings.Count(forks[0], `"tool_use_id"`) != 3 {
		t.Fatalf("%d forks, want one holding the three results", len(forks))
	}
	if len(primary) != 5 {
		t.Fatalf("%d agent requests, want 5", len(primary))
	}
	if strings.Contains(primary[2], correction) {
		t.Error("the correction is in the request before the review")
	}
	// Right after the third result: both in the request's last message,
	// the result first.
	last := lastMessage(t, primary[3])
	if r, c := strings.Index(last, "unknown key timout"), strings.Index(last, correction); r < 0 || c < r {
		t.Errorf("the fourth request's last message does not hold the third result then the correction:\n%s", last)
	}
	turns := 0
	for _, m := range p.seen {
		if m["type"] == "turn_start" {
			turns++
		}
	}
	if turns != 1 {
		t.Errorf("%d turns, want 1: the correction joins the run", turns)
	}

	var steers int
	for _, e := range checkTree(t, file) {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor" {
			steers++
			if string(c.Details) != `{"delivery":"steer","source":"advisor:periodic"}` {
				t.Errorf("the correction's entry says %s", c.Details)
			}
		}
	}
	if steers != 1 {
		t.Errorf("%d advisor entries in the session, want 1", steers)
	}
	// The fork's exchange is in the advisor's transcript, not the agent's.
	kinds := map[string]int{}
	for _, e := range checkTree(t, filepath.Join(strings.TrimSuffix(file, ".jsonl"), session.AdvisorTranscript)) {
		switch b := e.Body.(type) {
		case *session.Custom:
			kinds[b.CustomType]++
		case *session.Message:
			kinds[string(b.Message.Role)]++
		}
	}
	if kinds["advisor_review"] != 1 || kinds["assistant"] != 1 || kinds["user"] != 0 {
		t.Errorf("advisor transcript entries %v, want one review and its reply", kinds)
	}
}

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
