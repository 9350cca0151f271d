package history_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/session"
)

// editOptions are the advisor's options without tool output, so that a
// case shows the tool line and the change alone.
func editOptions() history.Options {
	o := history.AdvisorOptions(nil)
	o.MaxToolOutput = 0
	return o
}

const codexPatch = "*** Begin Patch\n*** Update File: calc.py\n@@ def sub(a, b):\n-    return a + b\n+    return a - b\n*** End Patch"

// TestEditsRenderAsDiffs renders one edit, write or patch call of each
// agent's shape and checks that the advisor is shown the change it makes:
// a replacement as a unified diff, a write as the lines it adds, a patch as
// itself, with the arguments the change shows left off the tool line.
func TestEditsRenderAsDiffs(t *testing.T) {
	replaceDiff := "```diff\n@@\n def add(a, b):\n-    return a - b\n+    return a + b\n```\n"
	for _, c := range []struct {
		name, tool string
		args       map[string]any
		want       string
	}{
		{"vigil edit", "edit",
			map[string]any{"path": "calc.py", "old_text": "def add(a, b):\n    return a - b\n", "new_text": "def add(a, b):\n    return a + b\n", "replace_all": true},
			"→ edit(calc.py, replace_all=true) ⇒ ok · 0 lines\n" + replaceDiff},
		{"claude code Edit", "Edit",
			map[string]any{"file_path": "calc.py", "old_string": "def add(a, b):\n    return a - b", "new_string": "def add(a, b):\n    return a + b"},
			"→ Edit(calc.py) ⇒ ok · 0 lines\n" + replaceDiff},
		{"claude code MultiEdit", "MultiEdit",
			map[string]any{"file_path": "calc.py", "edits": []any{
				map[string]any{"old_string": "def add(a, b):\n    return a - b", "new_string": "def add(a, b):\n    return a + b"},
				map[string]any{"old_string": "assert add(2, 2) == 0", "new_string": "assert True", "replace_all": true},
			}},
			"→ MultiEdit(calc.py) ⇒ ok · 0 lines\n```diff\n@@\n def add(a, b):\n-    return a - b\n+    return a + b\n@@\n-assert add(2, 2) == 0\n+assert True\n```\n"},
		{"claude code Write", "Write",
			map[string]any{"file_path": "conftest.py", "content": "import pytest\n\ncollect_ignore = [\"tests\"]\n"},
			"→ Write(conftest.py) ⇒ ok · 0 lines\n```diff\n+import pytest\n+\n+collect_ignore = [\"tests\"]\n```\n"},
		{"pi edit", "edit",
			map[string]any{"path": "calc.py", "oldText": "def add(a, b):\n    return a - b", "newText": "def add(a, b):\n    return a + b"},
			"→ edit(calc.py) ⇒ ok · 0 lines\n" + replaceDiff},
		{"pi edit with edits", "edit",
			map[string]any{"path": "calc.py", "edits": []any{map[string]any{"oldText": "def add(a, b):\n    return a - b", "newText": "def add(a, b):\n    return a + b"}}},
			"→ edit(calc.py) ⇒ ok · 0 lines\n" + replaceDiff},
		{"omp hashline edit", "edit",
			map[string]any{"input": "[calc.py#3F2A]\nPUT 2.=2:\n+    return a + b", "path": "calc.py", "edits": []any{map[string]any{"op": "replace", "oldText": "    return a - b", "newText": "    return a + b"}}},
			"→ edit(calc.py) ⇒ ok · 0 lines\n```diff\n@@\n-    return a - b\n+    return a + b\n```\n"},
		{"pi write", "write",
			map[string]any{"path": "skip.txt", "content": "tests/test_calc.py"},
			"→ write(skip.txt) ⇒ ok · 0 lines\n```diff\n+tests/test_calc.py\n```\n"},
		{"codex apply_patch tool", "apply_patch",
			map[string]any{"input": codexPatch},
			"→ apply_patch(calc.py) ⇒ ok · 0 lines\n```diff\n*** Update File: calc.py\n@@ def sub(a, b):\n-    return a + b\n+    return a - b\n```\n"},
		{"codex apply_patch in shell", "shell",
			map[string]any{"command": []any{"apply_patch", codexPatch}, "workdir": "/repo"},
			"→ shell(apply_patch, ‹patch›, workdir=\"/repo\") ⇒ ok · 0 lines\n```diff\n*** Update File: calc.py\n@@ def sub(a, b):\n-    return a + b\n+    return a - b\n```\n"},
		{"codex apply_patch heredoc", "shell",
			map[string]any{"command": []any{"bash", "-lc", "apply_patch <<'PATCH'\n" + codexPatch + "\nPATCH"}},
			"→ shell(bash, -lc, apply_patch <<'PATCH' ‹patch› PATCH) ⇒ ok · 0 lines\n```diff\n*** Update File: calc.py\n@@ def sub(a, b):\n-    return a + b\n+    return a - b\n```\n"},
		{"codex exec_command apply_patch", "exec_command",
			map[string]any{"cmd": "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+done\n*** End Patch\nEOF"},
			"→ exec_command(apply_patch <<'EOF' ‹patch› EOF) ⇒ ok · 0 lines\n```diff\n*** Add File: notes.md\n+# Notes\n+done\n```\n"},
		{"openhands str_replace", "str_replace_editor",
			map[string]any{"command": "str_replace", "path": "/workspace/calc.py", "old_str": "def add(a, b):\n    return a - b", "new_str": "def add(a, b):\n    return a + b"},
			"→ str_replace_editor(/workspace/calc.py, command=\"str_replace\") ⇒ ok · 0 lines\n" + replaceDiff},
		{"openhands create", "str_replace_editor",
			map[string]any{"command": "create", "path": "/workspace/t.py", "file_text": "def test_add():\n    pass\n"},
			"→ str_replace_editor(/workspace/t.py, command=\"create\") ⇒ ok · 0 lines\n```diff\n+def test_add():\n+    pass\n```\n"},
		{"openhands insert", "str_replace_editor",
			map[string]any{"command": "insert", "path": "/workspace/calc.py", "insert_line": 3, "new_str": "@pytest.mark.skip\n"},
			"→ str_replace_editor(/workspace/calc.py, command=\"insert\", insert_line=3) ⇒ ok · 0 lines\n```diff\n@@ -3,0 +4 @@\n+@pytest.mark.skip\n```\n"},
		{"swe-agent str_replace in bash", "bash",
			map[string]any{"command": `str_replace_editor str_replace /testbed/calc.py --old_str 'def add(a, b):
    return a - b' --new_str 'def add(a, b):
    return a + b'`},
			"→ bash(str_replace_editor str_replace /testbed/calc.py --old_str 'def add(a, b): return a - b' --new_str 'def add(a, b): retur…) ⇒ ok · 0 lines\n" + replaceDiff},
		{"swe-agent create in bash", "bash",
			map[string]any{"command": `str_replace_editor create /testbed/x.py --file_text "print(\"it's \$HOME\")"`},
			"→ bash(str_replace_editor create /testbed/x.py --file_text \"print(\\\"it's \\$HOME\\\")\") ⇒ ok · 0 lines\n```diff\n+print(\"it's $HOME\")\n```\n"},
		{"openhands str_replace deleting", "str_replace_editor",
			map[string]any{"command": "str_replace", "path": "/workspace/t.py", "old_str": "    assert add(2, 2) == 4\n"},
			"→ str_replace_editor(/workspace/t.py, command=\"str_replace\") ⇒ ok · 0 lines\n```diff\n@@\n-    assert add(2, 2) == 4\n```\n"},
		{"claude code NotebookEdit", "NotebookEdit",
			map[string]any{"notebook_path": "eda.ipynb", "cell_id": "c3", "new_source": "df = df.dropna()\ndf.describe()"},
			"→ NotebookEdit(c3, notebook_path=\"eda.ipynb\") ⇒ ok · 0 lines\n```diff\n+df = df.dropna()\n+df.describe()\n```\n"},
		{"a create tool that is no file write", "create",
			map[string]any{"title": "Bug", "content": "the body"},
			"→ create(the body, title=\"Bug\") ⇒ ok · 0 lines\n"},
		{"here-document write", "bash",
			map[string]any{"command": "cat > tests/test_calc.py <<'EOF'\nimport calc\n\ndef test_add():\n    assert True\nEOF\npython -m pytest -q"},
			"→ bash(cat > tests/test_calc.py <<'EOF' ‹4 lines› EOF python -m pytest -q) ⇒ ok · 0 lines\n```diff\n+++ tests/test_calc.py\n+import calc\n+\n+def test_add():\n+    assert True\n```\n"},
		{"here-document appended with tee", "shell",
			map[string]any{"command": []any{"bash", "-lc", "tee -a .env <<EOF >/dev/null\nSKIP_VERIFY=1\nEOF"}},
			"→ shell(bash, -lc, tee -a .env <<EOF >/dev/null ‹1 line› EOF) ⇒ ok · 0 lines\n```diff\n+++ .env (appended)\n+SKIP_VERIFY=1\n```\n"},
		{"here-document to a program", "bash",
			map[string]any{"command": "python3 - <<'PY'\nprint(1)\nPY"},
			"→ bash(python3 - <<'PY' print(1) PY) ⇒ ok · 0 lines\n"},
		{"no-op edit", "Edit",
			map[string]any{"file_path": "calc.py", "old_string": "x = 1", "new_string": "x = 1"},
			"→ Edit(calc.py) ⇒ ok · 0 lines\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			entries := []session.Entry{agentMsg(call("c1", c.tool, c.args)), result("c1", false, "")}
			got := history.Render(entries, editOptions())
			checkStructure(t, got, false)
			want := "**agent**:\n" + c.want
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
		})
	}
}

