package rules

import "testing"

func TestFormatErrors(t *testing.T) {
	rejected := "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."
	talk := st{text: "I think the bug is in the parser."}
	after := func(s st) st { s.notes = []string{rejected}; return s }
	runCases(t, "format-errors", []detectorCase{
		{"three rejected replies in a row", []st{do(sh("ls", "a", false)), talk, after(talk), after(talk), after(talk)}, []int{5}},
		{"an accepted reply breaks the run", []st{talk, after(talk), after(do(sh("ls", "a", false))), talk, after(talk)}, nil},
		{"rejected tool calls", []st{
			do(tool("bash", map[string]any{"cmd": 1}, "invalid tool arguments: command is required", true)),
			do(tool("bash", map[string]any{"cmd": 1}, "invalid tool arguments: command is required", true)),
			do(tool("bash", map[string]any{"cmd": 1}, "invalid tool arguments: command is required", true)),
		}, []int{3}},
	})
}
