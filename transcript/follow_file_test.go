package transcript

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
)

// Lines of a small Claude Code session for the tests below.
const (
	ccfPrompt = `{"type":"user","uuid":"u1","parentUuid":null,"sessionId":"s1","cwd":"/w","timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"user","content":"run it"}}` + "\n"
	ccfCall   = `{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s1","timestamp":"2026-11-30T01:00:02.000Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"true"}}],"stop_reason":"tool_use"}}` + "\n"
	ccfResult = `{"type":"user","uuid":"u2","parentUuid":"a1","sessionId":"s1","timestamp":"2026-11-30T01:00:03.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"ok"}]}}` + "\n"
	ccfThink  = `{"type":"assistant","uuid":"a2","parentUuid":"u2","sessionId":"s1","timestamp":"2026-11-30T01:00:04.000Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"thinking","thinking":"done?","signature":"s"}],"stop_reason":"end_turn"}}` + "\n"
	ccfText   = `{"type":"assistant","uuid":"a3","parentUuid":"a2","sessionId":"s1","timestamp":"2026-11-30T01:00:05.000Z","message":{"id":"m2","role":"assistant","model":"claude-x","content":[{"type":"text","text":"It worked."}],"stop_reason":"end_turn"}}` + "\n"
	ccfNext   = `{"type":"user","uuid":"u3","parentUuid":"a3","sessionId":"s1","timestamp":"2026-11-30T01:00:06.000Z","message":{"role":"user","content":"thanks"}}` + "\n"
)

func mustPoll(t *testing.T, fl *Follower) Batch {
	t.Helper()
	b, err := fl.Poll()
	if err != nil {
		t.Fatalf("Poll: %v", err)
	}
	return b
}

func mustSettle(t *testing.T, fl *Follower) Batch {
	t.Helper()
	b, err := fl.Settle()
	if err != nil {
		t.Fatalf("Settle: %v", err)
	}
	return b
}

func TestFollowFileAppearsLater(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	fl := Follow(w.path, "")
	for range 2 {
		if b := mustPoll(t, fl); len(b.Entries) != 0 || b.More {
			t.Fatalf("batch %+v before the file exists", b)
		}
		if b := mustSettle(t, fl); len(b.Entries) != 0 {
			t.Fatalf("batch %+v before the file exists", b)
		}
	}
	w.write([]byte(ccfPrompt))
	b := mustPoll(t, fl)
	if got := jlShapes(b.Entries); got != "user: run it\n" {
		t.Errorf("entries %q", got)
	}
	if len(b.Marks) != 1 || b.Marks[0] != (Mark{Kind: MarkPrompt, Entry: 0}) {
		t.Errorf("marks %+v", b.Marks)
	}
	if r := fl.Run(); r.Format != FormatClaudeCode || r.ID != "s1" || r.CWD != "/w" {
		t.Errorf("run %+v", r)
	}
}

func TestFollowHalfWrittenLine(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	fl := Follow(w.path, FormatClaudeCode)
	w.write([]byte(ccfPrompt))
	mustPoll(t, fl)
	cut := len(ccfCall) / 2
	w.write([]byte(ccfCall[:cut]))
	if b := mustPoll(t, fl); len(b.Entries) != 0 {
		t.Fatalf("entries %s from half a line", jlShapes(b.Entries))
	}
	if fl.Offset() != int64(len(ccfPrompt)) {
		t.Errorf("offset %d, want %d", fl.Offset(), len(ccfPrompt))
	}
	if n := fl.Notes(); len(n) != 0 {
		t.Errorf("notes %+v about a line being written", n)
	}
	w.write([]byte(ccfCall[cut:] + ccfResult))
	// The reply may go on on a later line: it is held, with its result.
	if b := mustPoll(t, fl); len(b.Entries) != 0 {
		t.Fatalf("entries %s before the reply is complete", jlShapes(b.Entries))
	}
	w.write([]byte(ccfThink))
	b := mustPoll(t, fl)
	if got := jlShapes(b.Entries); got != "assistant: call Bash(c1)\nresult c1\n" {
		t.Errorf("entries:\n%s", got)
	}
	if len(b.Steps) != 1 || b.Steps[0].N != 1 || len(b.Steps[0].Results) != 1 {
		t.Errorf("steps %+v", b.Steps)
	}
	if fl.Offset() != int64(len(ccfPrompt+ccfCall+ccfResult+ccfThink)) {
		t.Errorf("offset %d", fl.Offset())
	}
}

