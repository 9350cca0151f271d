package session_test

import (
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// TestUsageByModel sums the replies' usage per model, the thinking level
// left out, over every branch, and counts nothing else.
func TestUsageByModel(t *testing.T) {
	s, err := session.NewManager(filepath.Join(t.TempDir(), "sessions"), session.Options{}).New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	a := llm.Ref{Provider: "p", Model: "a", Thinking: llm.ThinkingHigh}
	b := llm.Ref{Provider: "p", Model: "b"}
	first, err := s.Append(&session.Message{Message: llm.UserText("hi")})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []*session.Message{
		{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("x")}}, Model: a, Usage: llm.Usage{Input: 10, Output: 2}},
		{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("y")}}, Model: b, Usage: llm.Usage{Input: 5}},
	} {
		if _, err := s.Append(m); err != nil {
			t.Fatal(err)
		}
	}
	// A reply on another branch counts too.
	if err := s.BranchFrom(first.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(&session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("z")}}, Model: llm.Ref{Provider: "p", Model: "a"}, Usage: llm.Usage{Output: 1}}); err != nil {
		t.Fatal(err)
	}
	got := s.UsageByModel()
	want := map[llm.Ref]llm.Usage{{Provider: "p", Model: "a"}: {Input: 10, Output: 3}, b: {Input: 5}}
	if len(got) != len(want) || got[llm.Ref{Provider: "p", Model: "a"}] != want[llm.Ref{Provider: "p", Model: "a"}] || got[b] != want[b] {
		t.Errorf("UsageByModel = %v, want %v", got, want)
	}
}
