package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRPCAdvisorWatchdog: WATCHDOG.md files reach the advisor's system
// prompt in the seed's order (user level, then the project's WATCHDOG.md,
// then its .vigil/WATCHDOG.md, then deeper folders), each in an attention
// element, and never the primary's context (omp §20.3).
func TestRPCAdvisorWatchdog(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - model: m
    repeat: true
    steps:
      - text: "done"
  - model: adv
    repeat: true
    steps:
      - text: "Nothing to add."
`)
	addAdvisorModel(t, agentDir)
	sub := filepath.Join(work, "pkg")
	files := map[string]string{
		filepath.Join(agentDir, "WATCHDOG.md"):        "USER-RULE: flag force pushes.",
		filepath.Join(work, "WATCHDOG.md"):            "PROJECT-RULE: tests live in tests/.",
		filepath.Join(work, ".vigil", "WATCHDOG.md"):  "DOTVIGIL-RULE: never edit vendor/.",
		filepath.Join(sub, "WATCHDOG.md"):             "SUB-RULE: pkg is generated.",
		filepath.Join(work, ".github", "WATCHDOG.md"): "HIDDEN-RULE: must not load.",
		filepath.Join(work, ".vigil", "config.yml"):   "advisor:\n  syncBacklog: \"1\"\n",
	}
	for path, text := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	p := startVigil(t, agentDir, sub, "--advisor", "--advisor-model", "fake/adv")
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "hello"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "d", "message": "/advisor dump raw"})
	dump := fmt.Sprint(p.waitFor("dump", func(m map[string]any) bool { return m["id"] == "d" }))
	p.finish()

	last := -1
	for _, rule := range []string{"USER-RULE", "PROJECT-RULE", "DOTVIGIL-RULE", "SUB-RULE"} {
		i := strings.Index(dump, rule)
		if i < 0 {
			t.Errorf("the advisor's system prompt lacks %s", rule)
			continue
		}
		if i < last {
			t.Errorf("%s is out of order", rule)
		}
		last = i
	}
	if strings.Contains(dump, "HIDDEN-RULE") {
		t.Error("a WATCHDOG.md in a hidden folder was loaded")
	}
	if n := strings.Count(dump, "Especially pay attention to:"); n != 4 {
		t.Errorf("%d attention blocks, want 4", n)
	}
	for _, r := range srv.Requests() {
		if r.Model == "m" && strings.Contains(string(r.Body), "-RULE") {
			t.Error("WATCHDOG.md reached the primary's context")
		}
	}
}
