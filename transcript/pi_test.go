package transcript

import (
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestPiRecordings(t *testing.T) {
	for _, tc := range []struct {
		path   string
		run    RunInfo
		result func(id string) string
		shapes []string
	}{{
		path: "pi/recording.jsonl",
		run: RunInfo{Format: FormatPi, ID: "01a22a19-9d4f-75d9-9ca0-b7df219e8d3b", CWD: "/tmp/rec/pi/work",
			Model: "fake/gpt-fake-1", Started: time.Date(2026, 11, 30, 1, 37, 31, 472e6, time.UTC)},
		shapes: []string{
			"model fake/gpt-fake-1",
			"user: Run echo hello, then ls /nonex",
			"assistant: think text call bash(call_rec_1)",
			"result call_rec_1",
			"assistant: call bash(call_rec_2) call bash(call_rec_3)",
			"result call_rec_2 error",
			"result call_rec_3",
			"assistant: text",
			"compaction",
			"user: Now run false.",
			"assistant: call bash(call_rec_4)",
			"result call_rec_4 error",
			"assistant: text",
		},
	}, {
		path: "omp/recording.jsonl",
		run: RunInfo{Format: FormatOmp, ID: "01a22a19-78ae-76cb-b343-0a482b63c173", CWD: "/tmp/rec/omp/work",
			Model: "fake/claude-fake-1", Started: time.Date(2026, 11, 30, 1, 37, 22, 94e6, time.UTC)},
		shapes: []string{
			"model fake/claude-fake-1",
			"user: Run echo hello, then ls /nonex",
			"assistant: think text call bash(toolu_rec_1)",
			"result toolu_rec_1",
			"assistant: call bash(toolu_rec_2) call bash(toolu_rec_3)",
			"result toolu_rec_3",
			"result toolu_rec_2 error",
			"assistant: text",
			"compaction",
			"user: Now run false.",
			"assistant: call bash(toolu_rec_4)",
			"result toolu_rec_4 error",
			"assistant: text",
		},
	}} {
		t.Run(tc.path, func(t *testing.T) {
			res := jlRead(t, jlTestdata(t, tc.path), "session.jsonl", FormatPi)
			if res.err != nil || len(res.runs) != 1 || len(res.notes) != 0 {
				t.Fatalf("err %v, %d runs, notes %v; want one run and no notes", res.err, len(res.runs), res.notes)
			}
			if res.runs[0] != tc.run {
				t.Errorf("run %+v\nwant %+v", res.runs[0], tc.run)
			}
			entries := res.entries[0]
			jlCheckTree(t, entries)
			if got, want := jlShapes(entries), strings.Join(tc.shapes, "\n")+"\n"; got != want {
				t.Errorf("entries:\n%s\nwant:\n%s", got, want)
			}
			reply := entries[2].Body.(*session.Message)
			if reply.Model.Provider != "fake" || reply.StopReason != llm.StopToolUse || reply.Usage.Output == 0 {
				t.Errorf("first reply: model %v, stop %q, usage %+v", reply.Model, reply.StopReason, reply.Usage)
			}
			if last := entries[len(entries)-1].Body.(*session.Message); last.StopReason != llm.StopEndTurn {
				t.Errorf("last reply stop %q", last.StopReason)
			}
			c := entries[8].Body.(*session.Compaction)
			if !strings.Contains(c.Summary, "ls failed") || c.TokensBefore == 0 || c.FirstKeptID == "" {
				t.Errorf("compaction %+v", c)
			}
			steps := jlSteps(entries)
			if len(steps) != 5 {
				t.Fatalf("%d steps, want 5", len(steps))
			}
			call := steps[1].Calls()[0]
			if r, ok := steps[1].Result(call.ID); !ok || !r.IsError {
				t.Errorf("step 2: ls result %+v, want an error", r)
			}
			if got := string(call.Arguments); got != `{"command":"ls /nonexistent"}` {
				t.Errorf("arguments %s", got)
			}
		})
	}
}

// TestOmpToolResultParent: omp hangs a tool result off a
// tool_execution_start entry, which is extension state and dropped; the
// result must hang off the reply that made the call.
func TestOmpToolResultParent(t *testing.T) {
	res := jlRead(t, jlTestdata(t, "omp/recording.jsonl"), "session.jsonl", FormatPi)
	entries := res.entries[0]
	if entries[3].ParentID != entries[2].ID {
		t.Errorf("result's parent %s, want the reply %s", entries[3].ParentID, entries[2].ID)
	}
}

// TestPiLines checks entry shapes the recordings do not have.
func TestPiLines(t *testing.T) {
	const head = `{"type":"session","version":3,"id":"s1","timestamp":"2026-11-30T01:00:00.000Z","cwd":"/w"}
`
	lines := `{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":"plain string prompt","timestamp":1}}
{"type":"custom_message","id":"b","parentId":"a","timestamp":"2026-11-30T01:00:02.000Z","customType":"advisor","content":"look at the test","display":true}
{"type":"label","id":"c","parentId":"b","timestamp":"2026-11-30T01:00:03.000Z","targetId":"a","label":"x"}
{"type":"message","id":"d","parentId":"c","timestamp":"2026-11-30T01:00:04.000Z","message":{"role":"bashExecution","command":"make","output":"error","exitCode":2,"cancelled":false,"truncated":false,"timestamp":4}}
{"type":"message","id":"e","parentId":"d","timestamp":"2026-11-30T01:00:05.000Z","message":{"role":"bashExecution","command":"ls","output":"x","exitCode":0,"excludeFromContext":true,"timestamp":5}}
{"type":"branch_summary","id":"f","parentId":"a","timestamp":"2026-11-30T01:00:06.000Z","fromId":"e","summary":"tried make"}
{"type":"message","id":"g","parentId":"f","timestamp":"2026-11-30T01:00:07.000Z","message":{"role":"hologram","timestamp":7}}
{"type":"message","id":"h","parentId":"g","timestamp":"2026-11-30T01:00:08.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}],"provider":"p","model":"m","stopReason":"aborted","timestamp":8}}
`
	res := jlRead(t, []byte(head+lines), "s1.jsonl", FormatPi)
	if res.err != nil {
		t.Fatal(res.err)
	}
	want := "user: plain string prompt\ncustom advisor ctx\ncustom bash_execution ctx\ncustom bash_execution\nbranch summary\nassistant: text\n"
	if got := jlShapes(res.all()); got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	all := res.all()
	// The label (state) and the message of an unknown role are dropped;
	// what followed them hangs off their parents.
	if all[2].ParentID != "b" || all[5].ParentID != "f" {
		t.Errorf("parents %s, %s; want b, f", all[2].ParentID, all[5].ParentID)
	}
	if got := all[2].Body.(*session.Custom).Content[0].Text; !strings.Contains(got, "$ make") || !strings.Contains(got, "exit code 2") {
		t.Errorf("bash execution text %q", got)
	}
	if got := all[5].Body.(*session.Message).StopReason; got != "aborted" {
		t.Errorf("stop reason %q, want aborted passed through", got)
	}
	if _, ok := res.note(`unknown message role "hologram"`); !ok || len(res.notes) != 1 {
		t.Errorf("notes %+v", res.notes)
	}
	if res.runs[0].Format != FormatPi {
		t.Errorf("format %s, want pi", res.runs[0].Format)
	}
}

// TestPiVersions: a newer version is read with a note; an omp file
// without the title slot is told by its header or its entries.
func TestPiVersions(t *testing.T) {
	for _, tc := range []struct {
		name, file string
		format     Format
		note       string
	}{{
		name:   "newer pi version",
		file:   `{"type":"session","version":4,"id":"s","timestamp":"2026-11-30T01:00:00.000Z","cwd":"/w"}` + "\n",
		format: FormatPi,
		note:   "unknown version 4",
	}, {
		name:   "omp header without a title slot",
		file:   `{"type":"session","version":3,"id":"s","timestamp":"2026-11-30T01:00:00.000Z","cwd":"/w","title":"Fix it","titleSource":"auto"}` + "\n",
		format: FormatOmp,
	}, {
		name: "omp model_change",
		file: `{"type":"session","version":3,"id":"s","timestamp":"2026-11-30T01:00:00.000Z","cwd":"/w"}
{"type":"model_change","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:00.000Z","model":"anthropic/claude-x"}
`,
		format: FormatOmp,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := jlRead(t, []byte(tc.file), "s.jsonl", FormatPi)
			if res.err != nil || len(res.runs) != 1 || res.runs[0].Format != tc.format {
				t.Fatalf("err %v, runs %+v; want one %s run", res.err, res.runs, tc.format)
			}
			if tc.note != "" {
				if _, ok := res.note(tc.note); !ok {
					t.Errorf("notes %+v, want %q", res.notes, tc.note)
				}
			}
		})
	}
}

func FuzzPi(f *testing.F) {
	for _, p := range []string{"pi/recording.jsonl", "omp/recording.jsonl"} {
		data := jlTestdata(f, p)
		f.Add(data)
		f.Add(data[:len(data)/2])
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		jlFuzz(t, data, FormatPi)
	})
}