func TestFollowCodexStepCompletesWithItsResults(t *testing.T) {
	const (
		meta   = `{"timestamp":"2026-11-30T01:00:00.000Z","type":"session_meta","payload":{"id":"t1","cwd":"/w","model_provider":"fake"}}` + "\n"
		turn   = `{"timestamp":"2026-11-30T01:00:00.100Z","type":"turn_context","payload":{"model":"gpt-x"}}` + "\n"
		prompt = `{"timestamp":"2026-11-30T01:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"run it"}]}}` + "\n"
		call   = `{"timestamp":"2026-11-30T01:00:02.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"true\"}","call_id":"c1"}}` + "\n"
		output = `{"timestamp":"2026-11-30T01:00:03.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Process exited with code 0"}}` + "\n"
		answer = `{"timestamp":"2026-11-30T01:00:04.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"done"}]}}` + "\n"
	)
	w := newFollowTemp(t, "rollout.jsonl")
	fl := Follow(w.path, "")
	w.write([]byte(meta + turn + prompt + call + output))
	b := mustPoll(t, fl)
	if len(b.Steps) != 1 || b.Steps[0].N != 1 {
		t.Fatalf("steps %+v, want step 1 once its output is in", b.Steps)
	}
	if m := b.Steps[0].Message(); m.Model.String() != "fake/gpt-x" {
		t.Errorf("model %v", m.Model)
	}
	w.write([]byte(answer))
	if b := mustPoll(t, fl); len(b.Steps) != 0 {
		t.Fatalf("steps %+v before the reply is complete", b.Steps)
	}
	b = mustSettle(t, fl)
	if len(b.Steps) != 1 || b.Steps[0].N != 2 || b.Steps[0].Text() != "done" {
		t.Fatalf("steps %+v, want step 2 at Settle", b.Steps)
	}
	if b := mustSettle(t, fl); len(b.Entries)+len(b.Steps) != 0 {
		t.Errorf("a second Settle returned %+v", b)
	}
}

// TestFollowPrematureSettle: Claude Code wrote the thinking of a reply,
// the Stop hook fired, and only then the reply's text.
func TestFollowPrematureSettle(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	fl := Follow(w.path, FormatClaudeCode)
	w.write([]byte(ccfPrompt + ccfCall + ccfResult + ccfThink))
	var r followed
	r.add(t, mustSettle(t, fl))
	if len(r.steps) != 2 || r.steps[1].Text() != "" {
		t.Fatalf("steps %+v, want 1 and the thinking as 2", r.steps)
	}
	w.write([]byte(ccfText))
	r.add(t, mustPoll(t, fl))
	r.add(t, mustSettle(t, fl))
	w.write([]byte(ccfNext))
	r.add(t, mustSettle(t, fl))
	checkNumbered(t, r.steps)
	if len(r.steps) != 3 || r.steps[2].Text() != "It worked." || r.steps[2].Reply.ID != "a3" {
		t.Errorf("steps %+v, want the text as a step of its own", r.steps)
	}
	want := "user: run it\nassistant: call Bash(c1)\nresult c1\nassistant: think\nassistant: text\nuser: thanks\n"
	if got := jlShapes(r.entries); got != want {
		t.Errorf("entries:\n%s\nwant:\n%s", got, want)
	}
	if _, ok := (jlResult{notes: fl.Notes()}).note("reply continued after Settle: its later blocks are read as a reply of their own"); !ok {
		t.Errorf("notes %+v", fl.Notes())
	}
}

// TestFollowSettleStepWithoutResult: a turn that ended with a call never
// answered (the user interrupted it) completes its step at Settle; a
// result written after that is the next step's context.
func TestFollowSettleStepWithoutResult(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	fl := Follow(w.path, FormatClaudeCode)
	w.write([]byte(ccfPrompt + ccfCall))
	var r followed
	r.add(t, mustSettle(t, fl))
	if len(r.steps) != 1 || len(r.steps[0].Results) != 0 {
		t.Fatalf("steps %+v, want step 1 without results", r.steps)
	}
	w.write([]byte(ccfResult + ccfThink + ccfText))
	r.add(t, mustSettle(t, fl))
	checkNumbered(t, r.steps)
	if len(r.steps) != 2 || len(r.steps[1].Context) != 1 || jlShape(r.steps[1].Context[0]) != "result c1" {
		t.Errorf("steps %+v, want the late result as step 2's context", r.steps)
	}
}

