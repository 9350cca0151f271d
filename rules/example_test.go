package rules_test

import (
	"encoding/json"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// bashStep is step n of a run: one bash call and its result.
func bashStep(n int, command, output string, failed bool) transcript.Step {
	id := fmt.Sprint("call-", n)
	args, _ := json.Marshal(map[string]string{"command": command})
	reply := &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolCall(id, "bash", args)}}}
	result := &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, failed, llm.Text(output))}}}
	return transcript.Step{N: n, Reply: session.Entry{Body: reply}, Results: []session.Entry{{Body: result}}}
}

func ExampleEngine() {
	e := rules.New(rules.DefaultSettings())
	run := []transcript.Step{
		bashStep(1, "go test ./...", "--- FAIL: TestParse (0.00s)\nFAIL\tparser\t0.012s", true),
		bashStep(2, "cd /repo && go test ./... 2>&1 | tail -20", "--- FAIL: TestParse (0.00s)\nFAIL\tparser\t0.009s", true),
		bashStep(3, "go test ./...", "--- FAIL: TestParse (0.00s)\nFAIL\tparser\t0.011s", true),
		bashStep(4, "go test ./...", "--- FAIL: TestParse (0.00s)\nFAIL\tparser\t0.010s", true),
	}
	for _, st := range run {
		for _, f := range e.Observe(st) {
			fmt.Println(f)
		}
	}
	// Output:
	// steps 1-3 repeated-failure [concern]: `go test ./...` has failed the same way 3 times; read the error and change something before running it again. (FAIL	parser	0.011s)
}

func ExampleDetectors() {
	for _, d := range rules.Detectors()[:3] {
		fmt.Println(d.Name, d.Severity)
	}
	// Output:
	// repeated-failure concern
	// sidestep concern
	// workaround concern
}
