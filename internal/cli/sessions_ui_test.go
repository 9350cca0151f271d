package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// pricedSetup is fakeSetup with model m priced, answering every prompt.
func pricedSetup(t *testing.T) (agentDir, work string) {
	t.Helper()
	_, agentDir, work = fakeSetup(t, `
rules:
  - name: primary
    model: m
    repeat: true
    steps:
      - text: "DONE"
`)
	editModels(t, agentDir, "{id: m,", "{id: m, cost: {input: 3000, output: 15000},")
	return agentDir, work
}

// editModels replaces old with new in the agent folder's models.yml.
func editModels(t *testing.T, agentDir, old, new string) {
	t.Helper()
	yml := filepath.Join(agentDir, "models.yml")
	data, err := os.ReadFile(yml)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(yml, []byte(strings.Replace(string(data), old, new, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func sessionFiles(t *testing.T, agentDir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TestNoEmptySessions: a slash command in print mode, and a UI closed
// before anything was said, leave no session behind; a prompt does.
func TestNoEmptySessions(t *testing.T) {
	agentDir, work := pricedSetup(t)
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "/session")
	if files := sessionFiles(t, agentDir); len(files) != 0 {
		t.Fatalf("print mode's /session left sessions: %v", files)
	}
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "do the thing")
	if files := sessionFiles(t, agentDir); len(files) != 1 {
		t.Fatalf("a prompt left %d sessions, want 1: %v", len(files), files)
	}
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "-c", "/session")
	if files := sessionFiles(t, agentDir); len(files) != 1 {
		t.Errorf("/session on the continued session: %d sessions, want 1", len(files))
	}

	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir)}
	p := startTUI(t, env, work, "-m", "fake/m")
	p.waitFor(20*time.Second, "Ask vigil")
	p.keys("C-d")
	p.waitFor(10*time.Second, "VIGIL-EXITED 0")
	if screen := p.capture(); strings.Contains(screen, "resume with") {
		t.Errorf("an empty session, removed, is offered to resume:\n%s", screen)
	}
	if files := sessionFiles(t, agentDir); len(files) != 1 {
		t.Errorf("a UI closed at once left %d sessions, want 1: %v", len(files), files)
	}
}

// TestResumePickerAndCost: vigil -r opens a picker that names each
// session by its first prompt with its age and cost; the session picked
// shows its real cost in the status line; vigil sessions lists titles.
func TestResumePickerAndCost(t *testing.T) {
	agentDir, work := pricedSetup(t)
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "FIRST-task: rename the parser")
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "SECOND-task: fix the build")

	cmd := vigilCommand(agentDir, work, "sessions")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sessions: %v: %s", err, out)
	}
	for _, want := range []string{"TITLE", "ACTIVE", "FIRST-task: rename the parser", "SECOND-task: fix the build", "just now"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("vigil sessions lacks %q:\n%s", want, out)
		}
	}

	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir)}
	p := startTUI(t, env, work, "-m", "fake/m", "-r")
	p.waitFor(20*time.Second, "resume a session", "FIRST-task: rename the parser", "SECOND-task: fix the build", "just now")
	if screen := p.capture(); strings.Contains(screen, "(no prompt") || strings.Contains(screen, "$0.00 F") {
		t.Errorf("the picker shows an untitled or unpriced session:\n%s", screen)
	}
	p.text("FIRST")
	p.keys("Enter")
	p.waitFor(20*time.Second, "resumed session", "FIRST-task: rename the parser", "DONE")
	screen := p.capture()
	if strings.Contains(screen, "$0.0000") {
		t.Errorf("the resumed session's status shows no cost:\n%s", screen)
	}
	// Leaving says how to come back to this session.
	files := sessionFiles(t, agentDir)
	first := ""
	for _, f := range files {
		if data, _ := os.ReadFile(f); strings.Contains(string(data), "FIRST-task") {
			first = strings.TrimSuffix(f[strings.LastIndex(f, "_")+1:], ".jsonl")
		}
	}
	p.keys("C-d")
	p.waitFor(10*time.Second, "resume with `vigil -r "+first+"`", "VIGIL-EXITED 0")
}
