package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/llm"
)

// These tests replay hand-written SSE bodies, for wire shapes that fakellm
// does not produce (error events, server tool blocks, odd usage). The
// everyday replies are tested against fakellm in fakellm_test.go.

// sse formats one server-sent event.
func sse(typ, data string) string {
	return "event: " + typ + "\ndata: " + data + "\n\n"
}

const (
	msgStart = `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"usage":{"input_tokens":12,"cache_read_input_tokens":100,"cache_creation_input_tokens":30,"output_tokens":1}}}`
	msgStop  = `{"type":"message_stop"}`
)

func msgDelta(stop string, usage string) string {
	return fmt.Sprintf(`{"type":"message_delta","delta":{"stop_reason":%q,"stop_sequence":null},"usage":%s}`, stop, usage)
}

func blockStart(i int, block string) string {
	return fmt.Sprintf(`{"type":"content_block_start","index":%d,"content_block":%s}`, i, block)
}

func blockDelta(i int, delta string) string {
	return fmt.Sprintf(`{"type":"content_block_delta","index":%d,"delta":%s}`, i, delta)
}

func blockStop(i int) string {
	return fmt.Sprintf(`{"type":"content_block_stop","index":%d}`, i)
}

// recorded is what a test server saw of one request.
type recorded struct {
	header http.Header
	body   []byte
}

