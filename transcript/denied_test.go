package transcript

import (
	"bytes"
	"strings"
	"testing"
)

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
		// An output without a header that holds only a refusal.
		{`"bash: ./run.sh: Permission denied\n"`, true},
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

// TestOnlyDenials: a result that holds nothing but the shell's or a
// program's refusals (permission denied, operation not permitted, a
// read-only file system) is a failure in formats that record no exit
// code; output that has more than that is left to its exit code.
func TestOnlyDenials(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"bash: ./run.sh: Permission denied\n", true},
		{"bash: line 1: ./run.sh: Permission denied", true},
		{"zsh:1: permission denied: ./ralp-loop\n", true},
		{"/bin/sh: 1: ./x: Permission denied", true},
		{"mkdir: cannot create directory '/opt/x': Permission denied\n", true},
		{"rm: cannot remove 'a': Operation not permitted\nrm: cannot remove 'b': Operation not permitted\n", true},
		{"touch: cannot touch 'a': Read-only file system", true},
		{"EACCES: permission denied, open '/etc/nginx/sites-available/x.conf'", true},
		// SWE-agent's state line after the output.
		{"bash: ./run.sh: Permission denied\n(Open file: n/a)\n(Current directory: /repo)\nbash-$", true},
		// SWE-agent 1.x's word before the output.
		{"OBSERVATION:\nmkdir: cannot create directory '/opt/calc': Permission denied", true},
		{"./a.py\nfind: './secret': Permission denied\n./b.py\n", false},
		{"", false},
		{"(Open file: n/a)\n(Current directory: /repo)\nbash-$", false},
		{"all good", false},
	} {
		if got := onlyDenials(tc.text); got != tc.want {
			t.Errorf("onlyDenials(%q) = %v, want %v", tc.text, got, tc.want)
		}
	}
}

// TestSWEAgentDeniedIsFailed: SWE-agent records no exit code, so a
// command whose whole output is the shell's "Permission denied" is a
// failed result.
func TestSWEAgentDeniedIsFailed(t *testing.T) {
	data := []byte(`{"history": [
  {"role": "user", "content": "Fix it.", "agent": "main"},
  {"role": "assistant", "content": "", "thought": "run it", "action": "./run.sh", "agent": "main", "tool_calls": [{"id": "x1", "function": {"name": "bash", "arguments": {"command": "./run.sh"}}}]},
  {"role": "tool", "content": "bash: ./run.sh: Permission denied\n(Open file: n/a)\n(Current directory: /repo)\nbash-$", "tool_call_ids": ["x1"], "agent": "main"},
  {"role": "assistant", "content": "", "thought": "list", "action": "ls", "agent": "main", "tool_calls": [{"id": "x2", "function": {"name": "bash", "arguments": {"command": "ls"}}}]},
  {"role": "tool", "content": "run.sh", "tool_call_ids": ["x2"], "agent": "main"}
], "info": {"exit_status": "submitted"}}`)
	r, err := readTranscript(bytes.NewReader(data), "a__b-1.traj")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if got := statsOf(r.runs[0]); got != (stepStats{steps: 2, calls: 2, answered: 2, failed: 1}) {
		t.Errorf("%+v, want the first of two calls failed", got)
	}
}

// TestMiniSWEAgentDeniedIsFailed: an observation without a return code
// whose output is only a refusal is a failed result.
func TestMiniSWEAgentDeniedIsFailed(t *testing.T) {
	data := []byte(`{"info": {"exit_status": "Submitted"}, "messages": [
  {"role": "system", "content": "sys"},
  {"role": "user", "content": "Fix it."},
  {"role": "assistant", "content": "Run it.\n` + "```bash\\n./run.sh\\n```" + `"},
  {"role": "user", "content": "<output>\nbash: ./run.sh: Permission denied\n</output>"}
], "trajectory_format": "mini-swe-agent-1"}`)
	r, err := readTranscript(bytes.NewReader(data), "a.traj.json")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if r.format != FormatMiniSWEAgent {
		t.Fatalf("format %s", r.format)
	}
	if got := statsOf(r.runs[0]); got.failed != 1 {
		t.Errorf("%+v, want the call failed", got)
	}
}

// TestOpenHandsDeniedIsFailed: an observation without an exit code whose
// output is only a refusal is a failed result; one with exit code 0 is
// not.
func TestOpenHandsDeniedIsFailed(t *testing.T) {
	events := `[{"id": 0, "source": "user", "action": "message", "args": {"content": "go"}},
 {"id": 1, "source": "agent", "action": "run", "args": {"command": "./run.sh", "thought": "run"}},
 {"id": 2, "source": "agent", "observation": "run", "cause": 1, "content": "bash: ./run.sh: Permission denied"},
 {"id": 3, "source": "agent", "action": "run", "args": {"command": "./run.sh", "thought": "again"}},
 {"id": 4, "source": "agent", "observation": "run", "cause": 3, "content": "bash: ./run.sh: Permission denied", "extras": {"metadata": {"exit_code": 0}}}]`
	r, err := readTranscript(strings.NewReader(events), "events.json")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if got := statsOf(r.runs[0]); got != (stepStats{steps: 2, calls: 2, answered: 2, failed: 1}) {
		t.Errorf("%+v, want the first of two calls failed", got)
	}
}
