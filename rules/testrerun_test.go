package rules

import (
	"fmt"
	"testing"
)

func TestTestRerun(t *testing.T) {
	test := do(sh("python -m pytest tests/test_a.py -q", "3 passed in 0.1s", false))
	failing := do(sh("python -m pytest tests/test_a.py -q", "1 failed, 2 passed in 0.1s", true))
	script := do(sh("python repro.py", "bug", false))
	read := do(sh("sed -n 1,20p a.py", "def f(): pass", false))
	edit := do(tool("edit", map[string]any{"path": "a.py", "old_text": "pass", "new_text": "return 1"}, "ok", false))
	refused := do(tool("Bash", map[string]any{"command": "pip install requests"}, `unknown tool "Bash"; the tools are: read, write, edit, bash`, true))
	runCases(t, "test-rerun", []detectorCase{
		{"passing tests run again with only a read between", []st{test, read, test}, []int{3}},
		{"passing tests run again at once", []st{edit, test, test}, []int{3}},
		{"an edit between runs", []st{test, read, edit, test, read}, nil},
		{"an install between runs", []st{test, do(sh("pip install requests", "Successfully installed", false)), test}, nil},
		{"another program between runs", []st{test, do(sh("./tools/install slugkit", "installed", false)), test, do(sh("./tools/install colorkit", "installed", false)), test}, nil},
		{"failing tests retried once", []st{failing, read, failing}, nil},
		{"tests that failed, then passed twice, with nothing changed", []st{failing, read, test, read, test}, []int{5}},
		{"the same tests in another environment", []st{
			do(sh("DJANGO_SETTINGS_MODULE=settings_a python -m pytest -q", "3 passed", false)), read,
			do(sh("python -m pytest -q", "3 passed", false)), read,
			do(sh("DJANGO_SETTINGS_MODULE=settings_b python -m pytest -q", "3 passed", false)),
		}, nil},
		{"a script run twice is a retry", []st{script, read, script}, nil},
		{"a script three times with only reads between", []st{script, read, script, read, script}, []int{5}},
		{"calls the harness refused are not runs", []st{
			do(tool("shell", map[string]any{"command": []string{"python", "-m", "pytest", "-q"}}, "unsupported call: shell", true)),
			do(tool("shell", map[string]any{"command": []string{"bash", "-lc", "python -m pytest -q"}}, "unsupported call: shell", true)),
			do(tool("Bash", map[string]any{"command": "python -m pytest -q"}, `unknown tool "Bash"; the tools are: read, write, edit, bash`, true)),
		}, nil},
		{"a refused call between runs changes nothing", []st{script, refused, script, read, script}, []int{5}},
		{"a refused call between passing runs changes nothing", []st{test, refused, test}, []int{3}},
		{"scripts count too", []st{
			do(sh("python repro.py", "bug", false)), read,
			do(sh("python repro.py", "bug", false)), read,
			do(sh("cd /testbed && python repro.py 2>&1", "bug", false)),
		}, []int{5}},
	})
}

// TestTestRerunSetting checks that passing tests are reported one run
// before TestReruns, and never at their first run.
func TestTestRerunSetting(t *testing.T) {
	test := do(sh("go test ./...", "ok  \tpkg/a\t0.1s", false))
	read := do(sh("cat a.go", "package a", false))
	for _, c := range []struct{ reruns, want int }{{1, 2}, {2, 2}, {3, 2}, {5, 4}} {
		var steps []st
		for range 6 {
			steps = append(steps, test, read)
		}
		var ends []int
		for _, f := range only(review(Settings{TestReruns: c.reruns}, steps...), "test-rerun") {
			ends = append(ends, f.EndStep)
		}
		// The runs are at the odd steps: the k-th run is step 2k-1.
		if want := fmt.Sprint([]int{2*c.want - 1}); fmt.Sprint(ends) != want {
			t.Errorf("TestReruns %d: reported at steps %v, want %s", c.reruns, ends, want)
		}
	}
}
