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
