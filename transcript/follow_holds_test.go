package transcript

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFollowerHolds: a Claude Code reply making a call is held back until
// a line that cannot continue it; Holds tells it is there meanwhile.
func TestFollowerHolds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	lines := []string{
		`{"type":"user","uuid":"u1","sessionId":"s","cwd":"/w","timestamp":"2026-11-30T10:00:00.000Z","message":{"role":"user","content":"go"}}`,
		`{"type":"assistant","uuid":"a1","parentUuid":"u1","sessionId":"s","cwd":"/w","timestamp":"2026-11-30T10:00:01.000Z","message":{"id":"msg_1","role":"assistant","model":"m","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}],"stop_reason":"tool_use"}}`,
		`{"type":"user","uuid":"r1","parentUuid":"a1","sessionId":"s","cwd":"/w","timestamp":"2026-11-30T10:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"ok"}]}}`,
		`{"type":"assistant","uuid":"a2","parentUuid":"r1","sessionId":"s","cwd":"/w","timestamp":"2026-11-30T10:00:03.000Z","message":{"id":"msg_2","role":"assistant","model":"m","content":[{"type":"text","text":"Done."}],"stop_reason":"end_turn"}}`,
	}
	f := Follow(path, FormatClaudeCode)
	write := func(s string) {
		fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		fh.WriteString(s + "\n")
		fh.Close()
	}
	write(lines[0])
	write(lines[1])
	b, err := f.Poll()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Steps) != 0 || !f.Holds("toolu_1") || f.Holds("toolu_2") || f.Holds("") {
		t.Fatalf("after the reply: %d steps, holds %v", len(b.Steps), f.Holds("toolu_1"))
	}
	// The result is queued behind the reply, which may still grow.
	write(lines[2])
	if b, err = f.Poll(); err != nil || len(b.Steps) != 0 || !f.Holds("toolu_1") {
		t.Fatalf("after the result: %d steps, %v, holds %v", len(b.Steps), err, f.Holds("toolu_1"))
	}
	// The next reply completes it.
	write(lines[3])
	if b, err = f.Poll(); err != nil || len(b.Steps) != 1 || f.Holds("toolu_1") {
		t.Fatalf("after the next reply: %d steps, %v, holds %v", len(b.Steps), err, f.Holds("toolu_1"))
	}
	// Released by the hook about its call, the reply and the result
	// queued behind it make the step at once.
	path2 := filepath.Join(t.TempDir(), "s.jsonl")
	g := Follow(path2, FormatClaudeCode)
	path = path2
	write(lines[0])
	write(lines[1])
	write(lines[2])
	if b, err := g.Release("toolu_other"); err != nil || len(b.Steps) != 0 || !g.Holds("toolu_1") {
		t.Fatalf("Release of another call: %d steps, %v", len(b.Steps), err)
	}
	b, err = g.Release("toolu_1")
	if err != nil || len(b.Steps) != 1 || len(b.Steps[0].Results) != 1 || g.Holds("toolu_1") {
		t.Fatalf("Release: %d steps, %v", len(b.Steps), err)
	}
	write(lines[3])
	if b, err = g.Settle(); err != nil || len(b.Steps) != 1 || b.Steps[0].N != 2 || len(g.Notes()) != 0 {
		t.Fatalf("after Release, the next reply: %+v, %v, notes %v", b.Steps, err, g.Notes())
	}
	if (&Follower{}).Holds("toolu_1") {
		t.Fatal("a follower with no format holds a call")
	}
}
