package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDemoPrintShowsTheAdvisor: vigil demo with no terminal narrates the
// scripted session: the agent weakens the test, the advisor's concern,
// the agent turning back, and says the models are scripted. It reads and
// writes nothing of the user's, and leaves no scratch folder behind.
func TestDemoPrintShowsTheAdvisor(t *testing.T) {
	agentDir := isolate(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	out, errOut, err := run(t, "demo")
	if err != nil {
		t.Fatalf("demo: %v\nstderr: %s", err, errOut)
	}
	order := []string{
		"scripted models",
		"› TestDiscount fails. Make it pass.",
		"tool read",
		`tool edit {"new_text":"if got != 190 {"`,
		"advisor · concern: The test was right: 10% off 200 is 180.",
		"The advisor is right",
		`"return price * (1 - pct/100)"`,
		"This was vigil's demo",
	}
	rest := out
	for _, want := range order {
		i := strings.Index(rest, want)
		if i < 0 {
			t.Fatalf("demo output lacks %q after the lines before it:\n%s", want, out)
		}
		rest = rest[i+len(want):]
	}
	if strings.Contains(out, "failed:") {
		t.Errorf("a tool call failed:\n%s", out)
	}
	for _, dir := range []string{agentDir, tmp} {
		if left, _ := os.ReadDir(dir); len(left) != 0 {
			t.Errorf("the demo left %d files in %s: %v", len(left), dir, left)
		}
	}
}

// TestDemoTUIShowsTheAdvisor drives the no-key demo in a real terminal
// (tmux): the UI opens on the scripted session, says the models are
// scripted, and shows the advisor's note and the agent's fixed answer.
func TestDemoTUIShowsTheAdvisor(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	env := []string{"HOME=" + home, "VIGIL_AGENT_DIR=" + filepath.Join(home, "agent"), "ANTHROPIC_API_KEY=", "OPENAI_API_KEY=", "TMPDIR=" + root}
	p := startTUI(t, env, root, "demo")
	// The story plays faster than the screen can be read: wait for its
	// end, then scroll up to the note, then to the top.
	p.waitFor(30*time.Second, "This was vigil's demo", "○ idle")
	p.keys("PPage")
	p.waitFor(10*time.Second, "advisor · concern", "The test was right: 10% off 200 is 180.")
	p.keys("PPage", "PPage", "PPage")
	p.waitFor(10*time.Second, "scripted models", "› TestDiscount fails. Make it pass.")
	p.keys("C-d")
	p.waitFor(10*time.Second, "VIGIL-EXITED 0")
	if left, _ := os.ReadDir(home); len(left) != 0 {
		t.Errorf("the demo wrote into HOME: %v", left)
	}
}
