package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tmuxPane is vigil's terminal UI running in a real terminal: a tmux
// server of the test's own, one window of 100×30.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func startTUI(t *testing.T, env []string, work string, args ...string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it)")
	}
	p := &tmuxPane{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	// The test binary is vigil (see TestMain); tmux runs it with the
	// test's environment.
	var cmd strings.Builder
	cmd.WriteString("env")
	for _, kv := range append(env, "TERM=xterm-256color") {
		cmd.WriteString(" " + shellQuote(kv))
	}
	cmd.WriteString(" " + shellQuote(testVigil))
	for _, a := range args {
		cmd.WriteString(" " + shellQuote(a))
	}
	cmd.WriteString("; echo VIGIL-EXITED $?; sleep 600")
	p.tmux("-f", "/dev/null", "new-session", "-d", "-x", "100", "-y", "30", "-c", work, cmd.String())
	p.tmux("set-option", "-g", "set-clipboard", "on")
	t.Cleanup(func() { exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	return p
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys types into the pane: tmux key names (Enter, Escape, C-d) or text.
func (p *tmuxPane) keys(keys ...string) { p.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...) }

// text types text literally.
func (p *tmuxPane) text(s string) { p.tmux("send-keys", "-t", "0", "-l", s) }

func (p *tmuxPane) capture() string { return p.tmux("capture-pane", "-p", "-t", "0") }

// waitFor polls the screen until it shows every text, or fails after
// timeout with the screen. The UI is another process in another
// terminal: the screen is the only event there is to wait on.
func (p *tmuxPane) waitFor(timeout time.Duration, texts ...string) time.Duration {
	p.t.Helper()
	start := time.Now()
	for {
		screen := p.capture()
		flat := strings.Join(strings.Fields(screen), " ")
		missing := ""
		for _, s := range texts {
			if !strings.Contains(flat, s) {
				missing = s
				break
			}
		}
		if missing == "" {
			return time.Since(start)
		}
		if time.Since(start) > timeout {
			p.t.Fatalf("after %v the screen lacks %q:\n%s", timeout, missing, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestTUIEndToEnd runs vigil's terminal UI in tmux against fakellm: a
// prompt gets its answer and the advisor's note; Esc stops a sleep 3600
// within a second and c continues it; /advisor status names the advisor
// model; /advisor dump reaches the clipboard (a fake xclip on PATH).
func TestTUIEndToEnd(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - text: "ANSWER-one: false fails."
      - tool_calls: [{name: bash, arguments: {command: "sleep 3600"}}]
      - text: "CONTINUED-after-interrupt"
  - name: advisor
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-false <always> fails", severity: concern}}]
      - text: "Nothing to add."
      - text: "Nothing to add."
      - text: "Nothing to add."
      - text: "Nothing to add."
      - text: "Nothing to add."
`)
	addAdvisorModel(t, agentDir)
	// Each step waits for its review, so the note lands within the run.
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	clip := filepath.Join(bin, "clipboard.txt")
	xclip := "#!/bin/sh\ncat > " + shellQuote(clip) + "\n"
	if err := os.WriteFile(filepath.Join(bin, "xclip"), []byte(xclip), 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"VIGIL_AGENT_DIR=" + agentDir, "HOME=" + filepath.Dir(agentDir), "PATH=" + bin + ":" + os.Getenv("PATH"), "DISPLAY=:99"}
	p := startTUI(t, env, work, "-m", "fake/m", "--advisor-model", "fake/adv")

	p.waitFor(20*time.Second, "Ask vigil", "advisor fake/adv")
	p.text("run false")
	p.keys("Enter")
	p.waitFor(30*time.Second, "› run false", "ANSWER-one: false fails.", "advisor · concern", "NOTE-false <always> fails", "○ idle")

	p.text("now sleep")
	p.keys("Enter")
	// A running command shows a spinner and its time so far.
	p.waitFor(30*time.Second, "bash sleep 3600 · ", "esc interrupts")
	p.keys("Escape")
	// sleep 3600 outlives the wait: the interrupted mark is Esc's doing
	// (how fast is a figure for docs/benchmarks.md, not a bound here).
	took := p.waitFor(30*time.Second, "■ interrupted", "Interrupted by user")
	t.Logf("Esc stopped sleep 3600 in %v", took)
	p.text("c")
	p.keys("Enter")
	p.waitFor(30*time.Second, "continue › Continue.", "CONTINUED-after-interrupt", "○ idle")

	p.text("/advisor status")
	p.keys("Enter")
	p.waitFor(10*time.Second, "advisor status", "Advisor is enabled (fake/adv)")
	p.keys("Escape")
	// The panel is closed when the transcript is back (text typed at once
	// would reach the terminal as Alt+key, one sequence with the Esc).
	p.waitFor(10*time.Second, "CONTINUED-after-interrupt")
	p.text("/advisor dump")
	p.keys("Enter")
	p.waitFor(10*time.Second, "copied the advisor's transcript", "(OSC 52 and xclip)", "# Advisor transcript")
	p.keys("Escape") // the transcript's panel
	p.waitFor(10*time.Second, "CONTINUED-after-interrupt")
	data, err := os.ReadFile(clip)
	if err != nil || !strings.Contains(string(data), "NOTE-false") {
		t.Errorf("the clipboard holds %q (%v), want the advisor's transcript", data, err)
	}
	if buf, err := exec.Command("tmux", "-S", p.socket, "show-buffer").Output(); err != nil || !strings.Contains(string(buf), "NOTE-false") {
		t.Errorf("tmux's buffer (OSC 52, set-clipboard on) holds %d bytes (%v), want the advisor's transcript", len(buf), err)
	}

	p.keys("C-d")
	p.waitFor(10*time.Second, "VIGIL-EXITED 0")
	if n := len(srv.Requests()); n < 5 {
		t.Errorf("%d model requests, want the primary's four and the advisor's", n)
	}
}
