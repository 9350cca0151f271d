package tui

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// TestResumedViewMatchesLive: a session read back shows what the live
// events showed: the edit's diff, the command's exit code and the
// interrupted mark, kept in the results' details.
func TestResumedViewMatchesLive(t *testing.T) {
	code := 2
	details := func(rd agent.ResultDetails) json.RawMessage {
		raw, err := json.Marshal(rd)
		if err != nil {
			t.Fatal(err)
		}
		return raw
	}
	var entries []session.Entry
	add := func(b session.Body) {
		entries = append(entries, session.Entry{ID: string(rune('a' + len(entries))), Body: b})
	}
	add(&session.Message{Message: llm.UserText("fix calc")})
	add(&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.ToolCall("e1", "edit", json.RawMessage(`{"path":"calc.go","old_text":"a - b","new_text":"a + b"}`)),
		llm.ToolCall("b1", "bash", json.RawMessage(`{"command":"go test"}`)),
		llm.ToolCall("s1", "bash", json.RawMessage(`{"command":"sleep 100"}`)),
	}}})
	add(&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("e1", false, llm.Text("Edited calc.go"))}},
		Details: details(agent.ResultDetails{Details: tools.Details{Path: "calc.go", Diff: "--- a/calc.go\n+++ b/calc.go\n@@ -1 +1 @@\n-return a - b\n+return a + b\n"}})})
	add(&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("b1", true, llm.Text("FAIL"))}},
		Details: details(agent.ResultDetails{Details: tools.Details{ExitCode: &code}})})
	add(&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("s1", true, llm.Text("killed"))}},
		Details: details(agent.ResultDetails{Interrupted: true, Reason: agent.InterruptUser})})
	m := newTestModel(t, &fakeApp{entries: entries, status: sampleStatus()})
	assertContains(t, plain(m), "✓ edit calc.go", "calc.go +1 -1", "+return a + b", "✗ bash go test", "exit 2", "⊘ bash sleep 100", "interrupted")
}

// TestSessionPickerShowsTitleAgeCost: the /resume picker labels each
// session with its first prompt, how long ago it changed and its cost.
func TestSessionPickerShowsTitleAgeCost(t *testing.T) {
	now := time.Date(2026, 12, 6, 12, 0, 0, 0, time.UTC)
	app := &fakeApp{status: sampleStatus(), sessions: []SessionInfo{
		{ID: "aaaa1111", Title: "fix the flaky parser test", Modified: now.Add(-3 * time.Hour), Cost: 0.42},
		{ID: "bbbb2222", Title: "", Modified: now.Add(-30 * time.Second), Current: true},
		{ID: "cccc3333", Title: "one", Modified: now.Add(-25 * time.Hour), Cost: 1.5},
	}}
	m := newTestModel(t, app)
	m.now = func() time.Time { return now }
	runCmd(m, m.openSessionPicker())
	f := plain(m)
	assertContains(t, f, "3 hours ago $0.42 fix the flaky parser test aaaa1111", "just now $0.00 (no prompt yet) (open now) bbbb2222", "1 day ago $1.50 one cccc3333")
	if strings.Contains(f, "(no prompt)  ") {
		t.Errorf("picker:\n%s", f)
	}
}

// TestAgeAndPlural: the words of Age and Plural.
func TestAgeAndPlural(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Second: "just now", time.Minute: "1 minute ago", 59 * time.Minute: "59 minutes ago",
		time.Hour: "1 hour ago", 47 * time.Hour: "1 day ago", 72 * time.Hour: "3 days ago", 90 * 24 * time.Hour: "3 months ago",
	} {
		if got := Age(d); got != want {
			t.Errorf("Age(%v) = %q, want %q", d, got, want)
		}
	}
	for _, c := range []struct {
		n          int
		noun, want string
	}{{0, "line", "0 lines"}, {1, "line", "1 line"}, {2, "line", "2 lines"}, {1, "match", "1 match"}, {3, "match", "3 matches"}, {0, "blocker", "0 blockers"}} {
		if got := Plural(c.n, c.noun); got != c.want {
			t.Errorf("Plural(%d, %q) = %q, want %q", c.n, c.noun, got, c.want)
		}
	}
}
