package session_test

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestAppendReadRoundTrip(t *testing.T) {
	for _, tt := range []struct {
		name string
		body session.Body
		// want is what the entry's body reads back as, when the writer's
		// value is normalised (nil content becomes empty).
		want session.Body
	}{
		{name: "user message", body: user("fix the failing test")},
		{name: "assistant message with thinking and tool call", body: &session.Message{
			Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.Thinking("the test fails because <x> & y", "sig=="),
				llm.Text("Let me look."),
				llm.ToolCall("call_1", "read", rawJSON(`{"path":"a.go", "i":"look"}`)),
			}},
			Model:      llm.Ref{Provider: "openrouter", Model: "anthropic/claude-x", Thinking: llm.ThinkingHigh},
			Usage:      llm.Usage{Input: 1200, Output: 80, CacheRead: 9000, CacheWrite: 300},
			StopReason: llm.StopToolUse,
		}, want: &session.Message{
			Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.Thinking("the test fails because <x> & y", "sig=="),
				llm.Text("Let me look."),
				llm.ToolCall("call_1", "read", rawJSON(`{"path":"a.go","i":"look"}`)),
			}},
			Model:      llm.Ref{Provider: "openrouter", Model: "anthropic/claude-x", Thinking: llm.ThinkingHigh},
			Usage:      llm.Usage{Input: 1200, Output: 80, CacheRead: 9000, CacheWrite: 300},
			StopReason: llm.StopToolUse,
		}},
		{name: "tool result message", body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{
			llm.ToolResult("call_1", true, llm.Text("line 1\nline 2"), llm.Image("image/png", "iVBORw0KGgo=")),
		}}}},
		{name: "message with nil content", body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant}},
			want: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{}}}},
		{name: "custom advisor card", body: &session.Custom{
			CustomType: "advisor", Content: []llm.Block{llm.Text("stop re-running the same command")},
			Display: true, InContext: true, Details: rawJSON(`{"severity":"concern"}`),
		}},
		{name: "custom hidden plan context", body: &session.Custom{
			CustomType: "plan-mode-context", Content: []llm.Block{llm.Text("1. do x\n2. do y")}, InContext: true,
		}},
		{name: "custom shown to the user only", body: &session.Custom{CustomType: "notice", Display: true},
			want: &session.Custom{CustomType: "notice", Display: true, Content: []llm.Block{}}},
		{name: "model change", body: &session.ModelChange{Model: llm.Ref{Provider: "openai", Model: "gpt-6"}, Thinking: llm.ThinkingLow}},
		{name: "model change with bare model", body: &session.ModelChange{Model: llm.Ref{Model: "llama3:8b"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, s := newSession(t)
			first := mustAppend(t, s, user("hello"))
			got := mustAppend(t, s, tt.body)
			want := tt.want
			if want == nil {
				want = tt.body
			}
			if diff := cmp.Diff(want, got.Body); diff != "" {
				t.Errorf("Append returned body (-want +got):\n%s", diff)
			}
			if got.ParentID != first.ID || got.ID == "" || got.ID == first.ID || got.Time.IsZero() {
				t.Errorf("Append assigned id %q parent %q time %v; want a new id, parent %q and a time", got.ID, got.ParentID, got.Time, first.ID)
			}
			if got.Type() != (session.Entry{Body: tt.body}).Type() {
				t.Errorf("Type() = %q", got.Type())
			}
			_, read, err := session.ReadFile(s.File())
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]session.Entry{first, got}, read); diff != "" {
				t.Errorf("ReadFile (-appended +read):\n%s", diff)
			}
			if diff := cmp.Diff(s.Entries(), read); diff != "" {
				t.Errorf("Entries vs ReadFile (-entries +read):\n%s", diff)
			}
		})
	}
}

func TestRoundTripSummaries(t *testing.T) {
	_, s := newSession(t)
	a := mustAppend(t, s, user("a"))
	b := mustAppend(t, s, assistant("b"))
	comp := mustAppend(t, s, &session.Compaction{Summary: "we did a", FirstKeptID: b.ID, TokensBefore: 150000, Details: rawJSON(`{"readFiles":["x.go"]}`)})
	if err := s.BranchFrom(a.ID); err != nil {
		t.Fatal(err)
	}
	bs := mustAppend(t, s, &session.BranchSummary{FromID: comp.ID, Summary: "tried b, failed"})
	_, read, err := session.ReadFile(s.File())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]session.Entry{a, b, comp, bs}, read); diff != "" {
		t.Errorf("ReadFile (-appended +read):\n%s", diff)
	}
}

