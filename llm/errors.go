package llm

import (
	"fmt"
	"time"
)

// ErrorKind classifies a failed model call so callers can branch on it.
// An ErrorKind is itself an error, so errors.Is(err, llm.RateLimited) works
// on any error chain holding an [*Error] of that kind.
type ErrorKind string

// The kinds of model error.
const (
	// RateLimited: the provider asked us to slow down (HTTP 429).
	RateLimited ErrorKind = "rate limited"
	// Overloaded: the provider is over capacity (HTTP 529, 503).
	Overloaded ErrorKind = "overloaded"
	// ContextTooLong: the prompt does not fit the model's context window.
	ContextTooLong ErrorKind = "context too long"
	// Auth: the key is missing, wrong or lacks permission (HTTP 401, 403).
	Auth ErrorKind = "authentication failed"
	// BadRequest: the provider rejected the request (other 4xx).
	BadRequest ErrorKind = "bad request"
	// Server: the provider failed (other 5xx).
	Server ErrorKind = "server error"
	// Transport: the request never got an HTTP answer (DNS, refused, reset).
	Transport ErrorKind = "transport error"
	// Truncated: the reply ended before the provider's final event, or its
	// body could not be parsed.
	Truncated ErrorKind = "truncated reply"
)

// Error implements error, so a kind can be the target of errors.Is.
func (k ErrorKind) Error() string { return string(k) }

// Retryable reports whether a call that failed this way may succeed if
// tried again unchanged.
func (k ErrorKind) Retryable() bool {
	switch k {
	case RateLimited, Overloaded, Server, Transport, Truncated:
		return true
	}
	return false
}

// Error is a failed model call.
type Error struct {
	Kind ErrorKind
	// Provider names the adapter, such as "anthropic" or "openai".
	Provider string
	// Status is the HTTP status, or 0 when there was none.
	Status int
	// RetryAfter is the wait the provider asked for, or 0.
	RetryAfter time.Duration
	// Message is the provider's own explanation.
	Message string
	// Err is the underlying error, if any.
	Err error
}

func (e *Error) Error() string {
	s := string(e.Kind)
	if e.Provider != "" {
		s = e.Provider + ": " + s
	}
	if e.Status != 0 {
		s += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		s += ": " + e.Message
	} else if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf(" (retry after %s)", e.RetryAfter)
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is this error's kind.
func (e *Error) Is(target error) bool {
	k, ok := target.(ErrorKind)
	return ok && k == e.Kind
}

// KindForStatus maps an HTTP status to an error kind. A 400 whose message
// says the prompt is too long should be reported as ContextTooLong by the
// adapter, which knows its provider's wording.
func KindForStatus(status int) ErrorKind {
	switch {
	case status == 429:
		return RateLimited
	case status == 529 || status == 503:
		return Overloaded
	case status == 401 || status == 403:
		return Auth
	case status == 413:
		return ContextTooLong
	case status >= 500:
		return Server
	case status >= 400:
		return BadRequest
	}
	return Transport
}
