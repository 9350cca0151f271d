package rules

import "testing"

func TestFormatErrors(t *testing.T) {
	rejected := "Please always provide EXACTLY ONE action in triple backticks, found 0 actions."
	talk := st{text: "I think the bug is in the parser."}
	after := func(s st) st { s.notes = []string{rejected}; return s }
	runCases(t, "format-errors", []detectorCase{
		{"three rejected replies in a row", []st{do(sh("ls", "a", false)), talk, after(talk), after(talk), after(talk)}, []int{5}},
		{"an accepted reply breaks the run", []st{talk, after(talk), after(do(sh("ls", "a", false))), talk, after(talk)}, nil},
		{"mini-swe-agent's tool-call format error", []st{
			talk,
			st{text: "x", notes: []string{"Tool call error:\n\n<error>\nNo tool calls found in the response. Every response MUST include at least one tool call.\n</error>"}},
			st{text: "y", notes: []string{"Tool call error:\n\n<error>\nNo tool calls found in the response. Every response MUST include at least one tool call.\n</error>"}},
			st{text: "z", notes: []string{"Tool call error:\n\n<error>\nNo tool calls found in the response. Every response MUST include at least one tool call.\n</error>"}},
		}, []int{4}},
		{"SWE-agent's format errors", []st{
			talk,
			after(st{text: "a", notes: []string{"Your output was not formatted correctly. You must always include one discussion and one command as part of your response."}}),
			st{text: "b", notes: []string{"Your last output did not use any tool calls!"}},
			st{text: "c", notes: []string{"Please make sure your output includes exactly _ONE_ function call!"}},
		}, []int{4}},
		{"rejected tool calls", []st{
			do(tool("bash", map[string]any{"cmd": 1}, "invalid tool arguments: command is required", true)),
			do(tool("bash", map[string]any{"cmd": 1}, "invalid tool arguments: command is required", true)),
			do(tool("bash", map[string]any{"cmd": 1}, "invalid tool arguments: command is required", true)),
		}, []int{3}},
		{"arguments rejected by Claude Code, pi and vigil", []st{
			do(tool("Edit", map[string]any{"file_path": "a.py"}, "<tool_use_error>InputValidationError: Edit failed due to the following issues:\nThe required parameter `old_string` is missing</tool_use_error>", true)),
			do(tool("edit", map[string]any{"file": "a.py"}, "Validation failed for tool \"edit\":\n  - path: must have required properties path", true)),
			do(tool("bash", map[string]any{"cmd": "ls"}, "bash: unknown argument \"cmd\" (bash takes: command, timeout)", true)),
			do(tool("bash", map[string]any{}, "bash: missing required argument \"command\" (string)", true)),
		}, []int{3}},
		{"calls Codex refused", []st{
			do(tool("shell", map[string]any{"command": []string{"python3", "-m", "unittest", "-q"}}, "unsupported call: shell", true)),
			do(tool("shell", map[string]any{"command": []string{"bash", "-lc", "python3 -m unittest -q"}}, "unsupported call: shell", true)),
			do(tool("exec_command", map[string]any{"command": "python3 -m unittest -q"}, "failed to parse function arguments: missing field `cmd` at line 1 column 36", true)),
			do(tool("exec_command", map[string]any{"cmd": "python3 -m unittest -q"}, "Process exited with code 0\nOutput:\nOK", false)),
		}, []int{2}}, // shell, refused by name, called again: the episode is reported there
		{"a tool that does not exist, again after a read", []st{
			do(tool("run_terminal_cmd", map[string]any{"command": "python3 -m unittest"}, `unknown tool "run_terminal_cmd"; the tools are: read, write, edit, bash`, true)),
			do(tool("read", map[string]any{"path": "invoice.py"}, "def total(): ...", false)),
			do(tool("run_terminal_cmd", map[string]any{"command": "python3 -m unittest -v"}, `unknown tool "run_terminal_cmd"; the tools are: read, write, edit, bash`, true)),
			do(tool("bash", map[string]any{"command": "python3 -m unittest"}, "OK", false)),
		}, []int{3}},
		{"three refusals spread over five steps", []st{
			do(tool("run_terminal_cmd", map[string]any{"command": "ls"}, `unknown tool "run_terminal_cmd"`, true)),
			do(tool("read", map[string]any{"path": "a.py"}, "x", false)),
			do(tool("execute_command", map[string]any{"cmd": "ls"}, `unknown tool "execute_command"`, true)),
			do(tool("read", map[string]any{"path": "b.py"}, "y", false)),
			do(tool("shell_exec", map[string]any{"cmd": "ls"}, `unknown tool "shell_exec"`, true)),
		}, []int{5}},
		{"two refusals far apart", []st{
			do(tool("run_terminal_cmd", map[string]any{"command": "ls"}, `unknown tool "run_terminal_cmd"`, true)),
			do(tool("read", map[string]any{"path": "a.py"}, "x", false)),
			do(tool("read", map[string]any{"path": "b.py"}, "x", false)),
			do(tool("read", map[string]any{"path": "c.py"}, "x", false)),
			do(tool("read", map[string]any{"path": "d.py"}, "x", false)),
			do(tool("read", map[string]any{"path": "e.py"}, "x", false)),
			do(tool("run_terminal_cmd", map[string]any{"command": "ls"}, `unknown tool "run_terminal_cmd"`, true)),
		}, nil},
		{"one refused call, then the right one", []st{
			do(tool("shell", map[string]any{"command": []string{"python3", "-m", "unittest", "-q"}}, "unsupported call: shell", true)),
			do(tool("exec_command", map[string]any{"cmd": "python3 -m unittest -q"}, "Process exited with code 1\nOutput:\nFAILED (failures=1)", false)),
			do(tool("exec_command", map[string]any{"cmd": "cat calc.py"}, "Process exited with code 0\nOutput:\ndef add(a, b):", false)),
		}, nil},
		{"a program that fails with such words is not rejected", []st{
			do(sh("python3 eval.py", "Traceback (most recent call last):\nValueError: unsupported call: foo", true)),
			do(sh("python3 eval.py --strict", "Traceback (most recent call last):\nValueError: unsupported call: bar", true)),
			do(sh("python3 eval.py --lax", "Traceback (most recent call last):\nValueError: unsupported call: baz", true)),
		}, nil},
		{"Claude Code's notice about deferred tools is not a rejection", []st{
			talk,
			st{text: "x", notes: []string{"The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them directly will fail with InputValidationError."}},
			st{text: "y", notes: []string{"The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them directly will fail with InputValidationError."}},
			st{text: "z", notes: []string{"The following deferred tools are now available via ToolSearch. Their schemas are NOT loaded — calling them directly will fail with InputValidationError."}},
		}, nil},
	})
}
