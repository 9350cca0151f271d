package rules

import "testing"

func TestTestRerun(t *testing.T) {
	test := do(sh("python -m pytest tests/test_a.py -q", "3 passed in 0.1s", false))
	read := do(sh("sed -n 1,20p a.py", "def f(): pass", false))
	edit := do(tool("edit", map[string]any{"path": "a.py", "old_text": "pass", "new_text": "return 1"}, "ok", false))
	runCases(t, "test-rerun", []detectorCase{
		{"three runs with only reads between", []st{test, read, test, read, test}, []int{5}},
		{"an edit between runs", []st{test, read, test, edit, test}, nil},
		{"an install between runs", []st{test, test, do(sh("pip install requests", "Successfully installed", false)), test}, nil},
		{"another program between runs", []st{test, do(sh("./tools/install slugkit", "installed", false)), test, do(sh("./tools/install colorkit", "installed", false)), test}, nil},
		{"calls the harness refused are not runs", []st{
			do(tool("shell", map[string]any{"command": []string{"python", "-m", "pytest", "-q"}}, "unsupported call: shell", true)),
			do(tool("shell", map[string]any{"command": []string{"bash", "-lc", "python -m pytest -q"}}, "unsupported call: shell", true)),
			do(tool("Bash", map[string]any{"command": "python -m pytest -q"}, `unknown tool "Bash"; the tools are: read, write, edit, bash`, true)),
		}, nil},
		{"a refused call between runs changes nothing", []st{
			test, do(tool("Bash", map[string]any{"command": "pip install requests"}, `unknown tool "Bash"; the tools are: read, write, edit, bash`, true)),
			test, read, test,
		}, []int{5}},
		{"scripts count too", []st{
			do(sh("python repro.py", "bug", false)), read,
			do(sh("python repro.py", "bug", false)), read,
			do(sh("cd /testbed && python repro.py 2>&1", "bug", false)),
		}, []int{5}},
	})
}
