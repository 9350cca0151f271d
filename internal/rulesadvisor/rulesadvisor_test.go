package rulesadvisor_test

import (
	"encoding/json"
	"fmt"
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
