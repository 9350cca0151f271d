package rules

import "testing"

// TestRepeatedFailureInterleaved covers the same program failing with the
// same error again and again while other failures of it come in between:
// the same malformed call recurring, not progress.
func TestRepeatedFailureInterleaved(t *testing.T) {
	fail := func(cmd, out string) st { return do(sh(cmd, out, true)) }
	const bad = "Invalid patch: The last line of the patch must be '*** End Patch'"
	runCases(t, "repeated-failure", []detectorCase{
		{"the same error with another between", []st{
			fail(`python -c "apply('one')"`, bad),
			fail(`python -c "send()"`, "401 Unauthorized"),
			fail(`python -c "apply('two')"`, bad),
			do(sh("cat notes.txt", "notes", false)),
			fail(`python -c "apply('three')"`, bad),
		}, []int{5}},
		{"a success of the program ends it", []st{
			fail(`python -c "apply('one')"`, bad),
			do(sh(`python -c "print(1)"`, "1", false)),
			fail(`python -c "apply('two')"`, bad),
			do(sh(`python -c "print(2)"`, "2", false)),
			fail(`python -c "apply('three')"`, bad),
		}, nil},
		{"errors that change are progress", []st{
			fail(`python -c "apply('one')"`, "E: missing a"),
			fail(`python -c "send()"`, "401 Unauthorized"),
			fail(`python -c "apply('two')"`, "E: missing b"),
			fail(`python -c "apply('three')"`, "E: missing c"),
		}, nil},
	})
}
