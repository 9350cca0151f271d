package rules

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

func act1(name string, args any, out string, isErr bool) Action {
	raw, _ := json.Marshal(args)
	var scratch []byte
	return newAction(llm.ToolCall("c", name, raw), llm.ToolResult("c", isErr, llm.Text(out)), true, &scratch)
}

func TestActionShapes(t *testing.T) {
	for _, c := range []struct {
		name    string
		a       Action
		kind    Kind
		command string
		path    string
		edits   int
		failed  bool
		code    int
	}{
		{"vigil bash", act1("bash", map[string]any{"command": "ls"}, "a\nb", false), KindRead, "ls", "", 0, false, -1},
		{"vigil bash exit code", act1("bash", map[string]any{"command": "make"}, "boom\n[exit code 2]", false), KindShell, "make", "", 0, true, 2},
		{"Claude Code Bash", act1("Bash", map[string]any{"command": "npm test", "description": "run"}, "Exit code 1\n1 failing", true), KindShell, "npm test", "", 0, true, 1},
		{"Codex exec_command string", act1("exec_command", map[string]any{"cmd": "rg foo"}, "a.go:1:foo\nProcess exited with code 0", false), KindSearch, "rg foo", "", 0, false, 0},
		{"Codex shell argv", act1("shell", map[string]any{"command": []string{"bash", "-lc", "cat a.txt"}}, "x", false), KindRead, "cat a.txt", "a.txt", 0, false, -1},
		{"mini-swe-agent", act1("bash", map[string]any{"command": "python x.py"}, "<returncode>1</returncode>\n<output>\nTraceback (most recent call last):\nValueError: x\n</output>", false), KindShell, "python x.py", "x.py", 0, true, 1},
		{"edit", act1("edit", map[string]any{"path": "a.go", "old_text": "x", "new_text": "y"}, "ok", false), KindEdit, "edit a.go", "a.go", 1, false, -1},
		{"Edit", act1("Edit", map[string]any{"file_path": "/r/a.go", "old_string": "x", "new_string": "y"}, "ok", false), KindEdit, "edit /r/a.go", "/r/a.go", 1, false, -1},
		{"MultiEdit", act1("MultiEdit", map[string]any{"file_path": "a.go", "edits": []map[string]string{{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}}}, "ok", false), KindEdit, "edit a.go", "a.go", 2, false, -1},
		{"str_replace_editor view", act1("str_replace_editor", map[string]any{"command": "view", "path": "/r/a.py"}, "1 x", false), KindRead, "view /r/a.py", "/r/a.py", 0, false, -1},
		{"str_replace_editor create", act1("str_replace_editor", map[string]any{"command": "create", "path": "/r/b.py", "file_text": "x"}, "ok", false), KindEdit, "create /r/b.py", "/r/b.py", 1, false, -1},
		{"apply_patch", act1("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Add File: b.py\n+z\n*** End Patch"}, "Done", false), KindEdit, "apply_patch", "a.py", 2, false, -1},
		{"write", act1("write", map[string]any{"path": "n.md", "content": "# n"}, "Wrote", false), KindEdit, "write n.md", "n.md", 1, false, -1},
		{"read", act1("Read", map[string]any{"file_path": "a.go"}, "package a", false), KindRead, "", "a.go", 0, false, -1},
		{"grep tool", act1("Grep", map[string]any{"pattern": "foo"}, "a.go", false), KindSearch, "", "", 0, false, -1},
		{"unknown tool", act1("browser_click", map[string]any{"ref": "e12"}, "clicked", false), KindOther, "", "", 0, false, -1},
		{"escaped JSON", act1("bash", map[string]any{"command": "echo \"a\\tb\" \u00e9 \U0001F600"}, "", false), KindRead, "echo \"a\\tb\" \u00e9 \U0001F600", "", 0, false, -1},
	} {
		a := c.a
		if a.Kind != c.kind || c.command != "" && a.Command != c.command || a.Path != c.path || len(a.Edits) != c.edits || a.Failed != c.failed || a.ExitCode != c.code {
			t.Errorf("%s: got kind %v command %q path %q edits %d failed %v exit %d\nwant kind %v command %q path %q edits %d failed %v exit %d",
				c.name, a.Kind, a.Command, a.Path, len(a.Edits), a.Failed, a.ExitCode, c.kind, c.command, c.path, c.edits, c.failed, c.code)
		}
	}
}

