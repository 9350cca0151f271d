package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
)

func fakellmModel(t *testing.T, script string, cfg Config) (*fakellm.Server, *Model) {
	t.Helper()
	srv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	cfg.BaseURL = srv.URL() + "/v1"
	return srv, newModel(t, cfg)
}

func TestChatStream(t *testing.T) {
	srv, m := fakellmModel(t, `
rules:
  - steps:
      - thinking: "Two files to read."
        text: "Reading both."
        chunk: 4
        tool_calls:
          - {id: call_a, name: read, arguments: {path: a.go}}
          - {id: call_b, name: read, arguments: {path: b.go}}
        usage: {input: 40, cache_read: 60, output: 12}
`, Config{MaxOutput: 300})
	resp, events := accumulate(t, m, userText("read a and b"))

	want := []llm.Block{
		{Type: llm.BlockThinking, Text: "Two files to read."},
		llm.Text("Reading both."),
		llm.ToolCall("call_a", "read", json.RawMessage(`{"path":"a.go"}`)),
		llm.ToolCall("call_b", "read", json.RawMessage(`{"path":"b.go"}`)),
	}
	if diff := cmp.Diff(want, resp.Message.Content); diff != "" {
		t.Errorf("content (-want +got):\n%s", diff)
	}
	if resp.StopReason != llm.StopToolUse {
		t.Errorf("stop = %q, want tool_use", resp.StopReason)
	}
	if want := (llm.Usage{Input: 40, CacheRead: 60, Output: 12}); resp.Usage != want {
		t.Errorf("usage = %+v, want %+v", resp.Usage, want)
	}
	// The thinking block ends before the text starts, and the stream closes
	// with exactly one usage event and the stop.
	var thinkingEnd, firstText = -1, -1
	for i, ev := range events {
		if ev.Type == llm.EventThinkingEnd && thinkingEnd < 0 {
			thinkingEnd = i
		}
		if ev.Type == llm.EventTextDelta && firstText < 0 {
			firstText = i
		}
	}
	if thinkingEnd < 0 || thinkingEnd > firstText {
		t.Errorf("thinking end at %d, first text at %d: %v", thinkingEnd, firstText, eventTypes(events))
	}
	if n := len(events); events[n-2].Type != llm.EventUsage || events[n-1].Type != llm.EventStop {
		t.Errorf("stream does not end with usage, stop: %v", eventTypes(events))
	}

	body := srv.Requests()[0].Body
	for path, want := range map[string]any{
		"stream":                       true,
		"stream_options.include_usage": true,
		"max_completion_tokens":        300.0,
		"model":                        "test-model",
	} {
		if got := field(t, body, path); got != want {
			t.Errorf("request %s = %v, want %v", path, got, want)
		}
	}
}

func TestChatStopReasons(t *testing.T) {
	tests := []struct {
		stop string
		want llm.StopReason
	}{
		{"end_turn", llm.StopEndTurn},
		{"length", llm.StopMaxTokens},
		{"content_filter", llm.StopRefusal},
	}
	for _, tt := range tests {
		t.Run(tt.stop, func(t *testing.T) {
			_, m := fakellmModel(t, fmt.Sprintf(`
rules:
  - steps:
      - text: "partial"
        stop_reason: %s
`, tt.stop), Config{})
			resp, _ := accumulate(t, m, userText("x"))
			if resp.StopReason != tt.want {
				t.Errorf("stop = %q, want %q", resp.StopReason, tt.want)
			}
		})
	}
}

// chunk renders one Chat Completions chunk with a delta for choice 0.
func chunk(delta string, finish string) string {
	f := "null"
	if finish != "" {
		f = `"` + finish + `"`
	}
	return fmt.Sprintf(`{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":%s,"finish_reason":%s}]}`, delta, f)
}

const usageChunk = `{"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[],"usage":{"prompt_tokens":100,"completion_tokens":7,"total_tokens":107,"prompt_tokens_details":{"cached_tokens":30}}}`

