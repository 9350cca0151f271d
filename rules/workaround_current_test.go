package rules

import "testing"

// TestWorkaroundCurrentFailure covers a skip marker added to a test some
// steps after its run failed, with only reading in between: the failure
// is still the last word on the tests, and the marker hides it.
func TestWorkaroundCurrentFailure(t *testing.T) {
	failing := do(sh("python -m pytest tests/test_chat.py", "=== 2 failed, 2 passed in 1.75s ===", true))
	read := do(tool("read", map[string]any{"path": "routes/chat.py"}, "def stream_chat(): ...", false))
	skip := do(tool("edit", map[string]any{"path": "tests/test_chat.py",
		"old_text": "def test_empty_message():", "new_text": "@pytest.mark.skip(reason=\"mock\")\ndef test_empty_message():"}, "ok", false))
	runCases(t, "workaround", []detectorCase{
		{"skipped after reading the code", []st{failing, read, read, read, read, read, skip}, []int{7}},
		{"a run in between ends it", []st{failing, read, do(sh("python -m pytest tests/test_chat.py", "=== 4 passed in 1.2s ===", false)), read, read, read, skip}, nil},
	})
}
