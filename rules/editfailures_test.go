package rules

import "testing"

func TestEditFailures(t *testing.T) {
	failing := map[string]func() st{
		"Claude Code Edit": func() st {
			return do(tool("Edit", map[string]any{"file_path": "/repo/app.py", "old_string": "def f(:", "new_string": "def f():"},
				"<tool_use_error>String to replace not found in file.\nString: def f(:</tool_use_error>", true))
		},
		"Claude Code MultiEdit, not unique": func() st {
			return do(tool("MultiEdit", map[string]any{"file_path": "/repo/app.py", "edits": []any{map[string]any{"old_string": "x", "new_string": "y"}}},
				"Found 3 matches of the string to replace, but replace_all is false.", true))
		},
		"OpenHands str_replace_editor": func() st {
			return do(tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "/workspace/app.py", "old_str": "a", "new_str": "b"},
				"ERROR:\nNo replacement was performed, old_str `a` did not appear verbatim in /workspace/app.py.", false))
		},
		"SWE-agent edit lint": func() st {
			return do(tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "/repo/app.py", "old_str": "a", "new_str": "b("},
				"Your proposed edit has introduced new syntax error(s). Please read this error message carefully and then retry editing the file.", false))
		},
		"pi edit": func() st {
			return do(tool("edit", map[string]any{"path": "app.py", "oldText": "a", "newText": "b"},
				"Could not find the exact text in app.py. The old text must match exactly including all whitespace and newlines.", true))
		},
		"Codex apply_patch": func() st {
			return do(tool("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: app.py\n@@\n-a\n+b\n*** End Patch"},
				"apply_patch verification failed: Failed to find expected lines in app.py:\na", false))
		},
	}
	read := do(tool("Read", map[string]any{"file_path": "/repo/app.py"}, "1\tdef f():", false))
	for name, f := range failing {
		t.Run(name, func(t *testing.T) {
			got := only(review(Settings{}, f(), read, f(), f()), "edit-failures")
			if len(got) != 1 || got[0].StartStep != 1 || got[0].EndStep != 4 {
				t.Errorf("three failed edits with a read between: got %v, want one finding over steps 1-4", got)
			}
			if got := only(review(Settings{}, f(), f()), "edit-failures"); len(got) != 0 {
				t.Errorf("two failed edits: got %v, want none", got)
			}
		})
	}
	ok := do(tool("Edit", map[string]any{"file_path": "/repo/app.py", "old_string": "def f():", "new_string": "def g():"}, "The file /repo/app.py has been updated.", false))
	other := do(tool("Edit", map[string]any{"file_path": "/repo/b.py", "old_string": "x", "new_string": "y"}, "<tool_use_error>String to replace not found in file.</tool_use_error>", true))
	cc := failing["Claude Code Edit"]
	runCases(t, "edit-failures", []detectorCase{
		{"an edit that works ends the streak", []st{cc(), cc(), ok, cc(), cc()}, nil},
		{"failures on different files are not one streak", []st{cc(), other, cc(), other}, nil},
		{"eight in a row are reported once", []st{cc(), cc(), cc(), cc(), cc(), cc(), cc(), cc()}, []int{3}},
	})
}
