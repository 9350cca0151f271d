package transcript

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestCodexRecording(t *testing.T) {
	res := jlRead(t, jlTestdata(t, "codex/rollout.jsonl"), "rollout.jsonl", FormatCodex)
	if res.err != nil || len(res.runs) != 1 {
		t.Fatalf("err %v, %d runs; want one run", res.err, len(res.runs))
	}
	want := RunInfo{Format: FormatCodex, ID: "01a22a16-da73-7130-9609-e3f414528e04", CWD: "/tmp/rec/codex/work",
		Model: "gpt-fake-1", Started: time.Date(2026, 11, 30, 1, 34, 30, 541e6, time.UTC)}
	if res.runs[0] != want {
		t.Errorf("run %+v\nwant %+v", res.runs[0], want)
	}
	// world_state (a state snapshot new in this version) is not mapped.
	if n, ok := res.note(`unknown line type "world_state"`); !ok || n.Count != 3 || len(res.notes) != 1 {
		t.Errorf("notes %+v, want only world_state, 3 times", res.notes)
	}
	entries := res.entries[0]
	jlCheckTree(t, entries)
	if got, want := jlShapes(entries), strings.Join([]string{
		"custom developer ctx",
		"custom environment_context ctx",
		"user: Run echo hello, then ls /nonex",
		// reasoning, message and function_call lines, merged.
		"assistant: think text call exec_command(call_rec_1)",
		"result call_rec_1",
		"assistant: call exec_command(call_rec_2) call exec_command(call_rec_3)",
		"result call_rec_2 error",
		"result call_rec_3",
		// Auto-compaction mid-turn (model_auto_compact_token_limit); the
		// summary request's reply is not a step of the run.
		"compaction",
		"assistant: text",
		// codex exec resume --last "Now run false."
		"user: Now run false.",
		"assistant: call exec_command(call_rec_4)",
		"result call_rec_4 error",
		"compaction",
		"assistant: text",
	}, "\n")+"\n"; got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	// Entries are chained in file order, each named by its first line.
	if entries[0].ID != "L3" || entries[0].ParentID != "" || entries[1].ParentID != "L3" {
		t.Errorf("ids: %s <- %q, %s <- %q", entries[0].ID, entries[0].ParentID, entries[1].ID, entries[1].ParentID)
	}
	reply := entries[3].Body.(*session.Message)
	if reply.Model != (llm.Ref{Provider: "fake", Model: "gpt-fake-1"}) || reply.StopReason != llm.StopToolUse {
		t.Errorf("first reply: model %v, stop %q", reply.Model, reply.StopReason)
	}
	// token_usage_record: input_tokens 9774, none cached, output 27.
	if reply.Usage != (llm.Usage{Input: 9774, Output: 27}) {
		t.Errorf("first reply usage %+v", reply.Usage)
	}
	if got := string(reply.Message.Content[2].Arguments); got != `{"cmd":"echo hello"}` {
		t.Errorf("arguments %s", got)
	}
	second := entries[9].Body.(*session.Message)
	if second.Usage.CacheRead == 0 || second.Usage.Input+second.Usage.CacheRead == 0 {
		t.Errorf("cached usage %+v", second.Usage)
	}
	c := entries[8].Body.(*session.Compaction)
	if !strings.Contains(c.Summary, "ls failed: /nonexistent does not exist") {
		t.Errorf("compaction summary %q", c.Summary)
	}

	steps := jlSteps(entries)
	if len(steps) != 5 {
		t.Fatalf("%d steps, want 5", len(steps))
	}
	if r, ok := steps[1].Result("call_rec_2"); !ok || !r.IsError {
		t.Errorf("step 2: ls result %+v, want an error", r)
	}
	if r, ok := steps[1].Result("call_rec_3"); !ok || r.IsError {
		t.Errorf("step 2: pwd result %+v, want success", r)
	}
}

