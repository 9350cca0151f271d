package cli_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestRPCAdvisorRoster runs vigil's agent with two advisors declared in
// the project's WATCHDOG.yml, each on its own model: /advisor status
// lists both, the one that cannot run, and the spend side by side, and
// the roster's warnings reach stderr. (What the roster does, its notes,
// prompts, tools and transcripts, supervise's TestAgentRoster checks in
// process.)
func TestRPCAdvisorRoster(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - text: "FINAL-answer"
  - name: advisors
    repeat: true
    steps:
      - text: "Nothing to say."
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

}
