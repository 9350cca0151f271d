package transcript

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// claudeStreamSample is what `claude -p --output-format stream-json
// --verbose` prints for a run of two tool calls, one refused for want of
// permission, written for this test in the shape of Claude Code 2.1.
const claudeStreamSample = `{"type":"system","subtype":"init","cwd":"/tmp/w","session_id":"5d3c9a1e-0000-4000-8000-000000000001","tools":["Bash","Edit","Read"],"mcp_servers":[],"model":"claude-sonnet-4-5","permissionMode":"default","slash_commands":[],"apiKeySource":"none","claude_code_version":"2.1.30","output_style":"default","uuid":"u-init"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"Run the tests.","signature":"sig"}],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":5}},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-a1"}
{"type":"assistant","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"python3 -m pytest -q"}}],"stop_reason":"tool_use","usage":{"input_tokens":10,"output_tokens":20}},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-a2"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Exit code 1\n1 failed, 1 passed in 0.02s","is_error":true}]},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-r1","tool_use_result":"Error: Exit code 1"}
{"type":"stream_event","event":{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Fix"}},"session_id":"5d3c9a1e-0000-4000-8000-000000000001","parent_tool_use_id":null,"uuid":"u-se"}
{"type":"assistant","message":{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_2","name":"Task","input":{"prompt":"look"}}],"stop_reason":"tool_use"},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-a3"}
{"type":"assistant","message":{"id":"msg_sub","type":"message","role":"assistant","model":"claude-haiku","content":[{"type":"text","text":"subagent words"}]},"parent_tool_use_id":"toolu_2","session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-sub"}
{"type":"user","message":{"role":"user","content":[{"tool_use_id":"toolu_2","type":"tool_result","content":[{"type":"text","text":"looked"}]}]},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-r2"}
{"type":"assistant","message":{"id":"msg_3","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_3","name":"Edit","input":{"file_path":"/tmp/w/calc.py","old_string":"a - b","new_string":"a + b"}}],"stop_reason":"tool_use"},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-a4"}
{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"Claude requested permissions to write to /tmp/w/calc.py, but you haven't granted it yet.","is_error":true,"tool_use_id":"toolu_3"}]},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-r3"}
{"type":"assistant","message":{"id":"msg_4","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"I could not edit calc.py."}],"stop_reason":"end_turn"},"parent_tool_use_id":null,"session_id":"5d3c9a1e-0000-4000-8000-000000000001","uuid":"u-a5"}
{"type":"result","subtype":"success","is_error":false,"duration_ms":5120,"duration_api_ms":4800,"num_turns":4,"result":"I could not edit calc.py.","session_id":"5d3c9a1e-0000-4000-8000-000000000001","total_cost_usd":0.0123,"usage":{"input_tokens":40,"output_tokens":60},"permission_denials":[{"tool_name":"Edit","tool_use_id":"toolu_3","tool_input":{}}],"uuid":"u-res"}
`

// TestClaudeStream reads stream-json output: the run from the init line,
// one reply per message id, the results, the subagent's lines and partial
// events left out, and the result line as how the run ended.
func TestClaudeStream(t *testing.T) {
	res := jlRead(t, []byte(claudeStreamSample), "out.jsonl", FormatClaudeStream)
	if res.err != nil {
		t.Fatal(res.err)
	}
	if len(res.runs) != 1 {
		t.Fatalf("%d runs", len(res.runs))
	}
	run := res.runs[0]
	if run.ID != "5d3c9a1e-0000-4000-8000-000000000001" || run.CWD != "/tmp/w" || run.Model != "claude-sonnet-4-5" || run.Format != FormatClaudeStream {
		t.Errorf("run %+v", run)
	}
	want := "assistant: think call Bash(toolu_1)\nresult toolu_1 error\nassistant: call Task(toolu_2)\nresult toolu_2\nassistant: call Edit(toolu_3)\nresult toolu_3 error\nassistant: text\ncustom exit\n"
	if got := jlShapes(res.all()); got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	all := res.all()
	// No times: stream-json has none. Ids and parents still make a tree.
	seen := map[string]bool{}
	for i, e := range all {
		if e.ID == "" || seen[e.ID] || e.ParentID != "" && !seen[e.ParentID] {
			t.Errorf("entry %d: id %q, parent %q", i, e.ID, e.ParentID)
		}
		seen[e.ID] = true
	}
	if m := all[0].Body.(*session.Message); m.Usage.Output != 20 || m.Model.Model != "claude-sonnet-4-5" {
		t.Errorf("first reply %+v", m)
	}
	if c := all[len(all)-1].Body.(*session.Custom); !strings.Contains(c.Content[0].Text, "success") || c.Display != true || c.InContext {
		t.Errorf("exit %+v", c)
	}
	if _, ok := res.note("subagent line skipped"); !ok {
		t.Errorf("notes %+v, want the subagent's line noted", res.notes)
	}
}

// TestSniffClaudeStream: stream-json is told from a Claude Code session
// file (sessionId, parentUuid) by its session_id, and from other formats.
func TestSniffClaudeStream(t *testing.T) {
	lines := strings.SplitAfter(claudeStreamSample, "\n")
	for _, tc := range []struct {
		name, head string
		want       bool
	}{
		{"init first", claudeStreamSample, true},
		{"no init (cut at the front)", strings.Join(lines[1:], ""), true},
		{"result only", lines[len(lines)-2], true},
		{"session file", `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-30T01:00:00.000Z","message":{"role":"user","content":"x"}}` + "\n", false},
		{"plain object", `{"type":"assistant","message":{"role":"assistant","content":"hi"}}` + "\n", false},
	} {
		if got := sniffClaudeStream([]byte(tc.head), "out.jsonl"); got != tc.want {
			t.Errorf("%s: sniff = %v, want %v", tc.name, got, tc.want)
		}
	}
	rd, err := NewReader(strings.NewReader(claudeStreamSample), "out.jsonl")
	if err != nil || rd.Format() != FormatClaudeStream {
		t.Errorf("NewReader: %v, format %v", err, rd)
	}
}

func FuzzClaudeStream(f *testing.F) {
	f.Add([]byte(claudeStreamSample))
	for _, l := range strings.SplitAfter(claudeStreamSample, "\n") {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		jlFuzz(t, data, FormatClaudeStream)
	})
}
