package transcript

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// ipy is an early resolver run_ipython action running code, and its
// observation.
func ipy(code, thought, output string) []any {
	return []any{
		map[string]any{"code": code, "thought": thought, "include_extra": true, "action": "run_ipython", "is_confirmed": "confirmed", "kernel_init_code": ""},
		map[string]any{"content": output + "\n[Jupyter current working directory: /workspace]", "code": code, "observation": "run_ipython"},
	}
}

// TestOpenHandsIPythonEdits: the resolver's agent edits through
// run_ipython with the agentskills helpers; a cell that is one call of
// such a helper is the edit it makes, with its file, and "No exact match
// found" is a failed edit. Other code stays run_ipython.
func TestOpenHandsIPythonEdits(t *testing.T) {
	var history []any
	history = append(history, map[string]any{"content": "Fix it.", "action": "message", "source": "user"})
	history = append(history, ipy("edit_file_by_replace(\n    '/workspace/calc.py',\n    to_replace=\"    return a -  b\",\n    new_content=\"    return a + b\",\n)",
		"add() subtracts.", "---------------------------------------------------------------------------\nValueError                                Traceback (most recent call last)\nValueError: No exact match found in /workspace/calc.py for\n```\n    return a -  b\n```")...)
	history = append(history, ipy("edit_file_by_replace('/workspace/calc.py', '    return a - b', '    return a + b')",
		"Exact line now.", "[File: /workspace/calc.py (5 lines total after edit)]\n1|def add(a, b):\n2|    return a + b\n[File updated (edited at line 2).]")...)
	history = append(history, ipy(`insert_content_at_line(file_name="/workspace/test_calc.py", line_number=1, content='import calc\n')`,
		"A test.", "[File updated (edited at line 1).]")...)
	history = append(history, ipy("append_file('/workspace/NOTES.md', r'''fixed add\\n''')", "Note it.", "[File updated.]")...)
	history = append(history, ipy("print(open('calc.py').read())", "Look.", "def add(a, b):")...)
	line, err := json.Marshal(map[string]any{"instance_id": "a__b-1", "instruction": "Fix it.", "history": history, "error": nil})
	if err != nil {
		t.Fatal(err)
	}
	r, err := readTranscript(bytes.NewReader(append(line, '\n')), "output.jsonl")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	if len(run.steps) != 5 {
		t.Fatalf("%d steps, want 5", len(run.steps))
	}
	for i, want := range []struct {
		name, args string
		failed     bool
	}{
		{"str_replace_editor", `{"command":"str_replace","new_str":"    return a + b","old_str":"    return a -  b","path":"/workspace/calc.py"}`, true},
		{"str_replace_editor", `{"command":"str_replace","new_str":"    return a + b","old_str":"    return a - b","path":"/workspace/calc.py"}`, false},
		{"str_replace_editor", `{"command":"insert","insert_line":1,"new_str":"import calc\n","path":"/workspace/test_calc.py"}`, false},
		{"str_replace_editor", `{"command":"insert","new_str":"fixed add\\n","path":"/workspace/NOTES.md"}`, false},
		{"run_ipython", `{"code":"print(open('calc.py').read())","include_extra":true}`, false},
	} {
		s := run.steps[i]
		c := s.Calls()[0]
		res, _ := s.Result(c.ID)
		var got, wantArgs any
		json.Unmarshal(c.Arguments, &got)
		json.Unmarshal([]byte(want.args), &wantArgs)
		gotJSON, _ := json.Marshal(got)
		wantJSON, _ := json.Marshal(wantArgs)
		if c.Name != want.name || !bytes.Equal(gotJSON, wantJSON) || res.IsError != want.failed {
			t.Errorf("step %d: %s %s failed %v; want %s %s failed %v", i+1, c.Name, gotJSON, res.IsError, want.name, wantJSON, want.failed)
		}
	}
}

