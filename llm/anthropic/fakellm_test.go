package anthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
)

// These tests run the adapter against fakellm over real HTTP, for what the
// conformance suite does not check: Anthropic specifics on the wire.

// serve starts fakellm with script and returns it and a model talking to it.
func serve(t *testing.T, script string, cfg anthropic.Config) (*fakellm.Server, llm.Model) {
	t.Helper()
	srv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	cfg.BaseURL = srv.URL()
	if cfg.Model == "" {
		cfg.Model = "claude-fake"
	}
	if cfg.APIKey == "" {
		cfg.APIKey = "sk-test"
	}
	m, err := anthropic.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// body returns the i-th request the server got, as generic JSON.
func body(t *testing.T, srv *fakellm.Server, i int) map[string]any {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= i {
		t.Fatalf("server got %d requests, want more than %d", len(reqs), i)
	}
	var v map[string]any
	if err := json.Unmarshal(reqs[i].Body, &v); err != nil {
		t.Fatalf("request %d: %v", i, err)
	}
	return v
}

func TestFakeWireRequest(t *testing.T) {
	srv, m := serve(t, `
rules:
  - steps:
      - thinking: "plan"
        text: "done"
`, anthropic.Config{MaxOutput: 2000, Thinking: llm.ThinkingMedium})
	req := llm.Request{
		System: "You review code.",
		Tools: []llm.Tool{
			{Name: "read", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Name: "grep", Description: "Search.", Schema: json.RawMessage(`{"type":"object","properties":{"pattern":{"type":"string"}}}`)},
		},
		Messages: []llm.Message{
			llm.UserText("review this"),
			{Role: llm.RoleAssistant, Content: []llm.Block{llm.ToolCall("toolu_a", "read", json.RawMessage(`{"path":"main.go"}`))}},
			{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("toolu_a", false, llm.Text("package main"), llm.Image("image/png", "iVBORw0KGgo="))}},
		},
	}
	if _, err := llm.Accumulate(m.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	got := body(t, srv, 0)
	want := map[string]string{
		"max_tokens": `12000`,
		"thinking":   `{"type":"enabled","budget_tokens":10000,"display":"summarized"}`,
		"system":     `[{"type":"text","text":"You review code.","cache_control":{"type":"ephemeral"}}]`,
		"stream":     `true`,
		"model":      `"claude-fake"`,
	}
	for key, w := range want {
		var wv any
		if err := json.Unmarshal([]byte(w), &wv); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wv, got[key]); diff != "" {
			t.Errorf("%s (-want +got):\n%s", key, diff)
		}
	}
	tools := got["tools"].([]any)
	if _, ok := tools[0].(map[string]any)["cache_control"]; ok {
		t.Errorf("first tool has a cache breakpoint: %v", tools[0])
	}
	if _, ok := tools[1].(map[string]any)["cache_control"]; !ok {
		t.Errorf("last tool has no cache breakpoint: %v", tools[1])
	}
	msgs := got["messages"].([]any)
	last := msgs[len(msgs)-1].(map[string]any)["content"].([]any)
	result := last[len(last)-1].(map[string]any)
	if result["type"] != "tool_result" || result["tool_use_id"] != "toolu_a" || result["cache_control"] == nil {
		t.Errorf("last block = %v, want the cached tool result for toolu_a", result)
	}
	if content := result["content"].([]any); len(content) != 2 {
		t.Errorf("tool result content = %v, want text and image", content)
	}
}

func TestFakeUsageExact(t *testing.T) {
	_, m := serve(t, `
rules:
  - steps:
      - text: "counted"
        usage: {input: 11, output: 22, cache_read: 33, cache_write: 44}
`, anthropic.Config{})
	resp, err := llm.Accumulate(m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("hi")}}))
	if err != nil {
		t.Fatal(err)
	}
	if want := (llm.Usage{Input: 11, Output: 22, CacheRead: 33, CacheWrite: 44}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
}

