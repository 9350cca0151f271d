package anthropic

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"testing"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/vigil-dev/vigil/llm"
)

func TestErrorKind(t *testing.T) {
	tests := []struct {
		status int
		typ    sdk.ErrorType
		msg    string
		want   llm.ErrorKind
	}{
		// HTTP errors go by status...
		{400, "invalid_request_error", "max_tokens: must be positive", llm.BadRequest},
		{400, "invalid_request_error", "prompt is too long: 250000 tokens > 200000 maximum", llm.ContextTooLong},
		{400, "invalid_request_error", "input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000", llm.ContextTooLong},
		{401, "authentication_error", "invalid x-api-key", llm.Auth},
		{403, "permission_error", "no access", llm.Auth},
		{404, "not_found_error", "model: claude-nope", llm.BadRequest},
		{413, "request_too_large", "Request exceeds the maximum allowed number of bytes", llm.ContextTooLong},
		{429, "rate_limit_error", "slow down", llm.RateLimited},
		{500, "api_error", "Internal server error", llm.Server},
		{503, "", "", llm.Overloaded},
		{529, "overloaded_error", "Overloaded", llm.Overloaded},
		// ...except that an overloaded_error is overloaded whatever the status.
		{500, "overloaded_error", "Overloaded", llm.Overloaded},
		// Error events inside a 200 stream go by type.
		{200, "overloaded_error", "Overloaded", llm.Overloaded},
		{200, "rate_limit_error", "slow down", llm.RateLimited},
		{200, "api_error", "Internal server error", llm.Server},
		{200, "timeout_error", "timed out", llm.Server},
		{200, "authentication_error", "bad key", llm.Auth},
		{200, "permission_error", "no", llm.Auth},
		{200, "invalid_request_error", "bad", llm.BadRequest},
		{200, "invalid_request_error", "Prompt is too long", llm.ContextTooLong},
		{200, "request_too_large", "too big", llm.ContextTooLong},
		{200, "not_found_error", "gone", llm.BadRequest},
		{200, "billing_error", "pay up", llm.BadRequest},
		{200, "brand_new_error", "?", llm.Server},
		{200, "", "", llm.Server},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%d_%s", tt.status, tt.typ), func(t *testing.T) {
			if got := errorKind(tt.status, tt.typ, tt.msg); got != tt.want {
				t.Errorf("errorKind(%d, %q, %q) = %q, want %q", tt.status, tt.typ, tt.msg, got, tt.want)
			}
		})
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"None", nil, 0},
		{"Seconds", map[string]string{"Retry-After": "7"}, 7 * time.Second},
		{"FractionalSeconds", map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{"MillisecondsWin", map[string]string{"Retry-After": "7", "Retry-After-Ms": "6500"}, 6500 * time.Millisecond},
		{"HTTPDate", map[string]string{"Retry-After": "Fri, 01 May 2026 12:00:30 GMT"}, 30 * time.Second},
		{"PastDate", map[string]string{"Retry-After": "Fri, 01 May 2026 11:00:00 GMT"}, 0},
		{"Negative", map[string]string{"Retry-After": "-3"}, 0},
		{"Garbage", map[string]string{"Retry-After": "soon"}, 0},
		{"BadMillisecondsFallBack", map[string]string{"Retry-After-Ms": "x", "Retry-After": "2"}, 2 * time.Second},
		{"Huge", map[string]string{"Retry-After": "1e300"}, math.MaxInt64},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := http.Header{}
			for k, v := range tt.header {
				h.Set(k, v)
			}
			if got := retryAfter(h, now); got != tt.want {
				t.Errorf("retryAfter(%v) = %v, want %v", tt.header, got, tt.want)
			}
		})
	}
}

func TestAPIError(t *testing.T) {
	m := &Model{provider: "corp-gateway"}
	e := &sdk.Error{StatusCode: 429, Response: &http.Response{Header: http.Header{"Retry-After": {"2"}}}}
	if err := e.UnmarshalJSON([]byte(`{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}`)); err != nil {
		t.Fatal(err)
	}
	got := m.apiError(e)
	if got.Kind != llm.RateLimited || got.Provider != "corp-gateway" || got.Status != 429 ||
		got.Message != "slow down" || got.RetryAfter != 2*time.Second {
		t.Errorf("apiError = %+v", got)
	}
	if !errors.Is(got, llm.RateLimited) || !errors.Is(got, e) {
		t.Errorf("error chain of %v lacks the kind or the SDK error", got)
	}

	// A body without a message still says what happened.
	e = &sdk.Error{StatusCode: 500}
	if err := e.UnmarshalJSON([]byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	if got := m.apiError(e); got.Message != "Internal Server Error" || got.Kind != llm.Server {
		t.Errorf("apiError of an empty body = %+v", got)
	}
}

func TestStreamErrorContextWins(t *testing.T) {
	m := &Model{provider: "anthropic"}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := m.streamError(ctx, errors.New("read: connection reset"), &http.Response{})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("streamError = %v, want context.Canceled", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), -time.Second)
	defer cancel()
	if err := m.streamError(ctx, nil, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("streamError = %v, want context.DeadlineExceeded", err)
	}
}
