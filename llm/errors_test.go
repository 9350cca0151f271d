package llm_test

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

func TestErrorIsKind(t *testing.T) {
	err := fmt.Errorf("advisor review: %w", &llm.Error{Kind: llm.RateLimited, Provider: "anthropic", Status: 429, RetryAfter: 2 * time.Second, Message: "slow down"})
	if !errors.Is(err, llm.RateLimited) {
		t.Error("errors.Is(RateLimited) = false")
	}
	if errors.Is(err, llm.Overloaded) {
		t.Error("errors.Is(Overloaded) = true")
	}
	var e *llm.Error
	if !errors.As(err, &e) || e.RetryAfter != 2*time.Second {
		t.Errorf("errors.As = %+v", e)
	}
	want := "advisor review: anthropic: rate limited (HTTP 429): slow down (retry after 2s)"
	if err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
}

func TestErrorUnwrap(t *testing.T) {
	err := &llm.Error{Kind: llm.Transport, Err: io.ErrUnexpectedEOF}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("does not unwrap")
	}
	if got := err.Error(); got != "transport error: unexpected EOF" {
		t.Errorf("Error() = %q", got)
	}
}

func TestKindForStatus(t *testing.T) {
	for status, want := range map[int]llm.ErrorKind{
		429: llm.RateLimited, 529: llm.Overloaded, 503: llm.Overloaded, 401: llm.Auth, 403: llm.Auth,
		413: llm.ContextTooLong, 500: llm.Server, 502: llm.Server, 400: llm.BadRequest, 404: llm.BadRequest, 0: llm.Transport,
	} {
		if got := llm.KindForStatus(status); got != want {
			t.Errorf("KindForStatus(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestRetryable(t *testing.T) {
	for _, k := range []llm.ErrorKind{llm.RateLimited, llm.Overloaded, llm.Server, llm.Transport, llm.Truncated} {
		if !k.Retryable() {
			t.Errorf("%s not retryable", k)
		}
	}
	for _, k := range []llm.ErrorKind{llm.Auth, llm.BadRequest, llm.ContextTooLong} {
		if k.Retryable() {
			t.Errorf("%s retryable", k)
		}
	}
}
