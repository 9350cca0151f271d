package rules

import "testing"

func TestScopeCreep(t *testing.T) {
	edit := func(p, old, repl string) call {
		return tool("edit", map[string]any{"path": p, "old_text": old, "new_text": repl}, "ok", false)
	}
	test := sh("python -m unittest -q", "OK", false)
	runCases(t, "scope-creep", []detectorCase{
		{"more work after the tests pass", []st{
			do(edit("calc.py", "a - b", "a + b")), do(test),
			say("While I am here, this module deserves a command-line interface.", tool("write", map[string]any{"path": "cli.py", "content": "import argparse"}, "ok", false)),
		}, []int{3}},
		{"the same issue elsewhere, after a verified fix", []st{
			do(edit("fields.py", "old", "new")), do(sh("python repro.py", "works", false)),
			say("Perfect! The issue is fixed."),
			say("DateField has the same issue! We should fix that too for consistency.", sh("sed -n 1200,1230p fields.py", "...", false)),
			do(edit("fields.py", "if not self.null:", "if not self.null and x:")),
		}, []int{5}},
		{"the user asks for more", []st{
			do(edit("calc.py", "a - b", "a + b")), do(test),
			st{notes: []string{"Thanks! While you are at it, add a div() too."}, text: "While I'm at it, adding div() as asked.", calls: []call{edit("calc.py", "def mul", "def div(a, b):\n    return a / b\n\n\ndef mul")}},
		}, nil},
		{"no cue, no finding", []st{do(edit("calc.py", "a - b", "a + b")), do(test), do(edit("calc.py", "def mul", "def div"))}, nil},
		{"a cue before the fix is verified", []st{
			say("mul() has the same issue.", edit("calc.py", "a - b", "a + b")), do(edit("calc.py", "a / b", "a * b")), do(test),
		}, nil},
		{"scratch scripts after the cue are fine", []st{
			do(edit("calc.py", "a - b", "a + b")), do(test),
			say("mul() may have the same issue; let me check.", sh("cat > test_mul.py << 'EOF'\nprint(1)\nEOF", "", false)),
		}, nil},
	})
}