// replay serves body as an event stream to every request and records them.
func replay(t *testing.T, body string) (*httptest.Server, func() []recorded) {
	t.Helper()
	var mu sync.Mutex
	var reqs []recorded
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		reqs = append(reqs, recorded{r.Header.Clone(), b})
		mu.Unlock()
		if r.URL.Path != "/v1/messages" {
			http.Error(w, "wrong path "+r.URL.Path, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv, func() []recorded {
		mu.Lock()
		defer mu.Unlock()
		return append([]recorded(nil), reqs...)
	}
}

// newTestModel returns a model for the server at url.
func newTestModel(t *testing.T, url string) *Model {
	t.Helper()
	m, err := New(Config{BaseURL: url, APIKey: "sk-test", Model: "claude-test"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// collect drains a stream, checking that an error comes last and alone.
func collect(t *testing.T, ctx context.Context, m llm.Model) ([]llm.Event, error) {
	t.Helper()
	var events []llm.Event
	var final error
	for ev, err := range m.Stream(ctx, llm.Request{Messages: []llm.Message{llm.UserText("hi")}}) {
		if final != nil {
			t.Fatalf("event %v after the error %v", ev.Type, final)
		}
		if err != nil {
			if ev.Type != 0 {
				t.Errorf("error came with event %+v", ev)
			}
			final = err
			continue
		}
		events = append(events, ev)
	}
	return events, final
}

func TestStreamEvents(t *testing.T) {
	body := sse("message_start", msgStart) +
		sse("ping", `{"type":"ping"}`) +
		// Thinking, signed.
		sse("content_block_start", blockStart(0, `{"type":"thinking","thinking":"","signature":""}`)) +
		sse("content_block_delta", blockDelta(0, `{"type":"thinking_delta","thinking":"Let me "}`)) +
		sse("content_block_delta", blockDelta(0, `{"type":"thinking_delta","thinking":"think."}`)) +
		sse("content_block_delta", blockDelta(0, `{"type":"signature_delta","signature":"SIG-1"}`)) +
		sse("content_block_stop", blockStop(0)) +
		// Redacted thinking arrives whole.
		sse("content_block_start", blockStart(1, `{"type":"redacted_thinking","data":"OPAQUE"}`)) +
		sse("content_block_stop", blockStop(1)) +
		// A server tool call and its result are not surfaced.
		sse("content_block_start", blockStart(2, `{"type":"server_tool_use","id":"srv_1","name":"web_search","input":{}}`)) +
		sse("content_block_delta", blockDelta(2, `{"type":"input_json_delta","partial_json":"{\"query\":\"x\"}"}`)) +
		sse("content_block_stop", blockStop(2)) +
		sse("content_block_start", blockStart(3, `{"type":"web_search_tool_result","tool_use_id":"srv_1","content":[]}`)) +
		sse("content_block_stop", blockStop(3)) +
		// Text, with an empty block before it that produces nothing.
		sse("content_block_start", blockStart(4, `{"type":"text","text":""}`)) +
		sse("content_block_stop", blockStop(4)) +
		sse("content_block_start", blockStart(5, `{"type":"text","text":""}`)) +
		sse("content_block_delta", blockDelta(5, `{"type":"text_delta","text":"Hello"}`)) +
		sse("content_block_delta", blockDelta(5, `{"type":"text_delta","text":", world"}`)) +
		sse("content_block_stop", blockStop(5)) +
		// A tool call whose arguments stream in pieces.
		sse("content_block_start", blockStart(6, `{"type":"tool_use","id":"toolu_1","name":"bash","input":{}}`)) +
		sse("content_block_delta", blockDelta(6, `{"type":"input_json_delta","partial_json":""}`)) +
		sse("content_block_delta", blockDelta(6, `{"type":"input_json_delta","partial_json":"{\"command\": "}`)) +
		sse("content_block_delta", blockDelta(6, `{"type":"input_json_delta","partial_json":"\"ls\"}"}`)) +
		sse("content_block_stop", blockStop(6)) +
		// A tool call without arguments.
		sse("content_block_start", blockStart(7, `{"type":"tool_use","id":"toolu_2","name":"pwd","input":{}}`)) +
		sse("content_block_stop", blockStop(7)) +
		sse("message_delta", msgDelta("tool_use", `{"output_tokens":57}`)) +
		sse("message_stop", msgStop)
	srv, _ := replay(t, body)
	events, err := collect(t, context.Background(), newTestModel(t, srv.URL))
	if err != nil {
		t.Fatal(err)
	}
	want := []llm.Event{
		{Type: llm.EventThinkingDelta, Index: 0, Text: "Let me "},
		{Type: llm.EventThinkingDelta, Index: 0, Text: "think."},
		{Type: llm.EventThinkingEnd, Index: 0, Signature: "SIG-1"},
		{Type: llm.EventThinkingEnd, Index: 1, Redacted: "OPAQUE"},
		{Type: llm.EventTextDelta, Index: 2, Text: "Hello"},
		{Type: llm.EventTextDelta, Index: 2, Text: ", world"},
		{Type: llm.EventToolCallStart, Index: 3, ToolCallID: "toolu_1", ToolName: "bash"},
		{Type: llm.EventToolCallDelta, Index: 3, Text: `{"command": `},
		{Type: llm.EventToolCallDelta, Index: 3, Text: `"ls"}`},
		{Type: llm.EventToolCallEnd, Index: 3, Arguments: json.RawMessage(`{"command": "ls"}`)},
		{Type: llm.EventToolCallStart, Index: 4, ToolCallID: "toolu_2", ToolName: "pwd"},
		{Type: llm.EventToolCallEnd, Index: 4, Arguments: json.RawMessage(`{}`)},
		{Type: llm.EventUsage, Usage: llm.Usage{Input: 12, Output: 57, CacheRead: 100, CacheWrite: 30}},
		{Type: llm.EventStop, StopReason: llm.StopToolUse},
	}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	resp, err := llm.Accumulate(func(yield func(llm.Event, error) bool) {
		for _, ev := range events {
			if !yield(ev, nil) {
				return
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	wantMsg := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
		llm.Thinking("Let me think.", "SIG-1"),
		llm.RedactedThinking("OPAQUE"),
		llm.Text("Hello, world"),
		llm.ToolCall("toolu_1", "bash", json.RawMessage(`{"command": "ls"}`)),
		llm.ToolCall("toolu_2", "pwd", nil),
	}}
	if diff := cmp.Diff(wantMsg, resp.Message); diff != "" {
		t.Errorf("accumulated message (-want +got):\n%s", diff)
	}
}

// TestOmittedThinkingRoundTrip replays a reply whose thinking came back
// omitted (display omitted, the newer models' default): the block has no
// text, only a signature. It must be kept, survive a session's JSON, and
// be sent back unchanged on the next turn, or the API rejects the turn.
func TestOmittedThinkingRoundTrip(t *testing.T) {
	srv, requests := replay(t, sse("message_start", msgStart)+
		sse("content_block_start", blockStart(0, `{"type":"thinking","thinking":"","signature":""}`))+
		sse("content_block_delta", blockDelta(0, `{"type":"signature_delta","signature":"SIG-omitted"}`))+
		sse("content_block_stop", blockStop(0))+
		sse("content_block_start", blockStart(1, `{"type":"text","text":""}`))+
		sse("content_block_delta", blockDelta(1, `{"type":"text_delta","text":"Done."}`))+
		sse("content_block_stop", blockStop(1))+
		sse("message_delta", msgDelta("end_turn", `{"output_tokens":5}`))+
		sse("message_stop", msgStop))
	m := newTestModel(t, srv.URL)
	conv := []llm.Message{llm.UserText("hi")}
	resp, err := llm.Accumulate(m.Stream(context.Background(), llm.Request{Messages: conv, Thinking: llm.ThinkingLow}))
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Thinking("", "SIG-omitted"), llm.Text("Done.")}}
	if diff := cmp.Diff(want, resp.Message); diff != "" {
		t.Fatalf("accumulated message (-want +got):\n%s", diff)
	}

	// As a session stores it.
	b, err := json.Marshal(resp.Message)
	if err != nil {
		t.Fatal(err)
	}
	var stored llm.Message
	if err := json.Unmarshal(b, &stored); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, stored); diff != "" {
		t.Fatalf("message after JSON (-want +got):\n%s", diff)
	}

	conv = append(conv, stored, llm.UserText("next"))
	if _, err := llm.Accumulate(m.Stream(context.Background(), llm.Request{Messages: conv, Thinking: llm.ThinkingLow})); err != nil {
		t.Fatal(err)
	}
	reqs := requests()
	if len(reqs) != 2 {
		t.Fatalf("got %d requests, want 2", len(reqs))
	}
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Messages) != 3 || body.Messages[1].Role != "assistant" || len(body.Messages[1].Content) != 2 {
		t.Fatalf("second request's messages = %s, want user, assistant (thinking, text), user", reqs[1].body)
	}
	if diff := cmp.Diff(decode(t, `{"type":"thinking","thinking":"","signature":"SIG-omitted"}`), decode(t, string(body.Messages[1].Content[0]))); diff != "" {
		t.Errorf("thinking block sent back (-want +got):\n%s", diff)
	}
}

func TestStreamUsage(t *testing.T) {
	tests := []struct {
		name  string
		start string
		delta string
		want  llm.Usage
	}{
		{
			name:  "OutputOnlyInDelta",
			start: msgStart,
			delta: `{"output_tokens":9}`,
			want:  llm.Usage{Input: 12, Output: 9, CacheRead: 100, CacheWrite: 30},
		},
		{
			name:  "CumulativeDeltaReplaces",
			start: `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],"model":"m","usage":{"input_tokens":0,"output_tokens":0}}}`,
			delta: `{"input_tokens":40,"cache_read_input_tokens":5,"cache_creation_input_tokens":7,"output_tokens":9}`,
			want:  llm.Usage{Input: 40, Output: 9, CacheRead: 5, CacheWrite: 7},
		},
		{
			name:  "NullsInDeltaKeepStart",
			start: msgStart,
			delta: `{"input_tokens":null,"cache_read_input_tokens":null,"output_tokens":3}`,
			want:  llm.Usage{Input: 12, Output: 3, CacheRead: 100, CacheWrite: 30},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := replay(t, sse("message_start", tt.start)+
				sse("message_delta", msgDelta("end_turn", tt.delta))+
				sse("message_stop", msgStop))
			events, err := collect(t, context.Background(), newTestModel(t, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			if len(events) != 2 || events[0].Type != llm.EventUsage {
				t.Fatalf("events = %+v, want usage and stop", events)
			}
			if events[0].Usage != tt.want {
				t.Errorf("usage = %+v, want %+v", events[0].Usage, tt.want)
			}
		})
	}
}

func TestStreamStopReasons(t *testing.T) {
	for wire, want := range map[string]llm.StopReason{
		"end_turn":                      llm.StopEndTurn,
		"tool_use":                      llm.StopToolUse,
		"max_tokens":                    llm.StopMaxTokens,
		"stop_sequence":                 llm.StopSequence,
		"refusal":                       llm.StopRefusal,
		"pause_turn":                    llm.StopPause,
		"model_context_window_exceeded": llm.StopMaxTokens,
		"something_new":                 llm.StopReason("something_new"),
	} {
		t.Run(wire, func(t *testing.T) {
			srv, _ := replay(t, sse("message_start", msgStart)+
				sse("message_delta", msgDelta(wire, `{"output_tokens":1}`))+
				sse("message_stop", msgStop))
			events, err := collect(t, context.Background(), newTestModel(t, srv.URL))
			if err != nil {
				t.Fatal(err)
			}
			if got := events[len(events)-1]; got.Type != llm.EventStop || got.StopReason != want {
				t.Errorf("last event = %+v, want stop %q", got, want)
			}
		})
	}
}

func TestStreamRequestHeaders(t *testing.T) {
	// The environment must not leak into the request.
	t.Setenv("ANTHROPIC_API_KEY", "sk-from-env")
	t.Setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1")
	t.Setenv("ANTHROPIC_CUSTOM_HEADERS", "X-From-Env: yes")
	srv, requests := replay(t, sse("message_start", msgStart)+sse("message_stop", msgStop))
	m, err := New(Config{
		BaseURL: srv.URL, APIKey: "sk-config", Model: "claude-test",
		Headers: map[string]string{"X-Extra": "extra-value", "anthropic-beta": "some-beta"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := collect(t, context.Background(), m); err != nil {
		t.Fatal(err)
	}
	reqs := requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	h := reqs[0].header
	all := fmt.Sprint(h)
	if !strings.Contains(all, "sk-config") || strings.Contains(all, "sk-from-env") {
		t.Errorf("headers carry the wrong key: %v", h)
	}
	if h.Get("X-Extra") != "extra-value" || h.Get("Anthropic-Beta") != "some-beta" {
		t.Errorf("extra headers missing: %v", h)
	}
	if h.Get("X-From-Env") != "" {
		t.Errorf("headers from the environment were sent: %v", h)
	}
	var body map[string]any
	if err := json.Unmarshal(reqs[0].body, &body); err != nil {
		t.Fatal(err)
	}
	if body["stream"] != true || body["model"] != "claude-test" {
		t.Errorf("body = %s, want a streaming request for claude-test", reqs[0].body)
	}
}
