package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRPCAdvisorRoster runs vigil's agent with two advisors declared in
// WATCHDOG.yml, each on its own model: both review the same steps, the
// agent gets at most one note per step from the two (maxNotesPerUpdate
// 1), each note names its advisor, each advisor's prompt holds the shared
// instructions before its own and only the tools it may have, each has its
// own transcript, and /advisor status lists both. Each advisor repeats its
// note at every review: whichever the cap held back at step 1 lands after
// step 2, in either order.
func TestRPCAdvisorRoster(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - text: "FINAL-answer"
  - name: tests
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-tests: false always fails; read the test first.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-tests: false always fails; read the test first.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-tests: false always fails; read the test first.", severity: nit}}]
      - text: "Nothing more."
  - name: scope
    model: adv2
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-scope: the task never asked for false.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-scope: the task never asked for false.", severity: nit}}]
      - text: "Nothing more."
      - tool_calls: [{name: advise, arguments: {note: "NOTE-scope: the task never asked for false.", severity: nit}}]
      - text: "Nothing more."
`)
	addModels(t, agentDir, "adv", "adv2")
	write(t, filepath.Join(work, ".vigil", "config.yml"), "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n")
	write(t, filepath.Join(work, ".vigil", "WATCHDOG.yml"), `
instructions: SHARED-INSTR for every advisor.
maxNotesPerUpdate: 1
advisors:
  - name: tests
    model: fake/adv
    instructions: OWN-TESTS only.
  - name: scope
    model: fake/adv2
    instructions: OWN-SCOPE only.
    tools: [read, bash]
  - name: broken
    model: fake/none
`)

	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "make false pass"})
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "FINAL-answer")
	})
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := fmt.Sprint(p.waitFor("/advisor status", func(m map[string]any) bool { return m["id"] == "st" }))
	file := p.sessionFile()
	p.finish()
	stderr := p.stderr.String()

	for _, w := range []string{"- tests: running", "on fake/adv;", "- scope: running", "on fake/adv2;", "- broken: not running, no model", "Spend side by side: the agent $0.0000 (fake/m), the advisor $0.0000"} {
		if !strings.Contains(st, w) {
			t.Errorf("/advisor status lacks %q: %s", w, st)
		}
	}
	if !strings.Contains(stderr, "advisor scope asks for bash: vigil's advisors never write or execute") || !strings.Contains(stderr, "advisor broken") {
		t.Errorf("stderr lacks the roster's warnings:\n%s", stderr)
	}

	var primary []string
	systems := map[string]string{}
	for _, r := range srv.Requests() {
		body := string(r.Body)
		switch r.Model {
		case "m":
			primary = append(primary, body)
		case "adv", "adv2":
			if systems[r.Model] == "" {
				systems[r.Model] = body
			}
		}
	}
	if len(primary) != 4 {
		t.Fatalf("%d primary requests, want 4", len(primary))
	}
	count := func(body string) int {
		return strings.Count(body, "NOTE-tests") + strings.Count(body, "NOTE-scope")
	}
	// Request 2 follows step 1, which both advisors reviewed: one note.
	if n := count(primary[1]); n != 1 {
		t.Errorf("the request after step 1 carries %d notes, want 1 (maxNotesPerUpdate)", n)
	}
	last := primary[3]
	if !strings.Contains(last, `advisor=\"tests\"`) || !strings.Contains(last, `advisor=\"scope\"`) {
		t.Errorf("the final request lacks a note of each advisor, named:\n%s", last)
	}
	for model, own := range map[string]string{"adv": "OWN-TESTS", "adv2": "OWN-SCOPE"} {
		body := systems[model]
		i, j := strings.Index(body, "SHARED-INSTR"), strings.Index(body, own)
		if i < 0 || j < i {
			t.Errorf("%s's prompt: shared at %d, own at %d, want shared first", model, i, j)
		}
	}
	if strings.Contains(systems["adv2"], `"name":"bash"`) || !strings.Contains(systems["adv2"], `"name":"read"`) || strings.Contains(systems["adv2"], `"name":"grep"`) {
		t.Errorf("scope's tools are not read alone")
	}
	dir := strings.TrimSuffix(file, ".jsonl")
	for _, name := range []string{"__advisor-tests.jsonl", "__advisor-scope.jsonl"} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("transcript %s: %v", name, err)
		}
	}
}