func TestLineShape(t *testing.T) {
	_, s := newSession(t)
	a := mustAppend(t, s, user("x < y && z"))
	b := mustAppend(t, s, assistant("ok"))
	data, err := os.ReadFile(s.File())
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	want := []string{
		`{"type":"session","version":1,"id":"` + s.ID() + `","cwd":"/home/ana/src/vigil","created":"2026-11-05T14:03:23.000Z"}`,
		`{"type":"message","id":"` + a.ID + `","parentId":null,"timestamp":"2026-11-05T14:03:24.000Z","message":{"role":"user","content":[{"type":"text","text":"x < y && z"}]}}`,
		`{"type":"message","id":"` + b.ID + `","parentId":"` + a.ID + `","timestamp":"2026-11-05T14:03:25.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]},"model":"anthropic/claude-sonnet-5-5","usage":{"input":10,"output":5},"stopReason":"end_turn"}`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("file lines (-want +got):\n%s", diff)
	}
}

func TestAppendRejects(t *testing.T) {
	for _, tt := range []struct {
		name string
		body session.Body
		want string
	}{
		{"nil body", nil, "no body"},
		{"message without role", &session.Message{}, `role ""`},
		{"message with unknown role", &session.Message{Message: llm.Message{Role: "developer"}}, `role "developer"`},
		{"custom without type", &session.Custom{}, "no CustomType"},
		{"compaction keeping an unknown entry", &session.Compaction{FirstKeptID: "nope"}, "not on the path"},
		{"branch summary from nothing", &session.BranchSummary{FromID: "nope"}, "no such entry"},
		{"model change without model", &session.ModelChange{}, "empty"},
		{"model that does not read back", &session.ModelChange{Model: llm.Ref{Model: "a/b"}}, "read back"},
		{"bad thinking level", &session.ModelChange{Model: llm.Ref{Model: "m"}, Thinking: "max"}, "thinking level"},
		{"unknown type", &session.Unknown{Type: "future"}, "unknown type"},
		{"invalid details JSON", &session.Custom{CustomType: "x", Details: rawJSON(`{`)}, "encode"},
		{"invalid tool arguments", &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			{Type: llm.BlockToolCall, ID: "c", Name: "n", Arguments: rawJSON(`{"a":`)}}}}, "encode"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, s := newSession(t)
			mustAppend(t, s, user("a"))
			before, _ := os.ReadFile(s.File())
			_, err := s.Append(tt.body)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Append error = %v, want one containing %q", err, tt.want)
			}
			after, _ := os.ReadFile(s.File())
			if string(before) != string(after) || s.Len() != 1 {
				t.Errorf("a rejected append changed the session")
			}
		})
	}
}

func TestCompactionOnOtherBranchRejected(t *testing.T) {
	_, s := newSession(t)
	a := mustAppend(t, s, user("a"))
	b := mustAppend(t, s, assistant("b"))
	if err := s.BranchFrom(a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(&session.Compaction{FirstKeptID: b.ID}); err == nil {
		t.Error("compaction keeping an entry of another branch: no error")
	}
}

func TestClosed(t *testing.T) {
	_, s := newSession(t)
	e := mustAppend(t, s, user("a"))
	changed := s.Changed()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-changed:
	default:
		t.Error("Changed channel not closed by Close")
	}
	if _, err := s.Append(user("b")); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := s.Sync(); !errors.Is(err, session.ErrClosed) {
		t.Errorf("Sync after Close = %v, want ErrClosed", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if got, ok := s.Get(e.ID); !ok || got.ID != e.ID {
		t.Error("reads after Close lost the entries")
	}
}

func TestSyncEveryAppend(t *testing.T) {
	m := session.NewManager(t.TempDir(), session.Options{Sync: session.SyncEveryAppend})
	s, err := m.New("/w")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustAppend(t, s, user("a"))
	if err := s.Sync(); err != nil {
		t.Fatal(err)
	}
	if _, entries, err := session.ReadFile(s.File()); err != nil || len(entries) != 1 {
		t.Errorf("ReadFile = %d entries, %v", len(entries), err)
	}
}

func TestModelSees(t *testing.T) {
	for _, tt := range []struct {
		name string
		body session.Body
		want bool
	}{
		{"message", user("a"), true},
		{"compaction", &session.Compaction{}, true},
		{"branch summary", &session.BranchSummary{}, true},
		{"custom in context", &session.Custom{InContext: true}, true},
		{"custom for the user only", &session.Custom{Display: true}, false},
		{"model change", &session.ModelChange{}, false},
		{"unknown", &session.Unknown{Type: "x"}, false},
	} {
		if got := (session.Entry{Body: tt.body}).ModelSees(); got != tt.want {
			t.Errorf("%s: ModelSees = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDetailsKeptVerbatim(t *testing.T) {
	_, s := newSession(t)
	e := mustAppend(t, s, &session.Custom{CustomType: "x", Details: rawJSON(`{"b": 1, "a": [1, 2]}`)})
	var v map[string]any
	if err := json.Unmarshal(e.Body.(*session.Custom).Details, &v); err != nil || len(v) != 2 {
		t.Errorf("details = %s, %v", e.Body.(*session.Custom).Details, err)
	}
}