// TestChatServerQuirks replays what compatible servers send that fakellm
// does not: interleaved and index-reusing tool calls, missing ids,
// reasoning fields, odd finish reasons, error chunks and early ends.
func TestChatServerQuirks(t *testing.T) {
	tests := []struct {
		name    string
		events  []string
		want    []llm.Block
		stop    llm.StopReason
		usage   llm.Usage
		errKind llm.ErrorKind // a failure instead of a reply
	}{{
		name: "InterleavedToolCalls",
		events: []string{
			chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_x","type":"function","function":{"name":"read","arguments":""}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"id":"call_y","type":"function","function":{"name":"bash","arguments":"{\"comm"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"and\":\"ls\"}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"\"a.go\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"), usageChunk, "[DONE]",
		},
		want: []llm.Block{
			llm.ToolCall("call_x", "read", json.RawMessage(`{"path":"a.go"}`)),
			llm.ToolCall("call_y", "bash", json.RawMessage(`{"command":"ls"}`)),
		},
		stop:  llm.StopToolUse,
		usage: llm.Usage{Input: 70, CacheRead: 30, Output: 7},
	}, {
		name: "IndexReusedWithNewIDs",
		events: []string{
			chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read","arguments":"{\"path\":\"a\"}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"read","arguments":"{\"path\":\"b\"}"}}]}`, ""),
			chunk(`{}`, "tool_calls"), usageChunk, "[DONE]",
		},
		want: []llm.Block{
			llm.ToolCall("c1", "read", json.RawMessage(`{"path":"a"}`)),
			llm.ToolCall("c2", "read", json.RawMessage(`{"path":"b"}`)),
		},
		stop:  llm.StopToolUse,
		usage: llm.Usage{Input: 70, CacheRead: 30, Output: 7},
	}, {
		name: "NoIDsNameLateEmptyArgsStopFinish",
		events: []string{
			chunk(`{"content":"Checking."}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"x\":"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":0,"function":{"name":"calc","arguments":"1}"}}]}`, ""),
			chunk(`{"tool_calls":[{"index":1,"function":{"name":"now"}}]}`, ""),
			chunk(`{}`, "stop"), "[DONE]",
		},
		want: []llm.Block{
			llm.Text("Checking."),
			llm.ToolCall("call_chatcmpl-1_1", "calc", json.RawMessage(`{"x":1}`)),
			llm.ToolCall("call_chatcmpl-1_2", "now", json.RawMessage(`{}`)),
		},
		stop: llm.StopToolUse,
	}, {
		name: "ReasoningFields",
		events: []string{
			chunk(`{"role":"assistant","content":null,"reasoning":"Think"}`, ""),
			chunk(`{"reasoning_content":"ing."}`, ""),
			chunk(`{"content":"Done."}`, ""),
			chunk(`{"reasoning_content":"Again."}`, ""),
			chunk(`{}`, "stop"), usageChunk, "[DONE]",
		},
		want: []llm.Block{
			{Type: llm.BlockThinking, Text: "Thinking."},
			llm.Text("Done."),
			{Type: llm.BlockThinking, Text: "Again."},
		},
		stop:  llm.StopEndTurn,
		usage: llm.Usage{Input: 70, CacheRead: 30, Output: 7},
	}, {
		name: "Refusal",
		events: []string{
			chunk(`{"refusal":"I can't help with that."}`, ""),
			chunk(`{}`, "stop"), usageChunk, "[DONE]",
		},
		want:  []llm.Block{llm.Text("I can't help with that.")},
		stop:  llm.StopRefusal,
		usage: llm.Usage{Input: 70, CacheRead: 30, Output: 7},
	}, {
		name: "CutToolCallAtLength",
		events: []string{
			chunk(`{"content":"Writing."}`, ""),
			chunk(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"write","arguments":"{\"text\":\"very lo"}}]}`, ""),
			chunk(`{}`, "length"), usageChunk, "[DONE]",
		},
		want:  []llm.Block{llm.Text("Writing.")},
		stop:  llm.StopMaxTokens,
		usage: llm.Usage{Input: 70, CacheRead: 30, Output: 7},
	}, {
		name: "DeepSeekCacheHits",
		events: []string{
			chunk(`{"content":"hi"}`, "stop"),
			`{"id":"x","choices":[],"usage":{"prompt_tokens":50,"completion_tokens":2,"total_tokens":52,"prompt_cache_hit_tokens":40,"prompt_cache_miss_tokens":10}}`,
			"[DONE]",
		},
		want:  []llm.Block{llm.Text("hi")},
		stop:  llm.StopEndTurn,
		usage: llm.Usage{Input: 10, CacheRead: 40, Output: 2},
	}, {
		name:   "UsageWithoutDone",
		events: []string{chunk(`{"content":"hi"}`, "stop"), usageChunk},
		want:   []llm.Block{llm.Text("hi")},
		stop:   llm.StopEndTurn,
		usage:  llm.Usage{Input: 70, CacheRead: 30, Output: 7},
	}, {
		name:   "DoneWithoutUsage",
		events: []string{chunk(`{"content":"hi"}`, "stop"), "[DONE]"},
		want:   []llm.Block{llm.Text("hi")},
		stop:   llm.StopEndTurn,
	}, {
		name:    "InvalidArguments",
		events:  []string{chunk(`{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":"{oops"}}]}`, "tool_calls"), usageChunk, "[DONE]"},
		errKind: llm.Truncated,
	}, {
		name:    "NoFinishReason",
		events:  []string{chunk(`{"content":"hi"}`, ""), "[DONE]"},
		errKind: llm.Truncated,
	}, {
		name:    "CutAfterFinish",
		events:  []string{chunk(`{"content":"hi"}`, "stop")},
		errKind: llm.Truncated,
	}, {
		name:    "MalformedChunk",
		events:  []string{chunk(`{"content":"hi"}`, ""), `{"id":"x","choices":[{"ind`},
		errKind: llm.Truncated,
	}, {
		name:    "ErrorChunk",
		events:  []string{chunk(`{"content":"hi"}`, ""), `{"error":{"message":"Rate limit exceeded upstream","code":429}}`},
		errKind: llm.RateLimited,
	}, {
		name:    "ErrorChunkContext",
		events:  []string{`{"error":{"message":"This model's maximum context length is 4096 tokens","type":"invalid_request_error","code":"context_length_exceeded"}}`},
		errKind: llm.ContextTooLong,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := startRaw(t, sseReply(tt.events...))
			m := srv.model(t, Config{})
			if tt.errKind != "" {
				events, err := collect(t, m.Stream(context.Background(), userText("x")))
				if !errors.Is(err, tt.errKind) {
					t.Fatalf("error = %v after %v, want kind %q", err, eventTypes(events), tt.errKind)
				}
				var e *llm.Error
				if errors.As(err, &e) && e.Provider != "openai" {
					t.Errorf("provider = %q, want openai", e.Provider)
				}
				return
			}
			resp, _ := accumulate(t, m, userText("x"))
			if diff := cmp.Diff(tt.want, resp.Message.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
			if resp.StopReason != tt.stop {
				t.Errorf("stop = %q, want %q", resp.StopReason, tt.stop)
			}
			if resp.Usage != tt.usage {
				t.Errorf("usage = %+v, want %+v", resp.Usage, tt.usage)
			}
		})
	}
}