// TestCodexOutputs reads tool outputs in the shapes different versions
// write.
func TestCodexOutputs(t *testing.T) {
	for _, tc := range []struct {
		output, text string
		failed       bool
	}{
		{`"Process exited with code 0\nOutput:\nok"`, "Process exited with code 0\nOutput:\nok", false},
		{`"Chunk ID: 1\nProcess exited with code 127\nOutput:\nsh: nope: not found"`, "", true},
		{`"{\"output\":\"boom\\n\",\"metadata\":{\"exit_code\":1,\"duration_seconds\":0.1}}"`, "boom\n", true},
		{`"{\"output\":\"fine\",\"metadata\":{\"exit_code\":0}}"`, "fine", false},
		{`"Exit code: 2\nWall time: 0 seconds"`, "", true},
		{`[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]`, "a\nb", false},
		{`{"content":"patch failed","success":false}`, "patch failed", true},
		{`"plain text, no status"`, "plain text, no status", false},
		// Calls Codex refused: it ran nothing and says so in plain text.
		{`"unsupported call: shell"`, "unsupported call: shell", true},
		{`"unsupported custom tool call: apply_patch"`, "unsupported custom tool call: apply_patch", true},
		{`"failed to parse function arguments: missing field ` + "`cmd`" + ` at line 1 column 36"`, "failed to parse function arguments: missing field `cmd` at line 1 column 36", true},
		// Only a message that is the whole output is a refusal.
		{`"Chunk ID: 0a1b2c\nWall time: 0.0100 seconds\nProcess exited with code 0\nOutput:\nunsupported call: shell\n"`, "Process exited with code 0\nOutput:\nunsupported call: shell\n", false},
		// Unified exec's header loses its chunk id and wall time, and
		// keeps its facts.
		{`"Chunk ID: 3fa91c\nWall time: 0.0123 seconds\nProcess exited with code 1\nOriginal token count: 3\nOutput:\nFAILED\n"`, "Process exited with code 1\nOriginal token count: 3\nOutput:\nFAILED\n", true},
		{`"Command: sleep 30\nChunk ID: 07acea\nWall time: 5.0019 seconds\nProcess running with session ID 55249\nOriginal token count: 2\nOutput:\n500/700\n"`, "Command: sleep 30\nProcess running with session ID 55249\nOriginal token count: 2\nOutput:\n500/700\n", false},
		{`"Chunk ID: 9f8058\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 0\nOutput:\n"`, "Process exited with code 0\nOriginal token count: 0\nOutput:\n", false},
		// An apply_patch run through exec_command: Codex's header, then
		// the patch tool's own.
		{`"Wall time: 0.0000 seconds\nOutput:\nExit code: 0\nWall time: 0 seconds\nOutput:\nSuccess. Updated the following files:\nM calc.py\n"`, "Output:\nExit code: 0\nOutput:\nSuccess. Updated the following files:\nM calc.py\n", false},
		// Not a header: a line of another kind before "Output:", or no
		// "Output:" line.
		{`"Wall time: 1.2 seconds\naborted by user"`, "Wall time: 1.2 seconds\naborted by user", false},
		{`"Chunk ID: 3fa91c\nsomething else\nOutput:\nx"`, "Chunk ID: 3fa91c\nsomething else\nOutput:\nx", false},
		{`"Wall time: 3 seconds"`, "Wall time: 3 seconds", false},
	} {
		text, failed := cxOutput([]byte(tc.output))
		if failed != tc.failed || (tc.text != "" && text != tc.text) {
			t.Errorf("cxOutput(%s) = %q, %v; want %q, %v", tc.output, text, failed, tc.text, tc.failed)
		}
	}
}

// TestCodexQuietRepeats checks that two runs of a command that printed
// the same read the same, whatever chunk ids and wall times Codex gave
// them, and that a refused call is a failed result.
func TestCodexQuietRepeats(t *testing.T) {
	const head = `{"timestamp":"2026-11-30T01:00:00.000Z","type":"session_meta","payload":{"id":"t1","cwd":"/w","model_provider":"openai"}}
`
	call := func(id, name, args string) string {
		return `{"timestamp":"2026-11-30T01:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"` + name +
			`","arguments":` + strconv.Quote(args) + `,"call_id":"` + id + `"}}` + "\n"
	}
	output := func(id, out string) string {
		return `{"timestamp":"2026-11-30T01:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"` + id +
			`","output":` + strconv.Quote(out) + `}}` + "\n"
	}
	data := head +
		call("c1", "exec_command", `{"cmd":"tail -n 1 export.log"}`) +
		output("c1", "Chunk ID: 9f8058\nWall time: 17.8887 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\nexport finished\n") +
		call("c2", "exec_command", `{"cmd":"tail -n 1 export.log"}`) +
		output("c2", "Chunk ID: adf7e4\nWall time: 4.8861 seconds\nProcess exited with code 0\nOriginal token count: 9\nOutput:\nexport finished\n") +
		call("c3", "shell", `{"command":["python3","-m","unittest"]}`) +
		output("c3", "unsupported call: shell") +
		call("c4", "exec_command", `{"command":"python3 -m unittest"}`) +
		output("c4", "failed to parse function arguments: missing field `cmd`")
	res := jlRead(t, []byte(data), "rollout.jsonl", FormatCodex)
	if res.err != nil {
		t.Fatal(res.err)
	}
	steps := jlSteps(res.all())
	if len(steps) != 4 {
		t.Fatalf("%d steps, want 4", len(steps))
	}
	result := func(i int, id string) llm.Block {
		r, ok := steps[i].Result(id)
		if !ok {
			t.Fatalf("step %d: no result for %s", i+1, id)
		}
		return r
	}
	first, second := result(0, "c1"), result(1, "c2")
	if first.Content[0].Text != second.Content[0].Text || first.IsError || second.IsError {
		t.Errorf("two reads of the same log differ: %q (error %v) and %q (error %v)",
			first.Content[0].Text, first.IsError, second.Content[0].Text, second.IsError)
	}
	if got, want := first.Content[0].Text, "Process exited with code 0\nOriginal token count: 9\nOutput:\nexport finished\n"; got != want {
		t.Errorf("result %q, want %q", got, want)
	}
	for i, id := range []string{"c3", "c4"} {
		if r := result(2+i, id); !r.IsError {
			t.Errorf("refused call %s: result %q is not an error", id, r.Content[0].Text)
		}
	}
}

