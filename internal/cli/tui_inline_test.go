package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTUIInlineKeepsTheTranscript: with --inline the UI draws in the
// normal screen and prints the transcript into the scrollback, where it
// stays after vigil exits, followed by how to resume.
func TestTUIInlineKeepsTheTranscript(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo INLINE-tool-output"}}]
      - text: "INLINE-answer: done."
`)
	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir)}
	p := startTUI(t, env, work, "-m", "fake/m", "--inline")
	p.waitFor(20*time.Second, "Ask vigil")
	p.text("INLINE-prompt")
	p.keys("Enter")
	p.waitFor(30*time.Second, "› INLINE-prompt", "bash echo INLINE-tool-output", "INLINE-answer: done.", "○ idle")
	p.keys("C-d")
	p.waitFor(10*time.Second, "VIGIL-EXITED 0", "resume with `vigil -r ")
	// Scrollback and screen together, once the UI is gone.
	all := p.tmux("capture-pane", "-p", "-t", "0", "-S", "-")
	flat := strings.Join(strings.Fields(all), " ")
	for _, want := range []string{"› INLINE-prompt", "bash echo INLINE-tool-output", "INLINE-answer: done."} {
		if n := strings.Count(flat, want); n != 1 {
			t.Errorf("after exit the terminal holds %q %d times, want once:\n%s", want, n, all)
		}
	}
}

// TestTUIShellCommand: !command in the UI runs the command in the
// project with no model request, shows its output and exit code, and the
// model reads it with the next prompt.
func TestTUIShellCommand(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - text: "SAW-the-command"
`)
	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir)}
	p := startTUI(t, env, work, "-m", "fake/m")
	p.waitFor(20*time.Second, "Ask vigil")
	p.text("!echo BANG-out; pwd; exit 4")
	p.keys("Enter")
	p.waitFor(20*time.Second, "✗ ! echo BANG-out; pwd; exit 4", "exit 4", "BANG-out", filepath.Base(work), "○ idle")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("!command made %d model requests", n)
	}
	p.text("what happened?")
	p.keys("Enter")
	p.waitFor(20*time.Second, "SAW-the-command", "○ idle")
	body := string(srv.Requests()[0].Body)
	for _, want := range []string{"$ echo BANG-out; pwd; exit 4", "BANG-out", "[exit code 4]", "what happened?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the model's request lacks %q: %s", want, body)
		}
	}
}