// TestNoEnvironment checks that OPENAI_* variables cannot redirect a
// request or add credentials: only the Config counts.
func TestNoEnvironment(t *testing.T) {
	t.Setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
	t.Setenv("OPENAI_API_KEY", "env-key")
	t.Setenv("OPENAI_ORG_ID", "env-org")
	t.Setenv("OPENAI_PROJECT_ID", "env-project")
	t.Setenv("OPENAI_CUSTOM_HEADERS", "X-From-Env: yes")
	for _, tt := range []struct {
		name, key, wantAuth string
	}{
		{"WithKey", "cfg-key", "Bearer cfg-key"},
		{"WithoutKey", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			headers := make(chan http.Header, 1)
			srv := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
				headers <- r.Header.Clone()
				sseReply(chunk(`{"content":"hi"}`, "stop"), "[DONE]")(w, r)
			})
			m := srv.model(t, Config{APIKey: tt.key, Headers: map[string]string{"X-Custom": "1"}})
			accumulate(t, m, userText("x"))
			h := <-headers
			if got := h.Get("Authorization"); got != tt.wantAuth {
				t.Errorf("Authorization = %q, want %q", got, tt.wantAuth)
			}
			if h.Get("X-Custom") != "1" {
				t.Errorf("configured header missing: %v", h)
			}
			for _, k := range []string{"OpenAI-Organization", "OpenAI-Project", "X-From-Env"} {
				if v := h.Get(k); v != "" {
					t.Errorf("header %s = %q leaked from the environment", k, v)
				}
			}
		})
	}
}

