package transcript

import (
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestClaudeCodeRecording(t *testing.T) {
	res := jlRead(t, jlTestdata(t, "claude-code/recording.jsonl"), "e263d154.jsonl", FormatClaudeCode)
	if res.err != nil || len(res.runs) != 1 {
		t.Fatalf("err %v, %d runs; want one run", res.err, len(res.runs))
	}
	want := RunInfo{Format: FormatClaudeCode, ID: "e263d154-12e5-4199-9981-06732f7026a3", CWD: "/tmp/rec/cc/work",
		Model: "claude-fake-1", Started: time.Date(2026, 11, 30, 1, 33, 52, 550e6, time.UTC)}
	if res.runs[0] != want {
		t.Errorf("run %+v\nwant %+v", res.runs[0], want)
	}
	// Line types this version writes that the reader does not know: noted,
	// and nothing else.
	if got, want := len(res.notes), 3; got != want {
		t.Errorf("notes %+v, want %d", res.notes, want)
	}
	for what, count := range map[string]int{`unknown line type "atis-latch"`: 6, `unknown line type "tools-used"`: 2, `unknown line type "mode"`: 3} {
		if n, ok := res.note(what); !ok || n.Count != count {
			t.Errorf("note %s: got %+v, want count %d", what, n, count)
		}
	}
	entries := res.entries[0]
	jlCheckTree(t, entries)
	got := jlShapes(entries)
	want1 := strings.Join([]string{
		"user: Run echo hello, then ls /nonex",
		"custom attachment:environment ctx",
		"custom attachment:model ctx",
		"custom attachment:deferred_tools_delta ctx",
		"custom attachment:agent_listing_delta ctx",
		"custom attachment:skill_listing ctx",
		"custom attachment:date ctx",
		"custom attachment:remote_session_change ctx",
		// Three lines sharing message.id, merged.
		"assistant: think text call Bash(toolu_rec_1)",
		"result toolu_rec_1",
		"assistant: text call Bash(toolu_rec_2) call Bash(toolu_rec_3)",
		"result toolu_rec_3",
		"result toolu_rec_2 error",
		"assistant: text",
		// claude --continue -p /compact
		"compaction",
		"custom meta ctx",
		"custom local_command ctx",
		"custom local_command ctx",
		"custom attachment:deferred_tools_delta ctx",
		"custom attachment:agent_listing_delta ctx",
		"custom attachment:skill_listing ctx",
		"custom attachment:environment ctx",
		"custom attachment:model ctx",
		// claude --continue -p "Now run false."
		"user: Now run false.",
		"custom attachment:date ctx",
		"custom attachment:remote_session_change ctx",
		"assistant: call Bash(toolu_rec_4)",
		"result toolu_rec_4 error",
		"assistant: text",
	}, "\n") + "\n"
	if got != want1 {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want1)
	}

	reply := entries[10].Body.(*session.Message)
	if reply.Model != (llm.Ref{Provider: "anthropic", Model: "claude-fake-1"}) || reply.StopReason != llm.StopToolUse ||
		reply.Usage.CacheRead == 0 || reply.Usage.Output == 0 {
		t.Errorf("merged reply: model %v, stop %q, usage %+v", reply.Model, reply.StopReason, reply.Usage)
	}
	// The merged reply takes its first line's uuid; its results, which
	// Claude Code hangs off the later lines, name it as parent.
	if entries[11].ParentID != entries[10].ID || entries[12].ParentID != entries[10].ID {
		t.Errorf("results' parents %s, %s; want the merged reply %s", entries[11].ParentID, entries[12].ParentID, entries[10].ID)
	}
	// The first reply's parent was a prompt snapshot (dropped): it hangs
	// off the last attachment before it instead.
	if entries[8].ParentID != entries[7].ID {
		t.Errorf("first reply's parent %s, want %s", entries[8].ParentID, entries[7].ID)
	}
	c := entries[14].Body.(*session.Compaction)
	if !strings.Contains(c.Summary, "ls failed because /nonexistent does not exist") || c.TokensBefore != 12392 || c.FirstKeptID != entries[13].ID {
		t.Errorf("compaction %+v", c)
	}
	if entries[14].ParentID != entries[13].ID {
		t.Errorf("compaction's parent %s, want the last reply before it %s", entries[14].ParentID, entries[13].ID)
	}
	if r := entries[12].Body.(*session.Message).Message.Content[0]; !strings.Contains(r.Content[0].Text, "No such file") {
		t.Errorf("ls result %+v", r)
	}

	steps := jlSteps(entries)
	if len(steps) != 5 {
		t.Fatalf("%d steps, want 5", len(steps))
	}
	if r, ok := steps[1].Result("toolu_rec_2"); !ok || !r.IsError {
		t.Errorf("step 2: ls result %+v, want an error", r)
	}
	if r, ok := steps[1].Result("toolu_rec_3"); !ok || r.IsError {
		t.Errorf("step 2: pwd result %+v, want success", r)
	}
	if len(steps[3].Context) == 0 || steps[3].Context[0].Type() != session.TypeCompaction {
		t.Errorf("step 4 context %v, want the compaction first", jlShapes(steps[3].Context))
	}
}