// TestFakePromptCache checks that the breakpoints make a growing
// conversation cacheable: the first request writes its prompt, the second
// reads it back.
func TestFakePromptCache(t *testing.T) {
	_, m := serve(t, `
rules:
  - repeat: true
    steps:
      - text: "noted"
`, anthropic.Config{})
	req := llm.Request{
		System:   strings.Repeat("Stable instructions for the advisor. ", 100),
		Messages: []llm.Message{llm.UserText("step one")},
	}
	first, err := llm.Accumulate(m.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	if first.Usage.CacheWrite == 0 || first.Usage.CacheRead != 0 {
		t.Errorf("first usage = %+v, want a cache write and no read", first.Usage)
	}
	req.Messages = append(req.Messages, first.Message, llm.UserText("step two"))
	second, err := llm.Accumulate(m.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	// Within a token of rounding, fakellm counting four bytes a token.
	if second.Usage.CacheRead+1 < first.Usage.PromptTokens() {
		t.Errorf("second usage = %+v, want the whole first prompt (%d tokens) read from the cache", second.Usage, first.Usage.PromptTokens())
	}
}

func TestFakeRedactedThinkingRoundTrip(t *testing.T) {
	srv, m := serve(t, `
rules:
  - steps:
      - thinking: "visible part"
        signature: "SIG-visible"
        redacted_thinking: "REDACTED-BLOB"
        text: "answer"
      - text: "again"
`, anthropic.Config{Thinking: llm.ThinkingLow})
	req := llm.Request{Messages: []llm.Message{llm.UserText("q")}}
	first, err := llm.Accumulate(m.Stream(context.Background(), req))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Block{
		llm.Thinking("visible part", "SIG-visible"),
		llm.RedactedThinking("REDACTED-BLOB"),
		llm.Text("answer"),
	}
	if diff := cmp.Diff(want, first.Message.Content); diff != "" {
		t.Fatalf("content (-want +got):\n%s", diff)
	}
	req.Messages = append(req.Messages, first.Message, llm.UserText("and?"))
	if _, err := llm.Accumulate(m.Stream(context.Background(), req)); err != nil {
		t.Fatal(err)
	}
	msgs := body(t, srv, 1)["messages"].([]any)
	sent, _ := json.Marshal(msgs[1])
	for _, w := range []string{`"signature":"SIG-visible"`, `"type":"redacted_thinking"`, `"data":"REDACTED-BLOB"`} {
		if !strings.Contains(string(sent), w) {
			t.Errorf("assistant turn sent back lacks %s: %s", w, sent)
		}
	}
}

func TestFakeStopReasons(t *testing.T) {
	for wire, want := range map[string]llm.StopReason{
		"max_tokens":    llm.StopMaxTokens,
		"stop_sequence": llm.StopSequence,
		"refusal":       llm.StopRefusal,
		"pause_turn":    llm.StopPause,
	} {
		t.Run(wire, func(t *testing.T) {
			_, m := serve(t, `
rules:
  - steps:
      - text: "partial"
        stop_reason: `+wire+"\n", anthropic.Config{})
			resp, err := llm.Accumulate(m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("q")}}))
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != want {
				t.Errorf("stop reason = %q, want %q", resp.StopReason, want)
			}
		})
	}
}

// TestFakeRetry checks that the adapter leaves retrying to llm.WithRetry,
// which honours the server's retry-after.
func TestFakeRetry(t *testing.T) {
	srv, m := serve(t, `
rules:
  - steps:
      - fault: {status: 529, message: "Overloaded", retry_after: 1ms}
      - text: "second time lucky"
`, anthropic.Config{ProviderName: "anthropic-test"})

	_, err := llm.Accumulate(m.Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("q")}}))
	var e *llm.Error
	if !errors.As(err, &e) || e.Kind != llm.Overloaded || e.Status != 529 || e.Provider != "anthropic-test" || e.RetryAfter != time.Millisecond {
		t.Fatalf("first call error = %#v, want Overloaded 529 from anthropic-test, retry after 1ms", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("server got %d requests, want 1: the SDK must not retry", n)
	}

	srv, m = serve(t, `
rules:
  - steps:
      - fault: {status: 529, message: "Overloaded", retry_after: 1ms}
      - text: "second time lucky"
`, anthropic.Config{})
	resp, err := llm.Accumulate(llm.WithRetry(m, llm.RetryPolicy{MaxAttempts: 2, MaxDelay: time.Second}).
		Stream(context.Background(), llm.Request{Messages: []llm.Message{llm.UserText("q")}}))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Message.Text() != "second time lucky" || len(srv.Requests()) != 2 {
		t.Errorf("got %q after %d requests", resp.Message.Text(), len(srv.Requests()))
	}
}
