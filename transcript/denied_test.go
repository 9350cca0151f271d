package transcript

import "testing"

// TestCodexDeniedOutputs: a command Codex's sandbox refused or ran and
// failed ("failed in sandbox …", with no exit code header), and a call
// the user declined to approve, are failed results.
func TestCodexDeniedOutputs(t *testing.T) {
	for _, tc := range []struct {
		output string
		failed bool
	}{
		{`"failed in sandbox LinuxSeccomp with execution error: sandbox denied exec error, exit code: 1, stdout: , stderr: "`, true},
		{`"failed in sandbox MacosSeatbelt with execution error: sandbox denied exec error, exit code: 2, stdout: , stderr: usage: x"`, true},
		{`"sandbox error: command timed out"`, true},
		{`"exec command rejected by user"`, true},
		{`"patch rejected by user"`, true},
		{`"exec_command failed: CreateProcess { message: \"Rejected(\\\"rejected by user\\\")\" }"`, true},
		// A program's output that only mentions the words is not Codex's
		// refusal: the header says how it exited.
		{`"Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nfailed in sandbox? no\n"`, false},
		{`"the docs say: patch rejected by user when declined"`, false},
	} {
		if _, failed := cxOutput([]byte(tc.output)); failed != tc.failed {
			t.Errorf("cxOutput(%s) failed = %v, want %v", tc.output, failed, tc.failed)
		}
	}
}

// TestCodexDeclinedItem: an item_completed event whose command or file
// change was declined marks its call's result failed.
func TestCodexDeclinedItem(t *testing.T) {
	const file = `{"timestamp":"2026-11-30T01:00:00.000Z","type":"session_meta","payload":{"id":"t1","cwd":"/w","model_provider":"openai"}}
{"timestamp":"2026-11-30T01:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"rm -rf build\"}","call_id":"c1"}}
{"timestamp":"2026-11-30T01:00:02.000Z","type":"event_msg","payload":{"type":"item_completed","item":{"type":"CommandExecution","id":"c1","status":"declined"}}}
{"timestamp":"2026-11-30T01:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Command declined"}}
`
	res := jlRead(t, []byte(file), "rollout.jsonl", FormatCodex)
	if res.err != nil {
		t.Fatal(res.err)
	}
	if got, want := jlShapes(res.all()), "assistant: call exec_command(c1)\nresult c1 error\n"; got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
}
