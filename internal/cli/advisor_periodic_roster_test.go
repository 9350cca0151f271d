package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestRPCPeriodicRoster runs vigil's agent in the periodic mode with a
// WATCHDOG.yml roster: tests forks onto the agent's own model, scope onto
// a model of its own, style is declared off and broken names a model that
// does not exist. After the third failing call both running advisors
// review the same run, each with the shared instructions then its own in
// its review prompt, and both corrections, each naming its advisor, reach
// the agent's very next request, after the third result. /advisor status
// lists each advisor's state, each has its own transcript, the broken one
// is a warning naming it, and /advisor off|on NAME toggles one, saved.
func TestRPCPeriodicRoster(t *testing.T) {
	const check = `echo 'check: unknown key timout in check.yml'; exit 1`
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: review-tests
    model: m
    match: ["### Advisor review", "OWN-TESTS"]
    steps:
      - text: "CORRECTION\nCORR-tests: the check failed the same way three times; read check.yml."
  - name: review-scope
    model: adv2
    match: ["### Advisor review"]
    steps:
      - text: "CORRECTION\nCORR-scope: the user asked only for the check; leave main.go alone."
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "echo fixed"}}]
      - text: "READY"
`)
	addModels(t, agentDir, "adv2")
	write(t, filepath.Join(work, ".vigil", "config.yml"), "advisor:\n  enabled: true\n  mode: periodic\n  syncTimeoutSeconds: 30\n  periodic:\n    everyToolCalls: 3\n")
	write(t, filepath.Join(work, ".vigil", "WATCHDOG.yml"), `
instructions: SHARED-INSTR make check is the only test that counts.
maxNotesPerUpdate: 2
advisors:
  - name: tests
    instructions: OWN-TESTS watch the tests.
  - name: scope
    model: fake/adv2
    instructions: OWN-SCOPE watch the scope.
  - name: style
    enabled: false
  - name: broken
    model: fake/none
