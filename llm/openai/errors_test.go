package openai

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"None", nil, 0},
		{"Seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"FractionalSeconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"Milliseconds", map[string]string{"Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{"MillisecondsWin", map[string]string{"Retry-After-Ms": "1200", "Retry-After": "2"}, 1200 * time.Millisecond},
		{"HTTPDate", map[string]string{"Retry-After": now.Add(30 * time.Second).Format(http.TimeFormat)}, 30 * time.Second},
		{"PastDate", map[string]string{"Retry-After": now.Add(-time.Minute).Format(http.TimeFormat)}, 0},
		{"Garbage", map[string]string{"Retry-After": "soon", "Retry-After-Ms": "x"}, 0},
		{"Negative", map[string]string{"Retry-After": "-3"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tt.want {
				t.Errorf("retryAfter = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestEventErrorKind(t *testing.T) {
	tests := []struct {
		code, msg string
		want      llm.ErrorKind
	}{
		{"context_length_exceeded", "too long", llm.ContextTooLong},
		{"", "This model's maximum context length is 8192 tokens.", llm.ContextTooLong},
		{"exceed_context_size_error", "the request exceeds the available context size", llm.ContextTooLong},
		{"rate_limit_exceeded", "slow down", llm.RateLimited},
		{"429", "slow down", llm.RateLimited},
		{"502", "upstream failed", llm.Server},
		{"server_is_overloaded", "busy", llm.Overloaded},
		{"invalid_api_key", "bad key", llm.Auth},
		{"invalid_prompt", "flagged", llm.BadRequest},
		{"server_error", "oops", llm.Server},
		{"", "", llm.Server},
	}
	for _, tt := range tests {
		if got := eventErrorKind(tt.code, tt.msg); got != tt.want {
			t.Errorf("eventErrorKind(%q, %q) = %q, want %q", tt.code, tt.msg, got, tt.want)
		}
	}
}

func TestErrorObject(t *testing.T) {
	tests := []struct {
		data, code, msg string
	}{
		{`{"error":{"message":"bad","type":"invalid_request_error","code":"context_length_exceeded"}}`, "context_length_exceeded", "bad"},
		{`{"error":{"message":"bad","type":"invalid_request_error","code":null}}`, "invalid_request_error", "bad"},
		{`{"error":{"message":"upstream","code":502}}`, "502", "upstream"},
		{`{"error":"model 'x' not found"}`, "", "model 'x' not found"},
		{`{"object":"error","message":"vllm says no","type":"BadRequestError","code":400}`, "400", "vllm says no"},
		{`{"detail":"Not Found"}`, "", "Not Found"},
		{`not json`, "", ""},
	}
	for _, tt := range tests {
		code, msg := errorObject([]byte(tt.data))
		if code != tt.code || msg != tt.msg {
			t.Errorf("errorObject(%s) = %q, %q; want %q, %q", tt.data, code, msg, tt.code, tt.msg)
		}
	}
}

// TestHTTPErrors checks error bodies that fakellm does not produce: the
// shapes compatible servers and proxies answer with.
func TestHTTPErrors(t *testing.T) {
	tests := []struct {
		name        string
		status      int
		contentType string
		body        string
		header      map[string]string
		kind        llm.ErrorKind
		msg         string
		retryAfter  time.Duration
	}{
		{"OpenAIContextCode", 400, "application/json",
			`{"error":{"message":"Input too large.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`,
			nil, llm.ContextTooLong, "Input too large.", 0},
		{"LlamaCppContext", 400, "application/json",
			`{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}`,
			nil, llm.ContextTooLong, "the request exceeds the available context size, try increasing it", 0},
		{"OllamaStringError", 404, "application/json", `{"error":"model \"llama9\" not found, try pulling it first"}`,
			nil, llm.BadRequest, `model "llama9" not found, try pulling it first`, 0},
		{"ProxyText", 502, "text/html", "<html>Bad Gateway</html>", nil, llm.Server, "<html>Bad Gateway</html>", 0},
		{"RateLimitedMs", 429, "application/json", `{"error":{"message":"Rate limit reached","type":"requests","code":"rate_limit_exceeded"}}`,
			map[string]string{"Retry-After-Ms": "1500", "Retry-After": "2"}, llm.RateLimited, "Rate limit reached", 1500 * time.Millisecond},
		{"Overloaded", 503, "application/json", `{"error":{"message":"busy","type":"server_error"}}`, nil, llm.Overloaded, "busy", 0},
		{"TooLongNotRateLimit", 429, "application/json", `{"error":{"message":"tokens per minute over the maximum context length budget"}}`,
			nil, llm.RateLimited, "tokens per minute over the maximum context length budget", 0},
	}
	for _, api := range []llm.API{llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		for _, tt := range tests {
			t.Run(string(api)+"/"+tt.name, func(t *testing.T) {
				srv := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
					for k, v := range tt.header {
						w.Header().Set(k, v)
					}
					w.Header().Set("Content-Type", tt.contentType)
					w.WriteHeader(tt.status)
					_, _ = w.Write([]byte(tt.body))
				})
				m := srv.model(t, Config{API: api, ProviderName: "local"})
				_, err := collect(t, m.Stream(context.Background(), userText("x")))
				var e *llm.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v (%T) is not an *llm.Error", err, err)
				}
				if e.Kind != tt.kind || e.Status != tt.status || e.Message != tt.msg || e.Provider != "local" || e.RetryAfter != tt.retryAfter {
					t.Errorf("error = %+v\nwant kind %q, status %d, message %q, provider local, retry after %v", e, tt.kind, tt.status, tt.msg, tt.retryAfter)
				}
			})
		}
	}
}

func TestTransportError(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	for _, api := range []llm.API{llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		m := newModel(t, Config{API: api, BaseURL: url + "/v1"})
		_, err := collect(t, m.Stream(context.Background(), userText("x")))
		if !errors.Is(err, llm.Transport) {
			t.Errorf("%s: error = %v, want kind %q", api, err, llm.Transport)
		}
	}
}

func TestBadRequestBeforeSending(t *testing.T) {
	srv := startRaw(t, func(w http.ResponseWriter, r *http.Request) {
		t.Error("a request that cannot be converted was sent")
	})
	for _, api := range []llm.API{llm.APIOpenAICompletions, llm.APIOpenAIResponses} {
		m := srv.model(t, Config{API: api})
		req := userText("x")
		req.Tools = []llm.Tool{{Name: "t", Schema: []byte(`"not an object"`)}}
		_, err := collect(t, m.Stream(context.Background(), req))
		if !errors.Is(err, llm.BadRequest) {
			t.Errorf("%s: error = %v, want kind %q", api, err, llm.BadRequest)
		}
	}
}
