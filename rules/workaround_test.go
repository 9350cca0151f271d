package rules

import "testing"

func TestWorkaround(t *testing.T) {
	failTest := do(sh("python -m pytest tests/test_api.py", "1 failed, 4 passed in 0.2s", true))
	read := do(sh("cat tests/test_api.py", "def test_x(): assert f() == 1", false))
	runCases(t, "workaround", []detectorCase{
		{"|| true after a failure", []st{failTest, do(sh("python -m pytest tests/test_api.py || true", "1 failed", false))}, []int{2}},
		{"--no-verify after a failed commit", []st{
			do(sh("git commit -m 'fix'", "pre-commit hook failed: lint", true)),
			do(sh("git commit --no-verify -m 'fix'", "[main 1a2b3c4] fix", false)),
		}, []int{2}},
		{"deselecting the failing test", []st{failTest, read, do(sh(`python -m pytest tests/test_api.py -k "not test_x"`, "4 passed", false))}, []int{3}},
		{"a skip marker", []st{failTest, do(tool("edit", map[string]any{
			"path": "tests/test_api.py", "old_text": "def test_x():", "new_text": "@pytest.mark.skip(reason=\"flaky\")\ndef test_x():",
		}, "ok", false))}, []int{2}},
		{"a commented-out assertion", []st{failTest, do(tool("Edit", map[string]any{
			"file_path": "tests/test_api.py", "old_string": "    assert f() == 1\n", "new_string": "    # assert f() == 1\n    pass\n",
		}, "ok", false))}, []int{2}},
		{"nothing failed", []st{read, do(sh("make lint || true", "", false))}, nil},
		{"the failure was long ago", []st{failTest, read, read, read, read, do(sh("python -m pytest tests/test_api.py || true", "", false))}, nil},
		{"a different program", []st{failTest, do(sh("find . -name '*.pyc' -delete || true", "", false))}, nil},
		{"a fix is not a workaround", []st{failTest, do(tool("edit", map[string]any{"path": "api.py", "old_text": "return 0", "new_text": "return 1"}, "ok", false))}, nil},
	})
}

func TestProgramKey(t *testing.T) {
	cases := map[string]string{
		"":                             "",
		"   ":                          "",
		"ls -la":                       "ls",
		"git commit -m x":              "git commit",
		"/usr/bin/git  status":         "git status",
		"python -m pytest -q":          "python -m pytest",
		"python\t-m\npytest":           "python -m pytest",
		"/opt/bin/python3 -m pytest x": "python3 -m pytest",
		"python3 x.py":                 "python3 x.py",
		" go test ./...":               "go test",
		"python -m":                    "python -m",
		"gh":                           "gh",
	}
	for in, want := range cases {
		if got := programKey(in); got != want {
			t.Errorf("programKey(%q) = %q, want %q", in, got, want)
		}
	}
}
