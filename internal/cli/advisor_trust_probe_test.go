package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fakellm"
)

// runPrint runs vigil in print mode in work and returns its stderr.
func runPrint(t *testing.T, agentDir, work string, args ...string) string {
	t.Helper()
	cmd := vigilCommand(agentDir, work, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("vigil %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stderr.String()
}

func writeText(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// A WATCHDOG.yml with shared instructions and no advisors still reaches
// the single advisor, as docs/advisor.md says (the single advisor is the
// roster of one), in an untrusted folder too, as its WATCHDOG.md does.
func TestSingleAdvisorGetsSharedInstructions(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, advisorScript("true", "unused"))
	addAdvisorModel(t, agentDir)
	if _, err := config.Trust(agentDir, work, true); err != nil {
		t.Fatal(err)
	}
	writeText(t, filepath.Join(work, "WATCHDOG.yml"), "instructions: SHARED-RULE-only\n")
	writeText(t, config.UserFile(agentDir), "advisor:\n  syncBacklog: \"1\"\n")
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "--advisor", "--advisor-model", "fake/adv", "run false until it works")
	calls := bodiesWhere(srv, func(r fakellm.Request) bool { return r.Model == "adv" })
	for _, body := range calls {
		if !strings.Contains(body, "SHARED-RULE-only") {
			t.Error("an advisor request lacks the WATCHDOG.yml shared instructions")
		}
	}
	if len(calls) == 0 {
		t.Fatal("the advisor was never called")
	}
}

// So does the single periodic advisor's review: the review guidance, then
// the shared instructions, as a roster's periodic advisor has them.
func TestSinglePeriodicAdvisorGetsSharedInstructions(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: review
    model: m
    match: ["### Advisor review"]
    steps:
      - text: "NO_CHANGE"
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo one"}}]
      - text: "done"
`)
	writeText(t, filepath.Join(work, "WATCHDOG.yml"), "instructions: SHARED-PERIODIC-RULE\n")
	writeText(t, config.UserFile(agentDir), "advisor:\n  enabled: true\n  mode: periodic\n  periodic:\n    everyToolCalls: 1\n")
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "go")
	reviews := bodiesWhere(srv, func(r fakellm.Request) bool { return strings.Contains(string(r.Body), "### Advisor review") })
	for _, body := range reviews {
		if !strings.Contains(body, "SHARED-PERIODIC-RULE") {
			t.Error("the periodic review lacks the WATCHDOG.yml shared instructions")
		}
	}
	if len(reviews) == 0 {
		t.Fatal("no periodic review ran")
	}
}

// An untrusted project cannot set how often the periodic advisor reviews
// on the agent's model: with the user's periodic mode and the project's
// everyToolCalls: 1, a run of two tool calls is not reviewed, and the
// held-back notice names the key.
func TestUntrustedProjectCannotSetPeriodicCadence(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: review
    model: m
    match: ["### Advisor review"]
    steps:
      - text: "NO_CHANGE"
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo one"}}]
      - tool_calls: [{name: bash, arguments: {command: "echo two"}}]
      - text: "done"
`)
	if _, err := config.Trust(agentDir, work, true); err != nil {
		t.Fatal(err)
	}
	writeText(t, config.UserFile(agentDir), "advisor:\n  enabled: true\n  mode: periodic\n")
	writeConfig(t, work, "advisor:\n  periodic:\n    everyToolCalls: 1\n")
	stderr := runPrint(t, agentDir, work, "-p", "-m", "fake/m", "go")
	for _, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "### Advisor review") {
			t.Fatal("the untrusted project's cadence ran a review on the agent's model")
		}
	}
	if !strings.Contains(stderr, "advisor.periodic.everyToolCalls: 1 (line 3)") || !strings.Contains(stderr, "not applied") {
		t.Errorf("stderr does not hold the cadence back:\n%s", stderr)
	}
}

// An advisor whose system prompt (vigil's, WATCHDOG.md, WATCHDOG.yml
// instructions) leaves no room in its model's window gets a visible
// warning that says so, instead of only notices about compaction.
func TestAdvisorPromptTooLargeForWindowWarns(t *testing.T) {
	_, agentDir, work := fakeSetup(t, advisorScript("true", "unused"))
	yml := filepath.Join(agentDir, "models.yml")
	data, err := os.ReadFile(yml)
	if err != nil {
		t.Fatal(err)
	}
	data = []byte(strings.Replace(string(data), "      - {id: m,", "      - {id: adv, contextWindow: 8000, maxTokens: 1024}\n      - {id: m,", 1))
	writeText(t, yml, string(data))
	writeText(t, filepath.Join(work, "WATCHDOG.md"), strings.Repeat("Check every claim twice. ", 1300))
	writeText(t, config.UserFile(agentDir), "advisor:\n  syncBacklog: \"1\"\n")
	stderr := runPrint(t, agentDir, work, "-p", "-m", "fake/m", "--advisor", "--advisor-model", "fake/adv", "run false until it works")
	if !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "system prompt") || !strings.Contains(stderr, "context window of 8000") {
		t.Errorf("no warning that the advisor's prompt does not fit its window:\n%s", stderr)
	}
}

// WATCHDOG.yml's instructions are cut where WATCHDOG.md is (docs say
// they are capped alike).
func TestRosterCapIsWatchdogCap(t *testing.T) {
	if config.MaxInstructionBytes != advisor.MaxWatchdogBytes {
		t.Errorf("WATCHDOG.yml instructions are cut at %d bytes, WATCHDOG.md at %d", config.MaxInstructionBytes, advisor.MaxWatchdogBytes)
	}
}
