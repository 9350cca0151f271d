package rulesadvisor_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/rulesadvisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
)

// failingStep is one assistant call of `ls /missing` and its failed result.
func failingStep(i int) []session.Entry {
	id := fmt.Sprintf("c%d", i)
	args, _ := json.Marshal(map[string]string{"command": "ls /missing"})
	return []session.Entry{
		{ID: "a" + id, Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: id, Name: "bash", Arguments: args}}}}},
		{ID: "r" + id, Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, true, llm.Text("ls: cannot access '/missing': No such file or directory\n[exit code 2]"))}}}},
	}
}

func TestDetectorReportsRepeatedFailure(t *testing.T) {
	d := rulesadvisor.New(rules.DefaultSettings())
	var notes []advisor.Advice
	for i := range 5 {
		notes = append(notes, d.Observe(failingStep(i))...)
	}
	if len(notes) == 0 {
		t.Fatal("five identical failures raised no note")
	}
	if notes[0].Note == "" || (notes[0].Severity != advisor.SeverityConcern && notes[0].Severity != advisor.SeverityBlocker && notes[0].Severity != advisor.SeverityNit) {
		t.Errorf("first note %+v", notes[0])
	}
	d.Reset()
	if got := d.Observe(failingStep(9)); len(got) != 0 {
		t.Errorf("after Reset one failure raised %v", got)
	}
}

// commitStep is one assistant call of a commit that skips the hooks, and
// its result: no finding, but a signal (check-off).
func commitStep() []session.Entry {
	args, _ := json.Marshal(map[string]string{"command": "git commit --no-verify -m wip"})
	return []session.Entry{
		{ID: "acommit", Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: "commit", Name: "bash", Arguments: args}}}}},
		{ID: "rcommit", Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("commit", false, llm.Text("[main 1a2b3c] wip\n[exit code 0]"))}}}},
	}
}

// The engine's signals reach a gated runtime through Signals, once each
// and as copies; Reset forgets those not taken.
func TestDetectorSignals(t *testing.T) {
	d := rulesadvisor.New(rules.DefaultSettings())
	if notes := d.Observe(commitStep()); len(notes) != 0 {
		t.Errorf("a commit with --no-verify raised notes %v, want only a signal", notes)
	}
	s := d.Signals()
	if len(s) != 1 || !strings.Contains(s[0], "check-off") || !strings.Contains(s[0], "--no-verify") {
		t.Fatalf("signals %q, want one check-off naming --no-verify", s)
	}
	if again := d.Signals(); len(again) != 0 {
		t.Errorf("signals given twice: %q", again)
	}
	d.Observe(commitStep())
	d.Reset()
	if s := d.Signals(); len(s) != 0 {
		t.Errorf("signals %q after Reset, want none", s)
	}
}
