package rules

import "testing"

func TestEditThrash(t *testing.T) {
	edit := func(p, old, repl string) st {
		return do(tool("edit", map[string]any{"path": p, "old_text": old, "new_text": repl}, "Edited "+p, false))
	}
	run := do(sh("python -m unittest -q", "OK", false))
	write := func(p, body string) st {
		return do(sh("cat > "+p+" << 'EOF'\n"+body+"\nEOF", "", false))
	}
	runCases(t, "edit-thrash", []detectorCase{
		{"edit, revert, re-edit", []st{edit("calc.py", "a - b", "a + b"), edit("calc.py", "a + b", "a - b"), edit("calc.py", "a - b", "a + b")}, []int{3}},
		{"a run between versions is an experiment", []st{
			edit("calc.py", "a - b", "a + b"), run, edit("calc.py", "a + b", "a - b"), run, edit("calc.py", "a - b", "a + b"),
		}, nil},
		{"moving forward is not thrashing", []st{edit("calc.py", "a - b", "a + b"), edit("calc.py", "a + b", "a + b + 0"), edit("calc.py", "a + b + 0", "sum((a, b))")}, nil},
		{"str_replace_editor and its undo", []st{
			do(tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "/repo/x.py", "old_str": "1", "new_str": "2"}, "ok", false)),
			do(tool("str_replace_editor", map[string]any{"command": "undo_edit", "path": "/repo/x.py"}, "ok", false)),
			do(tool("str_replace_editor", map[string]any{"command": "str_replace", "path": "/repo/x.py", "old_str": "1", "new_str": "2"}, "ok", false)),
		}, []int{3}},
		{"sed, restore from backup, sed again", []st{
			do(sh("cp lib/m.py lib/m.py.bak", "", false)),
			do(sh("sed -i 's/return None/raise KeyError/' lib/m.py", "", false)),
			do(sh("cp lib/m.py.bak lib/m.py", "", false)),
			do(sh("sed -i 's/return None/raise KeyError/' lib/m.py", "", false)),
		}, []int{4}},
		{"git checkout as the revert", []st{
			do(sh("sed -i 's/x/y/' a.go", "", false)),
			do(sh("git checkout -- a.go", "", false)),
			do(sh("cd /repo && sed -i \"s/x/y/\" ./a.go", "", false)),
		}, []int{3}},
		{"apply_patch forward and back", []st{
			do(tool("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch"}, "Done", false)),
			do(tool("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 2\n+x = 1\n*** End Patch"}, "Done", false)),
			do(tool("apply_patch", map[string]any{"input": "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n*** End Patch"}, "Done", false)),
		}, []int{3}},
		{"the same sed again and again", []st{
			do(sh("sed -i 's/old_name/new_name/' pkg/mod.py", "", false)),
			do(sh("grep -n new_name pkg/mod.py", "", false)),
			do(sh("sed -i 's/old_name/new_name/' pkg/mod.py", "", false)),
			do(sh("sed -i 's/old_name/new_name/' pkg/mod.py", "", false)),
		}, []int{4}},
		{"oscillating with the same failing result each time", []st{
			edit("calc.py", "a - b", "a + b"), do(sh("python -m unittest", "FAILED (failures=1)", true)),
			edit("calc.py", "a + b", "a - b"), do(sh("python -m unittest", "FAILED (failures=1)", true)),
			edit("calc.py", "a - b", "a + b"), do(sh("python -m unittest", "FAILED (failures=1)", true)),
			edit("calc.py", "a + b", "a - b"),
		}, []int{7}},
		{"a failed edit changes nothing", []st{
			edit("calc.py", "a - b", "a + b"),
			do(tool("edit", map[string]any{"path": "calc.py", "old_text": "a + b", "new_text": "a - b"}, "old_text not found", true)),
			edit("calc.py", "a - b", "a + b"),
		}, nil},
		{"rewritten three times unused", []st{write("fix.patch", "v1"), write("fix.patch", "v2"), do(sh("sed -n 1,10p src.py", "x", false)), write("fix.patch", "v3")}, []int{4}},
		{"rewrites that are used", []st{
			write("fix.patch", "v1"), do(sh("patch -p1 < fix.patch", "malformed", true)),
			write("fix.patch", "v2"), do(sh("git apply fix.patch", "error", true)),
			write("fix.patch", "v3"),
		}, nil},
		{"a script rewritten and run each time", []st{
			do(sh("cat > t.py << 'EOF'\nprint(1)\nEOF\npython t.py", "1", false)),
			do(sh("cat > t.py << 'EOF'\nprint(2)\nEOF\npython t.py", "2", false)),
			do(sh("cat > t.py << 'EOF'\nprint(3)\nEOF\npython t.py", "3", false)),
		}, nil},
	})
}
