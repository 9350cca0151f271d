package transcript

import "testing"

// TestClaudeCodeReplySplitBySystemLine: Claude Code writes a reply as
// one line per block, and may write a system line (a turn's duration,
// an informational note) between its thinking and its text. The lines
// of one message id stay one reply, one step; the system line follows
// the reply, and later steps keep their numbers.
func TestClaudeCodeReplySplitBySystemLine(t *testing.T) {
	const file = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-30T01:00:00.000Z","message":{"role":"user","content":"fix it"}}
{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-30T01:00:01.000Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"look first","signature":"s"}],"stop_reason":null}}
{"type":"system","subtype":"turn_duration","uuid":"y1","parentUuid":"a1","sessionId":"s1","timestamp":"2026-11-30T01:00:02.000Z","durationMs":1200,"isMeta":false}
{"type":"assistant","uuid":"a2","parentUuid":"y1","sessionId":"s1","timestamp":"2026-11-30T01:00:03.000Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Listing."}],"stop_reason":null}}
{"type":"assistant","uuid":"a3","parentUuid":"a2","sessionId":"s1","timestamp":"2026-11-30T01:00:04.000Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"ls"}}],"stop_reason":"tool_use"}}
{"type":"user","uuid":"u2","parentUuid":"a3","sessionId":"s1","timestamp":"2026-11-30T01:00:05.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"a.txt"}]}}
{"type":"assistant","uuid":"a4","parentUuid":"u2","sessionId":"s1","timestamp":"2026-11-30T01:00:06.000Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn"}}
`
	res := jlRead(t, []byte(file), "s1.jsonl", FormatClaudeCode)
	if res.err != nil {
		t.Fatal(res.err)
	}
	want := "user: fix it\nassistant: think text call Bash(c1)\ncustom system:turn_duration\nresult c1\nassistant: text\n"
	if got := jlShapes(res.all()); got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	jlCheckTree(t, res.all())
	var st Stepper
	var steps []Step
	for _, e := range res.all() {
		steps = append(steps, st.Add(e)...)
	}
	if s, ok := st.Flush(); ok {
		steps = append(steps, s)
	}
	if len(steps) != 2 || steps[1].Text() != "Done." {
		t.Errorf("%d steps, want 2 with the last one's text Done.", len(steps))
	}
}
