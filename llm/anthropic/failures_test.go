package anthropic

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

func TestStreamFailures(t *testing.T) {
	text := sse("message_start", msgStart) +
		sse("content_block_start", blockStart(0, `{"type":"text","text":""}`)) +
		sse("content_block_delta", blockDelta(0, `{"type":"text_delta","text":"partial"}`))
	tests := []struct {
		name        string
		body        string
		kind        llm.ErrorKind
		message     string
		eventsFirst bool
	}{
		{
			name:        "OverloadedEvent",
			body:        text + sse("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`),
			kind:        llm.Overloaded,
			message:     "Overloaded",
			eventsFirst: true,
		},
		{
			name: "RateLimitEvent",
			body: text + sse("error", `{"type":"error","error":{"type":"rate_limit_error","message":"slow"}}`),
			kind: llm.RateLimited, message: "slow", eventsFirst: true,
		},
		{
			name: "APIErrorEvent",
			body: text + sse("error", `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`),
			kind: llm.Server, message: "Internal server error", eventsFirst: true,
		},
		{
			name: "PromptTooLongEvent",
			body: sse("error", `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`),
			kind: llm.ContextTooLong, message: "prompt is too long: 210000 tokens > 200000 maximum",
		},
		{
			name: "EndsEarly",
			body: text,
			kind: llm.Truncated, message: "stream ended before message_stop", eventsFirst: true,
		},
		{
			name: "EndsAfterStopReason",
			body: sse("message_start", msgStart) + sse("message_delta", msgDelta("end_turn", `{"output_tokens":1}`)),
			kind: llm.Truncated,
		},
		{
			name: "Malformed",
			body: sse("message_start", msgStart) + sse("content_block_start", `{"type":"content_block_start","index":0,"content_bl`),
			kind: llm.Truncated,
		},
		{
			name: "InvalidToolArguments",
			body: sse("message_start", msgStart) +
				sse("content_block_start", blockStart(0, `{"type":"tool_use","id":"toolu_9","name":"bash","input":{}}`)) +
				sse("content_block_delta", blockDelta(0, `{"type":"input_json_delta","partial_json":"{\"command\": \"l"}`)) +
				sse("content_block_stop", blockStop(0)),
			kind: llm.Truncated, message: `tool call toolu_9: arguments are not valid JSON: "{\"command\": \"l"`, eventsFirst: true,
		},
		{
			name: "StopWithoutStart",
			body: sse("message_stop", msgStop),
			kind: llm.Truncated, message: "message_stop without message_start",
		},
		{
			name: "BlockIndexOutOfRange",
			body: sse("message_start", msgStart) + sse("content_block_start", blockStart(1<<20, `{"type":"text","text":""}`)),
			kind: llm.Truncated, message: "content block index 1048576 out of range",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _ := replay(t, tt.body)
			events, err := collect(t, context.Background(), newTestModel(t, srv.URL))
			if !errors.Is(err, tt.kind) {
				t.Fatalf("error = %v, want kind %q", err, tt.kind)
			}
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %T is not an *llm.Error", err)
			}
			if e.Provider != "anthropic" {
				t.Errorf("provider = %q, want anthropic", e.Provider)
			}
			if e.Status != 0 {
				t.Errorf("status = %d, want 0 for a failure inside a 200 stream", e.Status)
			}
			if tt.message != "" && e.Message != tt.message {
				t.Errorf("message = %q, want %q", e.Message, tt.message)
			}
			for _, ev := range events {
				if ev.Type == llm.EventStop || ev.Type == llm.EventUsage {
					t.Errorf("failed stream yielded %v", ev.Type)
				}
			}
			if got := len(events) > 0; got != tt.eventsFirst {
				t.Errorf("events before the error = %v, want some: %v", events, tt.eventsFirst)
			}
		})
	}
}

func TestStreamHTTPErrors(t *testing.T) {
	tests := []struct {
		name       string
		status     int
		header     map[string]string
		body       string
		kind       llm.ErrorKind
		message    string
		retryAfter time.Duration
	}{
		{
			name: "Overloaded", status: 529,
			body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
			kind: llm.Overloaded, message: "Overloaded",
		},
		{
			name: "RateLimited", status: 429, header: map[string]string{"Retry-After": "3", "Retry-After-Ms": "2500"},
			body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			kind: llm.RateLimited, message: "Number of request tokens has exceeded your per-minute rate limit", retryAfter: 2500 * time.Millisecond,
		},
		{
			name: "RetryAfterSeconds", status: 429, header: map[string]string{"Retry-After": "3"},
			body: `{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`,
			kind: llm.RateLimited, message: "slow down", retryAfter: 3 * time.Second,
		},
		{
			name: "PromptTooLong", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 250000 tokens > 200000 maximum"}}`,
			kind: llm.ContextTooLong, message: "prompt is too long: 250000 tokens > 200000 maximum",
		},
		{
			name: "BadRequest", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages: field required"}}`,
			kind: llm.BadRequest, message: "messages: field required",
		},
		{
			name: "Auth", status: 401,
			body: `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}`,
			kind: llm.Auth, message: "invalid x-api-key",
		},
		{
			name: "Server", status: 500,
			body: `{"type":"error","error":{"type":"api_error","message":"Internal server error"}}`,
			kind: llm.Server, message: "Internal server error",
		},
		{
			name: "ProxyPage", status: 502, body: "<html>Bad Gateway</html>",
			kind: llm.Server, message: "<html>Bad Gateway</html>",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var calls int
			var mu sync.Mutex
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				calls++
				mu.Unlock()
				for k, v := range tt.header {
					w.Header().Set(k, v)
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				io.WriteString(w, tt.body)
			}))
			defer srv.Close()
			_, err := collect(t, context.Background(), newTestModel(t, srv.URL))
			var e *llm.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
			}
			if e.Kind != tt.kind || e.Status != tt.status || e.Message != tt.message || e.RetryAfter != tt.retryAfter {
				t.Errorf("error = {%q %d %q %v}, want {%q %d %q %v}",
					e.Kind, e.Status, e.Message, e.RetryAfter, tt.kind, tt.status, tt.message, tt.retryAfter)
			}
			mu.Lock()
			defer mu.Unlock()
			if calls != 1 {
				t.Errorf("server got %d requests, want 1: the SDK must not retry", calls)
			}
		})
	}
}

func TestStreamTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := collect(t, context.Background(), newTestModel(t, url))
	if !errors.Is(err, llm.Transport) {
		t.Fatalf("error = %v, want kind %q", err, llm.Transport)
	}
}