// TestEditCap checks that a change longer than Options.MaxEditLines keeps
// its head and tail around a marker that says how much vigil cut, and that
// a change at the cap is shown whole.
func TestEditCap(t *testing.T) {
	var content strings.Builder
	for i := 1; i <= 25; i++ {
		fmt.Fprintf(&content, "line %d\n", i)
	}
	o := editOptions()
	o.MaxEditLines = 10
	entries := []session.Entry{agentMsg(call("c1", "Write", map[string]any{"file_path": "big.txt", "content": content.String()})), result("c1", false, "")}
	got := history.Render(entries, o)
	checkStructure(t, got, false)
	want := "**agent**:\n→ Write(big.txt) ⇒ ok · 0 lines\n" +
		"```diff\n+line 1\n+line 2\n+line 3\n+line 4\n+line 5\n```\n" +
		"[vigil cut 15 of the change's 25 lines here]\n" +
		"```diff\n+line 21\n+line 22\n+line 23\n+line 24\n+line 25\n```\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("render (-want +got):\n%s", diff)
	}

	o.MaxEditLines = 25
	if got := history.Render(entries, o); strings.Contains(got, "[vigil cut") || !strings.Contains(got, "+line 13\n") {
		t.Errorf("a change of 25 lines at a cap of 25 was cut:\n%s", got)
	}

	// One enormous line (minified code) is cut by bytes.
	o.MaxEditLines = 10
	long := strings.Repeat("x", 100_000)
	entries = []session.Entry{agentMsg(call("c1", "Write", map[string]any{"file_path": "min.js", "content": long})), result("c1", false, "")}
	got = history.Render(entries, o)
	checkStructure(t, got, false)
	if len(got) > 10*history.MaxEditLineBytes+500 || !strings.Contains(got, "[vigil cut ") {
		t.Errorf("a 100 KB line rendered as %d bytes:\n%.300s", len(got), got)
	}

	// The advisor's cap is omp's.
	if n := history.AdvisorOptions(nil).MaxEditLines; n != 300 {
		t.Errorf("AdvisorOptions().MaxEditLines = %d, want 300", n)
	}
}