`)

	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "poll the check until it passes"})
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "READY")
	})
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := fmt.Sprint(p.waitFor("/advisor status", func(m map[string]any) bool { return m["id"] == "st" }))
	p.send(map[string]any{"type": "prompt", "id": "dump", "message": "/advisor dump"})
	dump := fmt.Sprint(p.waitFor("/advisor dump", func(m map[string]any) bool { return m["id"] == "dump" }))
	// /advisor off NAME turns one advisor off, saved in the user's
	// settings; the others go on, and /advisor on NAME brings it back.
	p.send(map[string]any{"type": "prompt", "id": "off", "message": "/advisor off scope"})
	off := fmt.Sprint(p.waitFor("/advisor off scope", func(m map[string]any) bool { return m["id"] == "off" }))
	p.send(map[string]any{"type": "prompt", "id": "st2", "message": "/advisor status"})
	st2 := fmt.Sprint(p.waitFor("/advisor status after off", func(m map[string]any) bool { return m["id"] == "st2" }))
	saved, err := os.ReadFile(filepath.Join(agentDir, "config.yml"))
	if err != nil {
		t.Fatal(err)
	}
	p.send(map[string]any{"type": "prompt", "id": "on", "message": "/advisor on scope"})
	p.waitFor("/advisor on scope", func(m map[string]any) bool { return m["id"] == "on" })
	p.send(map[string]any{"type": "prompt", "id": "st3", "message": "/advisor status"})
	st3 := fmt.Sprint(p.waitFor("/advisor status after on", func(m map[string]any) bool { return m["id"] == "st3" }))
	file := p.sessionFile()
	p.finish()
	stderr := p.stderr.String()

	if !strings.Contains(off, "Advisor scope turned off (saved in your settings)") {
		t.Errorf("/advisor off scope answered %s", off)
	}
	if !strings.Contains(st2, "- scope: off") || !strings.Contains(st2, "- tests: running") {
		t.Errorf("/advisor status after /advisor off scope: %s", st2)
	}
	if !strings.Contains(string(saved), "scope: false") {
		t.Errorf("the user settings do not keep scope off:\n%s", saved)
	}
	if !strings.Contains(st3, "- scope: running") {
		t.Errorf("/advisor status after /advisor on scope: %s", st3)
	}

	for _, w := range []string{"periodic mode", "every 3 tool calls", "- tests: running (idle) on fake/m", "- scope: running (idle) on fake/adv2", "Reviews: 1 (1 steered",
		"- style: off", "- broken: not running, no model"} {
		if !strings.Contains(st, w) {
			t.Errorf("/advisor status lacks %q: %s", w, st)
		}
	}
	for _, w := range []string{"=== advisor tests (periodic, fake/m) ===", "=== advisor scope (periodic, fake/adv2) ===", "CORR-scope"} {
		if !strings.Contains(dump, w) {
			t.Errorf("/advisor dump lacks %q: %s", w, dump)
		}
	}
	if !strings.Contains(stderr, "advisor broken") || !strings.Contains(stderr, "does not run: no model") {
		t.Errorf("stderr lacks the broken advisor's warning:\n%s", stderr)
	}

	var primary []string
	forks := map[string][]string{}
	for _, r := range srv.Requests() {
		body := string(r.Body)
		if strings.Contains(body, "### Advisor review") {
			forks[r.Model] = append(forks[r.Model], body)
		} else {
			primary = append(primary, body)
		}
	}
	if len(forks["m"]) != 1 || len(forks["adv2"]) != 1 {
		t.Fatalf("forks by model %d on m, %d on adv2; want one each", len(forks["m"]), len(forks["adv2"]))
	}
	for model, own := range map[string]string{"m": "OWN-TESTS", "adv2": "OWN-SCOPE"} {
		body := forks[model][0]
		i, j := strings.Index(body, "SHARED-INSTR"), strings.Index(body, own)
		if i < 0 || j < i {
			t.Errorf("the fork on %s: shared instructions at %d, its own at %d; want shared first", model, i, j)
		}
		if strings.Count(body, `"tool_use_id"`) != 3 {
			t.Errorf("the fork on %s does not hold the three results", model)
		}
	}
	if strings.Contains(forks["adv2"][0], "OWN-TESTS") || strings.Contains(forks["m"][0], "OWN-SCOPE") {
		t.Error("a fork holds another advisor's instructions")
	}
	if len(primary) != 5 {
		t.Fatalf("%d agent requests, want 5", len(primary))
	}
	if strings.Contains(primary[2], "CORR-") {
		t.Error("a correction is in the request before the review")
	}
	last := lastMessage(t, primary[3])
	r, c1, c2 := strings.Index(last, "unknown key timout"), strings.Index(last, "CORR-tests"), strings.Index(last, "CORR-scope")
	if r < 0 || c1 < r || c2 < r {
		t.Errorf("the fourth request's last message does not hold the third result then both corrections:\n%s", last)
	}
	if !strings.Contains(last, `advisor=\"tests\"`) || !strings.Contains(last, `advisor=\"scope\"`) {
		t.Errorf("the corrections do not name their advisors:\n%s", last)
	}
	if strings.Count(primary[4], "CORR-") != 2 {
		t.Errorf("the last request carries %d corrections, want the two, once each", strings.Count(primary[4], "CORR-"))
	}
	dir := strings.TrimSuffix(file, ".jsonl")
	for _, name := range []string{"__advisor-tests.jsonl", "__advisor-scope.jsonl"} {
		reviews := 0
		for _, e := range checkTree(t, filepath.Join(dir, name)) {
			if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor_review" {
				reviews++
			}
		}
		if reviews != 1 {
			t.Errorf("transcript %s holds %d reviews, want 1", name, reviews)
		}
	}
}

// addModels declares more models of the fake provider in agentDir's
// models.yml, each with a 100,000-token window.
func addModels(t *testing.T, agentDir string, ids ...string) {
	t.Helper()
	yml := filepath.Join(agentDir, "models.yml")
	data, err := os.ReadFile(yml)
	if err != nil {
		t.Fatal(err)
	}
	var more strings.Builder
	for _, id := range ids {
		fmt.Fprintf(&more, "      - {id: %s, contextWindow: 100000, maxTokens: 4096}\n", id)
	}
	data = []byte(strings.Replace(string(data), "      - {id: m,", more.String()+"      - {id: m,", 1))
	if err := os.WriteFile(yml, data, 0o600); err != nil {
		t.Fatal(err)
	}
}
