package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 13, defect 9: after three failed reviews the warning names the
// advisor once ("vigil: warning: advisor: 3 reviews failed…"), not
// "vigil: advisor: advisor: …". syncBacklog makes the agent wait for the
// review of its one step, so the warning comes before vigil exits.
func TestAdvisorFailureWarningNamesTheAdvisorOnce(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - text: "answered while the advisor fails"
  - name: advisor
    model: adv
    repeat: true
    steps:
      - fault: {status: 400, message: "advisor request refused"}
`)
	addAdvisorModel(t, agentDir)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "-p", "hi", "--advisor-model", "fake/adv")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("vigil: %v\n%s\n%s", err, out, stderr.String())
	}
	const want = "vigil: warning: advisor: 3 reviews failed in a row; dropping the backlog"
	got := stderr.String()
	if !strings.Contains(got, want) {
		t.Errorf("stderr lacks %q:\n%s", want, got)
	}
	if strings.Contains(got, "advisor: advisor:") {
		t.Errorf("stderr names the advisor twice:\n%s", got)
	}
}

// Issue 18: when supervision stops working, the user is told where they
// look, once: a displayed advisor_warning entry in the session (the event
// stream's custom_appended, the terminal UI) saying what failed and what
// to do, and one line on stderr; a second drop of the backlog is counted,
// not printed again (issue 28: six identical lines in one short run).
func TestSupervisionFailureShownOnceInTheSession(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "true"}}]
      - text: "answered while the advisor fails"
  - name: advisor
    model: adv
    repeat: true
    steps:
      - fault: {status: 400, message: "advisor request refused"}
`)
	addAdvisorModel(t, agentDir)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "-p", "--mode", "json", "hi", "--advisor-model", "fake/adv")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("vigil: %v\n%s\n%s", err, out, stderr.String())
	}
	if n := strings.Count(stderr.String(), "reviews failed in a row"); n != 1 {
		t.Errorf("%d drops on stderr, want the first of the two (one per step) only:\n%s", n, stderr.String())
	}
	var shown []string
	for _, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, `"custom_appended"`) && strings.Contains(line, `"advisor_warning"`) {
			shown = append(shown, line)
		}
	}
	if len(shown) != 1 {
		t.Fatalf("%d advisor_warning events, want 1:\n%s", len(shown), out)
	}
	for _, w := range []string{"Supervision is not working: 3 reviews failed in a row", "Check the advisor model's provider"} {
		if !strings.Contains(shown[0], w) {
			t.Errorf("the warning lacks %q: %s", w, shown[0])
		}
	}
}