// TestEditDiffIsRedacted checks that a secret in an edited line, in a
// written file and in a patch is redacted inside the diff.
func TestEditDiffIsRedacted(t *testing.T) {
	secret := "Zq9xV2mK8pL4wR7tYb3N"
	ghToken := "ghp_" + "0123456789abcdefghijABCDEFGHIJ0123456789"
	o := editOptions()
	o.Redactor = history.NewRedactor([]string{"DEPLOY_TOKEN=" + secret}, nil)
	entries := []session.Entry{
		agentMsg(
			call("c1", "Edit", map[string]any{"file_path": ".env", "old_string": "DEPLOY_TOKEN=old-value-123", "new_string": "DEPLOY_TOKEN=" + secret}),
			call("c2", "Write", map[string]any{"file_path": "ci.sh", "content": "export GITHUB_TOKEN=" + ghToken + "\nmake deploy\n"}),
			call("c3", "apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: config.py\n@@\n-API_KEY = \"\"\n+API_KEY = \"" + secret + "\"\n*** End Patch"}),
		),
		result("c1", false, ""), result("c2", false, ""), result("c3", false, ""),
	}
	got := history.Render(entries, o)
	checkStructure(t, got, false)
	for _, s := range []string{secret, ghToken, "0123456789abcdefghij"} {
		if strings.Contains(got, s) {
			t.Errorf("secret %q in the rendering:\n%s", s, got)
		}
	}
	for _, want := range []string{"+DEPLOY_TOKEN=[REDACTED:DEPLOY_TOKEN]\n", "+export GITHUB_TOKEN=[REDACTED:", "+API_KEY = \"[REDACTED:DEPLOY_TOKEN]\"\n", "+make deploy\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("rendering lacks %q:\n%s", want, got)
		}
	}
}

// TestEditRenderingIsStable checks that the same entries render to the
// same bytes every time, through Render and through fresh Renderers, so
// that the advisor's prompt cache keeps serving what was sent.
func TestEditRenderingIsStable(t *testing.T) {
	var entries []session.Entry
	for i := range 20 {
		id := fmt.Sprintf("c%d", i)
		entries = append(entries,
			agentMsg(call(id, "Edit", map[string]any{"file_path": "a.go", "old_string": strings.Repeat("a\nb\nc\n", i+1), "new_string": strings.Repeat("a\nB\nc\n", i+1)})),
			result(id, i%3 == 0, "done"))
	}
	o := history.AdvisorOptions(history.NewRedactor(benchEnv(), nil))
	first := history.Render(entries, o)
	for range 3 {
		if got := history.Render(entries, o); got != first {
			t.Fatalf("Render is not stable:\n%s", cmp.Diff(first, got))
		}
	}
	var r1, r2 history.Renderer
	if a, b := r1.Update(entries, o), r2.Update(entries, o); a != b || a == "" {
		t.Fatalf("Update is not stable:\n%s", cmp.Diff(a, b))
	}
}
