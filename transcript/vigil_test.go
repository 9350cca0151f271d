package transcript

import (
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestVigilRecording(t *testing.T) {
	res := jlRead(t, jlTestdata(t, "vigil/recording.jsonl"), "session.jsonl", FormatVigil)
	if res.err != nil || len(res.runs) != 1 || len(res.notes) != 0 {
		t.Fatalf("err %v, %d runs, notes %v; want one run and no notes", res.err, len(res.runs), res.notes)
	}
	run := res.runs[0]
	want := RunInfo{Format: FormatVigil, ID: "f5d6a6217b581afc", CWD: "/tmp/rec/vigil/work", Model: "fake/m",
		Started: time.Date(2026, 11, 30, 1, 42, 28, 559e6, time.UTC)}
	if run != want {
		t.Errorf("run %+v\nwant %+v", run, want)
	}
	entries := res.entries[0]
	jlCheckTree(t, entries)
	if got, want := jlShapes(entries), strings.Join([]string{
		"user: Run echo hello, then ls /nonex",
		"assistant: think text call bash(toolu_rec_1)",
		"result toolu_rec_1",
		"assistant: text call bash(toolu_rec_2) call bash(toolu_rec_3)",
		"result toolu_rec_2 error",
		"result toolu_rec_3",
		"assistant: text",
		"compaction",
		"user: Now run false.",
		"assistant: call bash(toolu_rec_4)",
		"result toolu_rec_4 error",
		"assistant: text",
	}, "\n")+"\n"; got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	c := entries[7].Body.(*session.Compaction)
	if !strings.Contains(c.Summary, "ls failed") || c.FirstKeptID != entries[6].ID || c.TokensBefore == 0 {
		t.Errorf("compaction %+v", c)
	}
	m := entries[1].Body.(*session.Message)
	if m.Model != (llm.Ref{Provider: "fake", Model: "m"}) || m.Usage.Output == 0 || m.StopReason != llm.StopToolUse {
		t.Errorf("first reply: model %v, usage %+v, stop %q", m.Model, m.Usage, m.StopReason)
	}
	steps := jlSteps(entries)
	if len(steps) != 5 {
		t.Fatalf("%d steps, want 5", len(steps))
	}
	if r, ok := steps[1].Result("toolu_rec_2"); !ok || !r.IsError {
		t.Errorf("step 2: ls result %+v, want an error", r)
	}
}

// TestVigilNewerVersion reads a file of a version this vigil does not know
// as far as it can, with a note.
func TestVigilNewerVersion(t *testing.T) {
	file := `{"type":"session","version":9,"id":"s9","cwd":"/w","created":"2026-11-30T01:00:00.000Z"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}
`
	res := jlRead(t, []byte(file), "s.jsonl", FormatVigil)
	if res.err != nil || len(res.all()) != 1 || res.runs[0].ID != "s9" {
		t.Fatalf("err %v, runs %+v, %d entries", res.err, res.runs, len(res.all()))
	}
	if n, ok := res.note("unknown version 9"); !ok || n.FirstLine != 1 {
		t.Errorf("notes %+v, want unknown version 9 on line 1", res.notes)
	}
}

// TestVigilBadHeader is an error: a file that sniffs as vigil's but whose
// header does not read is not a vigil session.
func TestVigilBadHeader(t *testing.T) {
	file := `{"type":"session","version":1,"created":"2026-11-30T01:00:00.000Z"}` + "\n"
	res := jlDrain(jlForced([]byte(file), FormatVigil))
	if res.err == nil || !strings.Contains(res.err.Error(), "line 1") {
		t.Errorf("err = %v, want an error about line 1", res.err)
	}
}

func FuzzVigil(f *testing.F) {
	data := jlTestdata(f, "vigil/recording.jsonl")
	f.Add(data)
	f.Add(data[:len(data)/3])
	f.Add([]byte(`{"type":"session","version":1,"id":"s","cwd":"/","created":"2026-11-30T01:00:00.000Z"}` + "\n" + `{"type":"x","id":"a","parentId":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		jlFuzz(t, data, FormatVigil)
	})
}