func TestFollowMalformedAndHugeLines(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	fl := Follow(w.path, FormatClaudeCode)
	huge := bytes.Repeat([]byte{0xff, 0, '{', '"'}, (maxPollBytes+followReadSize)/4)
	w.write([]byte(ccfPrompt + `{"type":"user","message":` + "\n"))
	w.write(huge)
	w.write([]byte("\n" + ccfCall + ccfResult))
	var r followed
	b := mustPoll(t, fl)
	if !b.More {
		t.Error("a poll past maxPollBytes did not say there is more")
	}
	r.add(t, b)
	for b.More {
		b = mustPoll(t, fl)
		r.add(t, b)
	}
	r.add(t, mustSettle(t, fl))
	if got := jlShapes(r.entries); got != "user: run it\nassistant: call Bash(c1)\nresult c1\n" {
		t.Errorf("entries:\n%s", got)
	}
	notes := fl.Notes()
	if len(notes) != 1 || notes[0].What != "malformed line" || notes[0].Count != 2 || notes[0].FirstLine != 2 {
		t.Errorf("notes %+v, want two malformed lines from line 2", notes)
	}
}

func TestFollowFileChanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(t *testing.T, w *followTemp)
		want   string
	}{{
		name: "shrank",
		change: func(t *testing.T, w *followTemp) {
			if err := os.Truncate(w.path, 10); err != nil {
				t.Fatal(err)
			}
		},
		want: "it shrank to 10 bytes",
	}, {
		name: "replaced",
		change: func(t *testing.T, w *followTemp) {
			other := w.path + ".new"
			if err := os.WriteFile(other, []byte(ccfPrompt+ccfCall+ccfResult+ccfThink), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other, w.path); err != nil {
				t.Fatal(err)
			}
		},
		want: "another file took its name",
	}, {
		name: "removed",
		change: func(t *testing.T, w *followTemp) {
			if err := os.Remove(w.path); err != nil {
				t.Fatal(err)
			}
		},
		want: "it was removed",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFollowTemp(t, "s1.jsonl")
			fl := Follow(w.path, FormatClaudeCode)
			w.write([]byte(ccfPrompt + ccfCall))
			mustPoll(t, fl)
			tc.change(t, w)
			for range 2 { // the error stays
				b, err := fl.Poll()
				if !errors.Is(err, ErrFileChanged) || !strings.Contains(err.Error(), w.path) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error %v, want ErrFileChanged naming %s and saying %q", err, w.path, tc.want)
				}
				if len(b.Entries) != 0 {
					t.Errorf("entries %s from a changed file", jlShapes(b.Entries))
				}
			}
			if _, err := fl.Settle(); !errors.Is(err, ErrFileChanged) {
				t.Errorf("Settle: %v", err)
			}
		})
	}
}

func TestFollowDetection(t *testing.T) {
	t.Run("waits for a complete line", func(t *testing.T) {
		w := newFollowTemp(t, "s1.jsonl")
		fl := Follow(w.path, "")
		w.write([]byte(ccfPrompt[:40]))
		if b := mustSettle(t, fl); len(b.Entries) != 0 || fl.Run().Format != "" {
			t.Fatalf("detected %q from half a line", fl.Run().Format)
		}
		w.write([]byte(ccfPrompt[40:]))
		if b := mustPoll(t, fl); len(b.Entries) != 1 || fl.Run().Format != FormatClaudeCode {
			t.Fatalf("format %q, %d entries", fl.Run().Format, len(b.Entries))
		}
	})
	for _, tc := range []struct {
		name    string
		content string
		format  Format
		want    string
	}{
		{"gzip", "\x1f\x8b\x08\x00rest\n", "", "gzip-compressed"},
		{"not a transcript", "a\nb\nc\n", "", "not a transcript format vigil can follow"},
		{"told aider", ccfPrompt, FormatAider, "following aider transcripts is not supported"},
		{"told pi, given Claude Code", ccfPrompt, FormatPi, "not a pi session"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newFollowTemp(t, "s1.jsonl")
			w.write([]byte(tc.content))
			fl := Follow(w.path, tc.format)
			for range 2 {
				if _, err := fl.Poll(); err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), w.path) {
					t.Fatalf("error %v, want %q naming the file", err, tc.want)
				}
			}
		})
	}
}

func TestMarkKindString(t *testing.T) {
	for k, want := range map[MarkKind]string{MarkPrompt: "prompt", MarkInterrupt: "interrupt", MarkAdvice: "advice", MarkCompaction: "compaction", 0: "mark(0)"} {
		if k.String() != want {
			t.Errorf("%d: %q, want %q", int(k), k.String(), want)
		}
	}
}
