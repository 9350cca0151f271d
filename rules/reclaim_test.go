package rules

import "testing"

// TestStoppedShort covers a turn that ends on announced work.
func TestStoppedShort(t *testing.T) {
	edit := do(tool("edit", map[string]any{"path": "invoice.py", "old_text": "a", "new_text": "b"}, "ok", false))
	runCases(t, "stopped-short", []detectorCase{
		{"the tests announced, the turn ends", []st{edit, say("I've removed the second multiplication. Next, I'll run the test suite to confirm.")}, []int{2}},
		{"an offer is no announcement", []st{edit, say("Done. Let me know if you want me to run the full suite.")}, nil},
		{"a question is no announcement", []st{edit, say("Should I run the tests next?")}, nil},
		{"a report", []st{edit, say("Fixed total(); all 3 tests pass.")}, nil},
		{"a reply that only talks, after nothing", []st{say("I will continue with the next step now.")}, nil},
	})
}

// TestClaimContradicted covers a claim made again after the user said it
// still fails, without running what the user ran.
func TestClaimContradicted(t *testing.T) {
	fix := do(tool("edit", map[string]any{"path": "invoice.py", "old_text": "a", "new_text": "b"}, "ok", false))
	tests := do(sh("python3 -m unittest", "Ran 3 tests\n\nOK", false))
	claim := say("Fixed: total() applied the tax twice; the tests pass.")
	back := func(s st) st {
		s.notes = []string{"Still broken: python3 cli.py 2x50 prints 114.49."}
		return s
	}
	reread := back(do(tool("read", map[string]any{"path": "invoice.py"}, "def total(): ...", false)))
	again := say("invoice.py applies the tax once now. It is fixed; if you still see 114.49 you may be running an older copy.")
	runCases(t, "claim-contradicted", []detectorCase{
		{"claimed again with nothing run", []st{fix, tests, claim, reread, again}, []int{5}},
		{"claimed again after the unit tests, not the user's command", []st{fix, tests, claim, back(tests), say("The tests pass; it is fixed.")}, []int{5}},
		{"the user's command reproduced first", []st{fix, tests, claim, back(do(sh("python3 cli.py 2x50", "114.49", false))),
			do(tool("edit", map[string]any{"path": "cli.py", "old_text": "x", "new_text": "y"}, "ok", false)),
			do(sh("python3 cli.py 2x50", "107.00", false)), say("Fixed: cli.py had its own tax; it prints 107.00 now.")}, nil},
		{"a remark that is no report of failure", []st{fix, tests, claim,
			func() st {
				s := do(tool("read", map[string]any{"path": "invoice.py"}, "x", false))
				s.notes = []string{"Nice. Now tidy up the error handling style."}
				return s
			}(),
			say("Done; the tests pass.")}, nil},
	})
}