// TestCodexLines checks line shapes the recording does not have.
func TestCodexLines(t *testing.T) {
	const head = `{"timestamp":"2026-11-30T01:00:00.000Z","type":"session_meta","payload":{"id":"t1","cwd":"/w","model_provider":"openai"}}
{"timestamp":"2026-11-30T01:00:00.100Z","type":"turn_context","payload":{"cwd":"/w","model":"gpt-x"}}
`
	lines := `{"timestamp":"2026-11-30T01:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"# AGENTS.md instructions for /w\n\nbe terse"}]}}
{"timestamp":"2026-11-30T01:00:01.100Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"apply the patch"}]}}
{"timestamp":"2026-11-30T01:00:02.000Z","type":"response_item","payload":{"type":"reasoning","summary":[],"encrypted_content":"gAAA"}}
{"timestamp":"2026-11-30T01:00:02.100Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch","call_id":"c1"}}
{"timestamp":"2026-11-30T01:00:02.200Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"input_tokens":100,"cached_input_tokens":60,"output_tokens":5}}}}
{"timestamp":"2026-11-30T01:00:03.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":1}}
{"timestamp":"2026-11-30T01:00:03.100Z","type":"response_item","payload":{"type":"custom_tool_call_output","call_id":"c1","output":"patch rejected"}}
{"timestamp":"2026-11-30T01:00:04.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"<hook_prompt hook_run_id=\"x\">stop and test</hook_prompt>"}]}}
{"timestamp":"2026-11-30T01:00:05.000Z","type":"event_msg","payload":{"type":"hologram_event"}}
{"timestamp":"2026-11-30T01:00:05.100Z","type":"response_item","payload":{"type":"hologram_item"}}
{"timestamp":"2026-11-30T01:00:06.000Z","type":"response_item","payload":{"type":"compaction","encrypted_content":"gAAA"}}
`
	res := jlRead(t, []byte(head+lines), "rollout.jsonl", FormatCodex)
	if res.err != nil {
		t.Fatal(res.err)
	}
	want := "custom agents_md ctx\nuser: apply the patch\nassistant: think call apply_patch(c1)\nresult c1 error\ncustom hook_prompt ctx\ncompaction\n"
	if got := jlShapes(res.all()); got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	reply := res.all()[2].Body.(*session.Message)
	if reply.Usage != (llm.Usage{Input: 40, CacheRead: 60, Output: 5}) || reply.Model != (llm.Ref{Provider: "openai", Model: "gpt-x"}) {
		t.Errorf("reply usage %+v, model %v", reply.Usage, reply.Model)
	}
	if reply.Message.Content[0].Type != llm.BlockRedactedThinking {
		t.Errorf("encrypted reasoning without summary: %+v", reply.Message.Content[0])
	}
	if got := string(reply.Message.Content[1].Arguments); got != `{"input":"*** Begin Patch"}` {
		t.Errorf("freeform arguments %s", got)
	}
	for _, w := range []string{`unknown event_msg type "hologram_event"`, `unknown response_item type "hologram_item"`} {
		if _, ok := res.note(w); !ok {
			t.Errorf("notes %+v, want %q", res.notes, w)
		}
	}
}

func FuzzCodex(f *testing.F) {
	data := jlTestdata(f, "codex/rollout.jsonl")
	f.Add(data)
	lines := jlLines(data)
	for _, i := range []int{13, 16, 22, 30} {
		f.Add(lines[i])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		jlFuzz(t, data, FormatCodex)
	})
}
