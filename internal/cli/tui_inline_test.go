package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestTUIInlineKeepsTheTranscript: with --inline the UI draws in the
// normal screen and prints the transcript into the scrollback, where it
// stays after vigil exits, followed by how to resume.
func TestTUIInlineKeepsTheTranscript(t *testing.T) {
	checkInline(t, "", []string{"--inline"}, 1)
}

// TestTUIInlineSetting: ui.inline does what --inline does, and
// --no-inline overrides it: the whole screen, given back on exit, so the
// transcript is not left in the terminal.
func TestTUIInlineSetting(t *testing.T) {
	t.Run("setting", func(t *testing.T) { checkInline(t, "ui:\n  inline: true\n", nil, 1) })
	t.Run("flag overrides", func(t *testing.T) { checkInline(t, "ui:\n  inline: true\n", []string{"--no-inline"}, 0) })
}

// checkInline runs a prompt in the UI with the user settings settings and
// the flags args, leaves, and checks that the terminal then holds each
// part of the transcript want times (1 inline, 0 full screen).
func checkInline(t *testing.T, settings string, args []string, want int) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo INLINE-tool-output"}}]
      - text: "INLINE-answer: done."
`)
	if settings != "" {
		if err := os.WriteFile(filepath.Join(agentDir, "config.yml"), []byte(settings), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir)}
	p := startTUI(t, env, work, append([]string{"-m", "fake/m"}, args...)...)
	p.waitFor(20*time.Second, "Ask vigil")
	p.text("INLINE-prompt")
	p.keys("Enter")
	p.waitFor(30*time.Second, "› INLINE-prompt", "bash echo INLINE-tool-output", "INLINE-answer: done.", "○ idle")
	p.keys("C-d")
	p.waitFor(10*time.Second, "VIGIL-EXITED 0", "resume with `vigil -r ")
	// Scrollback and screen together, once the UI is gone.
	all := p.tmux("capture-pane", "-p", "-t", "0", "-S", "-")
	flat := strings.Join(strings.Fields(all), " ")
	for _, part := range []string{"› INLINE-prompt", "bash echo INLINE-tool-output", "INLINE-answer: done."} {
		if n := strings.Count(flat, part); n != want {
			t.Errorf("after exit the terminal holds %q %d times, want %d:\n%s", part, n, want, all)
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
