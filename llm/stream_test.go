package llm_test

import (
	"encoding/json"
	"errors"
	"iter"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigil-dev/vigil/llm"
)

func seq(events []llm.Event, final error) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range events {
			if !yield(ev, nil) {
				return
			}
		}
		if final != nil {
			yield(llm.Event{}, final)
		}
	}
}

func TestAccumulate(t *testing.T) {
	events := []llm.Event{
		{Type: llm.EventThinkingDelta, Index: 0, Text: "let me "},
		{Type: llm.EventThinkingDelta, Index: 0, Text: "think"},
		{Type: llm.EventThinkingEnd, Index: 0, Signature: "sig"},
		{Type: llm.EventThinkingEnd, Index: 1, Redacted: "opaque"},
		{Type: llm.EventTextDelta, Index: 2, Text: "Hel"},
		{Type: llm.EventTextDelta, Index: 2, Text: "lo"},
		{Type: llm.EventToolCallStart, Index: 3, ToolCallID: "c1", ToolName: "bash"},
		{Type: llm.EventToolCallDelta, Index: 3, Text: `{"command":`},
		{Type: llm.EventToolCallDelta, Index: 3, Text: `"ls"}`},
		{Type: llm.EventToolCallEnd, Index: 3},
		{Type: llm.EventToolCallStart, Index: 4, ToolCallID: "c2", ToolName: "read"},
		{Type: llm.EventToolCallEnd, Index: 4, Arguments: json.RawMessage(`{"path":"x"}`)},
		{Type: llm.EventUsage, Usage: llm.Usage{Input: 10, Output: 5}},
		{Type: llm.EventUsage, Usage: llm.Usage{Input: 10, Output: 7, CacheRead: 3}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
	got, err := llm.Accumulate(seq(events, nil))
	if err != nil {
		t.Fatal(err)
	}
	want := &llm.Response{
		Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking("let me think", "sig"),
			llm.RedactedThinking("opaque"),
			llm.Text("Hello"),
			llm.ToolCall("c1", "bash", json.RawMessage(`{"command":"ls"}`)),
			llm.ToolCall("c2", "read", json.RawMessage(`{"path":"x"}`)),
		}},
		Usage:      llm.Usage{Input: 10, Output: 7, CacheRead: 3},
		StopReason: llm.StopToolUse,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Accumulate (-want +got):\n%s", diff)
	}
}

func TestAccumulateKeepsPartialReplyOnError(t *testing.T) {
	boom := &llm.Error{Kind: llm.Truncated, Message: "connection reset"}
	events := []llm.Event{
		{Type: llm.EventTextDelta, Index: 0, Text: "partial answer"},
		{Type: llm.EventToolCallStart, Index: 1, ToolCallID: "c1", ToolName: "bash"},
		{Type: llm.EventToolCallDelta, Index: 1, Text: `{"comm`},
	}
	got, err := llm.Accumulate(seq(events, boom))
	if !errors.Is(err, llm.Truncated) {
		t.Fatalf("err = %v, want truncated", err)
	}
	want := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("partial answer")}}
	if diff := cmp.Diff(want, got.Message); diff != "" {
		t.Errorf("partial message (-want +got):\n%s", diff)
	}
}

func TestAccumulateWithoutStopIsTruncated(t *testing.T) {
	got, err := llm.Accumulate(seq([]llm.Event{{Type: llm.EventTextDelta, Text: "hi"}}, nil))
	if !errors.Is(err, llm.Truncated) {
		t.Fatalf("err = %v, want truncated", err)
	}
	if got.Message.Text() != "hi" {
		t.Errorf("text = %q, want the partial reply kept", got.Message.Text())
	}
}

func TestAccumulateRejectsContradictions(t *testing.T) {
	tests := []struct {
		name   string
		events []llm.Event
	}{
		{"delta without start", []llm.Event{{Type: llm.EventToolCallDelta, Index: 0, Text: "{}"}}},
		{"end without start", []llm.Event{{Type: llm.EventToolCallEnd, Index: 0}}},
		{"text into thinking", []llm.Event{
			{Type: llm.EventThinkingDelta, Index: 0, Text: "a"},
			{Type: llm.EventTextDelta, Index: 0, Text: "b"},
		}},
		{"bad arguments", []llm.Event{
			{Type: llm.EventToolCallStart, Index: 0, ToolCallID: "c", ToolName: "x"},
			{Type: llm.EventToolCallDelta, Index: 0, Text: `{"a":`},
			{Type: llm.EventToolCallEnd, Index: 0},
		}},
		{"negative index", []llm.Event{{Type: llm.EventTextDelta, Index: -1}}},
		{"huge index", []llm.Event{{Type: llm.EventTextDelta, Index: 1 << 30}}},
		{"unknown type", []llm.Event{{Type: 99}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := llm.Accumulate(seq(tt.events, nil)); err == nil {
				t.Error("no error")
			}
		})
	}
}

func TestAccumulateEmptyToolArguments(t *testing.T) {
	got, err := llm.Accumulate(seq([]llm.Event{
		{Type: llm.EventToolCallStart, Index: 0, ToolCallID: "c", ToolName: "now"},
		{Type: llm.EventToolCallEnd, Index: 0},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}, nil))
	if err != nil {
		t.Fatal(err)
	}
	if args := string(got.Message.Content[0].Arguments); args != "{}" {
		t.Errorf("arguments = %s, want {}", args)
	}
}

func TestMessageHelpers(t *testing.T) {
	m := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Text("a"), llm.ToolCall("1", "x", nil), llm.Text("b"), llm.ToolCall("2", "y", json.RawMessage(`{"k":1}`)),
	}}
	if m.Text() != "ab" {
		t.Errorf("Text() = %q", m.Text())
	}
	calls := m.ToolCalls()
	if len(calls) != 2 || calls[0].ID != "1" || string(calls[0].Arguments) != "{}" || calls[1].Name != "y" {
		t.Errorf("ToolCalls() = %+v", calls)
	}
}

func TestBlockJSONRoundTrip(t *testing.T) {
	in := llm.Message{Role: llm.RoleUser, Content: []llm.Block{
		llm.Text("look"),
		llm.Image("image/png", "iVBORw0KGgo="),
		llm.ToolResult("c1", true, llm.Text("failed"), llm.Image("image/png", "AAAA")),
		llm.Thinking("hm", "sig"),
		llm.RedactedThinking("zzz"),
		llm.ToolCall("c2", "bash", json.RawMessage(`{"command":"ls"}`)),
	}}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	var out llm.Message
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, out); diff != "" {
		t.Errorf("round trip (-in +out):\n%s", diff)
	}
}

func TestEventTypeString(t *testing.T) {
	if got := llm.EventToolCallDelta.String(); got != "tool_call_delta" {
		t.Errorf("got %q", got)
	}
	if got := llm.EventType(42).String(); got != "EventType(42)" {
		t.Errorf("got %q", got)
	}
}