// stallServer sends three text events, then holds the connection until
// the client goes away, which it reports by closing gone.
func stallServer(t *testing.T, api llm.API) (*rawServer, chan struct{}) {
	gone := make(chan struct{})
	text := chunk(`{"content":"partial"}`, "")
	if api == llm.APIOpenAIResponses {
		text = "event: response.output_text.delta\ndata: " + `{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":"partial"}`
	}
	srv := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
		sseReply(text, text, text)(w, r)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
		close(gone)
	})
	return srv, gone
}

// waitGone waits, boundedly, for the server to see the client leave.
func waitGone(t *testing.T, gone chan struct{}) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the connection stayed open")
	}
}

func TestCancelStalledStream(t *testing.T) {
	for _, api := range []llm.API{llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		t.Run(string(api), func(t *testing.T) {
			srv, gone := stallServer(t, api)
			m := srv.model(t, Config{API: api})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var final error
			var n int
			for ev, err := range m.Stream(ctx, userText("x")) {
				if err != nil {
					final = err
					break
				}
				if n++; n == 1 {
					if ev.Type != llm.EventTextDelta || ev.Text != "partial" {
						t.Errorf("first event = %+v", ev)
					}
					cancel()
				}
			}
			if !errors.Is(final, context.Canceled) {
				t.Errorf("error = %v, want context.Canceled", final)
			}
			// The events already read are not delivered after the cancel.
			if n != 1 {
				t.Errorf("got %d events, want only the one before the cancel", n)
			}
			waitGone(t, gone)
		})
	}
}

func TestBreakClosesConnection(t *testing.T) {
	for _, api := range []llm.API{llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		t.Run(string(api), func(t *testing.T) {
			srv, gone := stallServer(t, api)
			m := srv.model(t, Config{API: api})
			for range m.Stream(context.Background(), userText("x")) {
				break
			}
			waitGone(t, gone)
		})
	}
}

func TestDoneWatcher(t *testing.T) {
	tests := []struct {
		reads []string
		want  bool
	}{
		{[]string{"data: {}\n\ndata: [DONE]\n\n"}, true},
		{[]string{"data: {}\n\ndata:[DONE]\n"}, true},
		{[]string{"data: [DONE]\n\n"}, true},
		{[]string{"data: {}\n\ndata: [DO", "NE]\r\n\r\n"}, true},
		{[]string{strings.Repeat("x", 100), "\ndata: [DONE]", "\n", "\n"}, true},
		{[]string{"data: {}\n\n"}, false},
		{[]string{`data: {"content":"data: [DONE]"}` + "\n\n"}, false},
		{[]string{`data: {"c":"x data: [DONE]`}, false},
		{nil, false},
	}
	for _, tt := range tests {
		var w doneWatcher
		for _, r := range tt.reads {
			w.keep([]byte(r))
		}
		if got := w.seen(); got != tt.want {
			t.Errorf("reads %q: seen = %v, want %v", tt.reads, got, tt.want)
		}
	}
}