// TestParseSkillCall: the cells that are one helper call, in the ways a
// model writes Python literals, and those that are not.
func TestParseSkillCall(t *testing.T) {
	for _, tc := range []struct {
		code, want string
	}{
		{`edit_file_by_replace("a.py", "x", "y")`, `edit_file_by_replace a.py|x|y`},
		{"from agentskills import *\n# fix it\nedit_file_by_replace(file_name='a.py', to_replace=\"\"\"x\n\"\"\", new_content='y\\t')\n", "edit_file_by_replace file_name=a.py|to_replace=x\n|new_content=y\t"},
		{`append_file("a.py", "x" "y")`, `append_file a.py|xy`},
		{`create_file('n.py')`, `create_file n.py`},
		{`insert_content_at_line('a.py', 3, 'z')`, `insert_content_at_line a.py|3|z`},
		{`edit_file_by_replace(f"{p}", "x", "y")`, ``},
		{`edit_file_by_replace(path, "x", "y")`, ``},
		{"edit_file_by_replace('a.py', 'x', 'y')\nprint(1)", ``},
		{`open_file('a.py')`, ``},
		{`edit_file_by_replace('a.py', 'x', 'y'`, ``},
	} {
		got := ""
		if name, args, ok := parseSkillCall(tc.code); ok {
			var parts []string
			for _, a := range args {
				v := a.str
				if a.isInt {
					v = a.str
				}
				if a.key != "" {
					v = a.key + "=" + v
				}
				parts = append(parts, v)
			}
			got = name + " " + strings.Join(parts, "|")
		}
		if got != tc.want {
			t.Errorf("parseSkillCall(%q) = %q, want %q", tc.code, got, tc.want)
		}
	}
}

func FuzzParseSkillCall(f *testing.F) {
	f.Add(`edit_file_by_replace('a.py', to_replace="x\n", new_content=r'''y''')`)
	f.Add(`append_file("a", "b" "c")`)
	f.Fuzz(func(t *testing.T, code string) {
		parseSkillCall(code)
	})
}

// TestOpenHandsEarlyCommandText: the early resolver's command output
// loses the shell prompt it ends with and shows the exit code its
// observation records, as its agent was shown it.
func TestOpenHandsEarlyCommandText(t *testing.T) {
	for _, tc := range []struct {
		content string
		exit    any
		want    string
	}{
		{"2 passed\r\nroot@4f3a9c2b1d0e:/workspace # ", 0, "2 passed\n[Command finished with exit code 0]"},
		{"root@4f3a9c2b1d0e:/workspace # ", 0, "\n[Command finished with exit code 0]"},
		{"boom\r\nroot@4f3a9c2b1d0e:/workspace $ ", 2, "boom\n[Command finished with exit code 2]"},
		{"a@b:c # is not a prompt here\nmore", nil, "a@b:c # is not a prompt here\nmore"},
		{"out", -1, "out"},
	} {
		obs := map[string]any{"content": tc.content, "command_id": -1, "command": "x", "observation": "run"}
		if tc.exit != nil {
			obs["exit_code"] = tc.exit
		}
		history := []any{
			map[string]any{"content": "Fix it.", "action": "message", "source": "user"},
			map[string]any{"command": "x", "thought": "run", "keep_prompt": true, "action": "run", "is_confirmed": "confirmed"},
			obs,
		}
		line, _ := json.Marshal(map[string]any{"instance_id": "a__b-1", "instruction": "Fix it.", "history": history, "error": nil})
		r, err := readTranscript(bytes.NewReader(append(line, '\n')), "output.jsonl")
		if err != nil || r.err != nil {
			t.Fatal(err, r.err)
		}
		s := r.runs[0].steps[0]
		res, _ := s.Result(s.Calls()[0].ID)
		if got := res.Content[0].Text; got != tc.want {
			t.Errorf("content %q: got %q, want %q", tc.content, got, tc.want)
		}
	}
}
