package rules

import (
	"strings"
	"testing"
)

func TestRepeatedFailure(t *testing.T) {
	fail := func(cmd, out string) st { return do(sh(cmd, out, true)) }
	ok := func(cmd string) st { return do(sh(cmd, "ok", false)) }
	read := do(sh("cat notes.txt", "notes", false))
	long := []st{fail("make", "E: boom"), fail("make", "E: boom")}
	for range 45 {
		long = append(long, read)
	}
	long = append(long, fail("make", "E: boom"))

	runCases(t, "repeated-failure", []detectorCase{
		{"three identical failures", []st{fail("go test ./...", "FAIL x"), fail("go test ./...", "FAIL x"), fail("go test ./...", "FAIL x")}, []int{3}},
		{"calls the harness refused are format-errors' to report", []st{
			do(tool("Bash", map[string]any{"command": "make"}, `unknown tool "Bash"; the tools are: read, write, edit, bash`, true)),
			do(tool("Bash", map[string]any{"command": "make"}, `unknown tool "Bash"; the tools are: read, write, edit, bash`, true)),
			do(tool("Bash", map[string]any{"command": "make"}, `unknown tool "Bash"; the tools are: read, write, edit, bash`, true)),
		}, nil},
		{"two are a retry", []st{fail("go test ./...", "FAIL x"), fail("go test ./...", "FAIL x")}, nil},
		{"a different error is progress", []st{fail("make", "E: missing a"), fail("make", "E: missing b"), fail("make", "E: missing c")}, nil},
		{"volatile details are ignored", []st{
			fail("./check", "2024-01-02T10:00:01Z pid 4121 error at 0x7ffd3a2b1c: timeout after 0.53s"),
			fail("./check", "2024-01-02T10:00:09Z pid 4188 error at 0x7ffd3a9e00: timeout after 0.61s"),
			fail("./check", "2024-01-02T10:01:13Z pid 4205 error at 0x7ffd3aa010: timeout after 0.49s"),
		}, []int{3}},
		{"command noise is ignored", []st{
			fail("go test ./...", "FAIL pkg"),
			fail("cd /repo && go test ./... 2>&1 | tail -20", "FAIL pkg"),
			fail("cd /repo &&   go test ./...   2>&1 | head -n 50", "FAIL pkg"),
		}, []int{3}},
		{"nearly the same command, the same error", []st{
			fail(`python -c "import django; print(django.setup())"`, "django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but settings are not configured."),
			fail(`python -c "from django.conf import settings; print(settings.DEBUG)"`, "django.core.exceptions.ImproperlyConfigured: Requested setting DEBUG, but settings are not configured."),
			fail(`python -c "import django.db.models as m; print(m.Q())"`, "django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS, but settings are not configured."),
		}, nil}, // the settings named differ: not the same error
		{"nearly the same command, exactly the same error", []st{
			fail(`python -c "import numpy; print(1)"`, "ModuleNotFoundError: No module named 'numpy'"),
			fail(`python -c "import numpy as np; print(np.ones(2))"`, "ModuleNotFoundError: No module named 'numpy'"),
			fail(`python -c "from numpy import ones"`, "ModuleNotFoundError: No module named 'numpy'"),
		}, []int{3}},
		{"different scripts are different programs", []st{
			fail("python a.py", "ModuleNotFoundError: No module named 'numpy'"),
			fail("python b.py", "ModuleNotFoundError: No module named 'numpy'"),
			fail("python c.py", "ModuleNotFoundError: No module named 'numpy'"),
		}, nil},
		{"a success ends the episode", []st{fail("make", "E"), fail("make", "E"), ok("make"), fail("make", "E")}, nil},
		{"one report per episode", []st{fail("make", "E"), fail("make", "E"), fail("make", "E"), fail("make", "E"), fail("make", "E")}, []int{3}},
		{"a new episode after a success", []st{
			fail("make", "E"), fail("make", "E"), fail("make", "E"), ok("make"),
			fail("make", "E"), fail("make", "E"), fail("make", "E"),
		}, []int{3, 7}},
		{"mini-swe-agent return codes", []st{
			do(sh("python repro.py", "<returncode>1</returncode>\n<output>\nValueError: bad\n</output>", false)),
			do(sh("python repro.py", "<returncode>1</returncode>\n<output>\nValueError: bad\n</output>", false)),
			do(sh("python repro.py", "<returncode>1</returncode>\n<output>\nValueError: bad\n</output>", false)),
		}, []int{3}},
		{"vigil exit codes", []st{
			do(sh("npm test", "1 failing\n[exit code 1]", false)),
			do(sh("npm test", "1 failing\n[exit code 1]", false)),
			do(sh("npm test", "1 failing\n[exit code 1]", false)),
		}, []int{3}},
		{"failures too far apart", long, nil},
		{"the same failing edit", []st{
			do(tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "x = 2"}, "No replacement was performed: old_str not found", true)),
			do(tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "x = 2"}, "No replacement was performed: old_str not found", true)),
			do(tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "a.py", "old_str": "x = 1", "new_str": "x = 2"}, "No replacement was performed: old_str not found", true)),
		}, []int{3}},
		{"grep finding nothing is not a failure", []st{
			do(sh("grep -n foo a.py", "<returncode>1</returncode>\n<output>\n</output>", false)),
			do(sh("grep -n foo a.py", "<returncode>1</returncode>\n<output>\n</output>", false)),
			do(sh("grep -n foo a.py", "<returncode>1</returncode>\n<output>\n</output>", false)),
		}, nil},
	})
}

func TestRepeatedFailureMessage(t *testing.T) {
	got := review(Settings{}, do(sh("go test ./...", "--- FAIL: TestX\nFAIL", true)), do(sh("go test ./...", "--- FAIL: TestX\nFAIL", true)), do(sh("go test ./...", "--- FAIL: TestX\nFAIL", true)))
	if len(got) != 1 {
		t.Fatalf("got %v, want one finding", got)
	}
	f := got[0]
	if f.StartStep != 1 || f.EndStep != 3 || f.Severity != Concern || f.Evidence != "FAIL" {
		t.Errorf("got %+v", f)
	}
	if !strings.Contains(f.Message, "`go test ./...` has failed the same way 3 times") || strings.Contains(f.Message, "\n") {
		t.Errorf("message %q", f.Message)
	}
}

func TestFailureRepeatsSetting(t *testing.T) {
	steps := []st{do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true)), do(sh("make", "E", true))}
	got := only(review(Settings{FailureRepeats: 4}, steps...), "repeated-failure")
	if len(got) != 1 || got[0].EndStep != 4 {
		t.Errorf("with FailureRepeats 4 got %v, want one finding at step 4", got)
	}
	if got := review(Settings{Disabled: []string{"repeated-failure", "test-rerun", "no-progress-loop"}}, steps...); len(got) != 0 {
		t.Errorf("disabled detector reported %v", got)
	}
}
