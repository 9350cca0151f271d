package demo

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// TestScriptsAndSetup: the embedded scripts parse, and Setup writes the
// project the script expects and the agent folder with both models.
func TestScriptsAndSetup(t *testing.T) {
	if s := AdvisorScript(); len(s.Rules) == 0 {
		t.Fatal("the advisor script has no rules")
	}
	scratch := t.TempDir()
	work, err := Setup(scratch, "http://127.0.0.1:1")
	if err != nil {
		t.Fatal(err)
	}
	for name := range projectFiles {
		if _, err := os.Stat(filepath.Join(work, name)); err != nil {
			t.Errorf("the project lacks %s: %v", name, err)
		}
	}
	m, err := os.ReadFile(filepath.Join(scratch, "agent", "models.yml"))
	if err != nil || !strings.Contains(string(m), "id: agent") || !strings.Contains(string(m), "id: advisor") {
		t.Errorf("models.yml %q (%v), want the agent's and the advisor's models", m, err)
	}
}

// TestNarrate: an advisor's note is told as the advisor's, with its
// severity; the agent's words as the agent's.
func TestNarrate(t *testing.T) {
	var out strings.Builder
	reply := session.Entry{Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("Changing the test.")}}}}
	Narrate(&out, agent.Event{Type: agent.EventMessageEnd, Entry: &reply})
	note := session.Entry{Body: &session.Custom{CustomType: agent.CustomAdvisor, Content: []llm.Block{llm.Text(`<advisory severity="concern" guidance="weigh, don't blindly obey">` + "\nFix Discount, not the test.\n</advisory>")}}}
	Narrate(&out, agent.Event{Type: agent.EventSteerDelivered, Entry: &note})
	got := out.String()
	for _, want := range []string{"agent: Changing the test.", "advisor · concern: Fix Discount, not the test."} {
		if !strings.Contains(got, want) {
			t.Errorf("narration %q lacks %q", got, want)
		}
	}
}

// TestWire walks the exchange through every wire API against fakellm.
func TestWire(t *testing.T) {
	var out strings.Builder
	if err := Wire(context.Background(), &out, func(string) (string, bool) { return "", false }); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"anthropic-messages", "openai-completions", "openai-responses", "total:"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the walk-through lacks %q:\n%s", want, out.String())
		}
	}
}