// TestClaudeCodeLines checks line shapes the recording does not have.
func TestClaudeCodeLines(t *testing.T) {
	const head = `{"type":"queue-operation","operation":"enqueue","timestamp":"2026-11-30T01:00:00.000Z","sessionId":"s1","content":"go"}
`
	for _, tc := range []struct {
		name  string
		lines string
		want  string
		notes []string
	}{{
		name: "results arriving between the lines of one reply are held back",
		lines: `{"type":"assistant","uuid":"a1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-30T01:00:01.000Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"true"}}],"stop_reason":null}}
{"type":"user","uuid":"u1","parentUuid":"a1","sessionId":"s1","timestamp":"2026-11-30T01:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":[{"type":"text","text":"ok"}]}]}}
{"type":"assistant","uuid":"a2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-11-30T01:00:03.000Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"c2","name":"Read","input":{"file_path":"x"}}],"stop_reason":"tool_use"}}
{"type":"user","uuid":"u2","parentUuid":"a2","sessionId":"s1","timestamp":"2026-11-30T01:00:04.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c2","content":"no such file","is_error":true}]}}
`,
		want: "assistant: call Bash(c1) call Read(c2)\nresult c1\nresult c2 error\n",
	}, {
		name: "hooks, API errors, interrupts and unknown blocks",
		lines: `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":"fix it"}}
{"type":"attachment","uuid":"h1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-30T01:00:02.000Z","attachment":{"type":"hook_additional_context","hookName":"PostToolUse:Bash"},"rendered":[{"content":[{"type":"text","text":"advice"}]}],"renderedRole":"system"}
{"type":"assistant","uuid":"e1","parentUuid":"h1","sessionId":"s1","timestamp":"2026-11-30T01:00:03.000Z","isApiErrorMessage":true,"message":{"id":"x","role":"assistant","model":"<synthetic>","content":[{"type":"text","text":"API Error: 529"}]}}
{"type":"system","subtype":"stop_hook_summary","uuid":"s2","parentUuid":"e1","sessionId":"s1","timestamp":"2026-11-30T01:00:04.000Z","content":"Stop hook ran","level":"info"}
{"type":"user","uuid":"u2","parentUuid":"s2","sessionId":"s1","timestamp":"2026-11-30T01:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"Stop hook feedback: keep going"}]}}
{"type":"assistant","uuid":"a3","parentUuid":"u2","sessionId":"s1","timestamp":"2026-11-30T01:00:06.000Z","message":{"id":"m3","role":"assistant","model":"claude-x","content":[{"type":"text","text":"ok"},{"type":"hologram_block"}]}}
{"type":"user","uuid":"u3","parentUuid":"a3","sessionId":"s1","timestamp":"2026-11-30T01:00:07.000Z","message":{"role":"user","content":[{"type":"text","text":"[Request interrupted by user]"}]}}
{"type":"progress","uuid":"p1","parentUuid":"u3","sessionId":"s1","timestamp":"2026-11-30T01:00:08.000Z","data":{}}
{"type":"user","uuid":"u4","parentUuid":"p1","sessionId":"s1","timestamp":"2026-11-30T01:00:09.000Z","message":{"role":"user","content":"again"}}
`,
		want:  "user: fix it\ncustom attachment:hook_additional_context ctx\ncustom api_error\ncustom system:stop_hook_summary\ncustom hook:Stop ctx\nassistant: text\nuser: [Request interrupted by user]\nuser: again\n",
		notes: []string{`unknown content block type "hologram_block"`},
	}, {
		name: "a compaction whose summary line never came",
		lines: `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":"hi"}}
{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,"logicalParentUuid":"u1","sessionId":"s1","timestamp":"2026-11-30T01:00:02.000Z","compactMetadata":{"trigger":"auto","preTokens":900}}
`,
		want: "user: hi\ncompaction\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := jlRead(t, []byte(head+tc.lines), "s1.jsonl", FormatClaudeCode)
			if res.err != nil {
				t.Fatal(res.err)
			}
			if got := jlShapes(res.all()); got != tc.want {
				t.Errorf("entries:\n%s\nwant:\n%s", got, tc.want)
			}
			if len(res.notes) != len(tc.notes) {
				t.Errorf("notes %+v, want %q", res.notes, tc.notes)
			}
			for _, w := range tc.notes {
				if _, ok := res.note(w); !ok {
					t.Errorf("notes %+v, want %q", res.notes, w)
				}
			}
			jlCheckTree(t, res.all())
		})
	}
}

func FuzzClaudeCode(f *testing.F) {
	data := jlTestdata(f, "claude-code/recording.jsonl")
	f.Add(data)
	lines := jlLines(data)
	for _, i := range []int{18, 28, 42, 43} {
		f.Add(lines[i])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		jlFuzz(t, data, FormatClaudeCode)
	})
}