// TestRefusedAction checks that a call the harness rejected is a failure
// that ran nothing and changed nothing, whatever it asked for, and that a
// program's failure in the same words is not one.
func TestRefusedAction(t *testing.T) {
	for _, c := range []struct {
		name    string
		a       Action
		refused bool
	}{
		{"Codex: no such tool", act1("shell", map[string]any{"command": []string{"python3", "-m", "unittest"}}, "unsupported call: shell", true), true},
		{"Codex: arguments it cannot parse", act1("exec_command", map[string]any{"command": "pytest -q"}, "failed to parse function arguments: missing field `cmd` at line 1 column 36", true), true},
		{"vigil: no such tool", act1("Bash", map[string]any{"command": "python3 -m unittest -q"}, `unknown tool "Bash"; the tools are: read, write, edit, bash, grep, find, task`, true), true},
		{"Claude Code: no such tool", act1("bash", map[string]any{"command": "cat > a.py <<'EOF'\nx = 1\nEOF"}, "<tool_use_error>Error: No such tool available: bash. Tool names are case-sensitive: call Bash instead.</tool_use_error>", true), true},
		{"pi: arguments it rejects", act1("edit", map[string]any{"file": "a.py", "edits": []map[string]string{{"oldText": "a", "newText": "b"}}}, "Validation failed for tool \"edit\":\n  - path: must have required properties path", true), true},
		{"a program that failed", act1("bash", map[string]any{"command": "python3 -m unittest -q"}, "FAILED (failures=1)", true), false},
		{"a program's error in a harness's words, not its whole output", act1("exec_command", map[string]any{"cmd": "python3 eval.py"}, "Process exited with code 1\nOutput:\nValueError: unsupported call: foo\n", false), false},
		{"a rejection that succeeded is no rejection", act1("bash", map[string]any{"command": "echo unknown tool"}, "unknown tool", false), false},
	} {
		a := c.a
		if a.Refused != c.refused || a.Refused && (!a.Failed || a.Run || a.Test || len(a.Edits) > 0 || a.code != "" || len(a.scripts) > 0) {
			t.Errorf("%s: refused %v (failed %v, run %v, test %v, %d edits), want refused %v", c.name, a.Refused, a.Failed, a.Run, a.Test, len(a.Edits), c.refused)
		}
	}
}

func TestActionsOfStep(t *testing.T) {
	steps := build(st{calls: []call{sh("ls", "a", false), {tool: "bash", args: map[string]any{"command": "sleep 100"}, silent: true}}})
	got := Actions(&steps[0])
	if len(got) != 2 || !got[0].Answered || got[1].Answered || got[1].Failed {
		t.Errorf("got %+v", got)
	}
	if got := Actions(&build(say("just talking"))[0]); got != nil {
		t.Errorf("a reply without calls has actions %v", got)
	}
}

// flatMap reads raw with flatObject into a map.
func flatMap(raw string) (map[string]string, bool) {
	got := map[string]string{}
	o := flatObject{raw: []byte(raw)}
	for o.next() {
		got[string(o.key)] = o.value()
	}
	return got, o.ok()
}

func TestFlatObject(t *testing.T) {
	for _, raw := range []string{
		`{}`, ` { "a" : "b" , "c":"d" } `, `{"command":"cat > f <<'EOF'\nx\tq\u00e9\ud83d\ude00\nEOF"}`, `{"a":"\"\\\/"}`,
	} {
		var want map[string]string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatal(err)
		}
		got, ok := flatMap(raw)
		if !ok {
			t.Errorf("flatObject(%s) refused", raw)
			continue
		}
		if len(got) != len(want) {
			t.Errorf("flatObject(%s) = %v, want %v", raw, got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("flatObject(%s)[%q] = %q, want %q", raw, k, got[k], v)
			}
		}
	}
	for _, raw := range []string{`{"a":1}`, `{"a":["x"]}`, `[]`, `{"a":"b"`, `{"a":"b"} x`, `"s"`, `{"a":"\q"}`} {
		if _, ok := flatMap(raw); ok {
			t.Errorf("flatObject(%s) accepted", raw)
		}
	}
}

func FuzzFlatObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":"b"}`, `{"command":"x\ny\u0041"}`, `{"a":1}`, `{"a":"\ud800"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		got, ok := flatMap(raw)
		if !ok {
			return
		}
		// Whatever flatObject accepts, encoding/json reads the same way.
		var want map[string]string
		if err := json.Unmarshal([]byte(raw), &want); err != nil {
			t.Fatalf("flatObject accepted %q, encoding/json says %v", raw, err)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("%q: key %q: flatObject %q, encoding/json %q", raw, k, got[k], v)
			}
		}
	})
}

func describeSamples() []string {
	return []string{"", " ", `{"path": "a.py"}`, "{\n  \"path\":\t\"a b\" ,\r\n \"x\": 1 }  ", strings.Repeat(`{"k": "v w"} `, 60),
		strings.Repeat("x", 399) + " y", strings.Repeat("x", 400) + " y", strings.Repeat("x", 398) + "  y z", "\u00a0a\u0085b é", "a\vb\fc"}
}

func TestDescribeCall(t *testing.T) {
	for _, raw := range describeSamples() {
		if got, want := describeCall("read ", "p.go", json.RawMessage(raw)), "read p.go "+compactJSON(json.RawMessage(raw)); got != want {
			t.Errorf("describeCall(%q) = %q, want %q", raw, got, want)
		}
	}
}

func FuzzDescribeCall(f *testing.F) {
	for _, s := range describeSamples() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if got, want := describeCall("grep", "", json.RawMessage(raw)), "grep "+compactJSON(json.RawMessage(raw)); got != want {
			t.Errorf("describeCall(%q) = %q, want %q", raw, got, want)
		}
	})
}
