package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/vigil-dev/vigil/llm"
)

// streamError maps the error that ended a stream before message_stop. err is
// nil when the body simply ended; resp is the HTTP response, or nil when the
// server never answered.
func (m *Model) streamError(ctx context.Context, err error, resp *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *sdk.Error
	switch {
	case errors.As(err, &apiErr):
		return m.apiError(apiErr)
	case err == nil:
		return m.truncated(errors.New("stream ended before message_stop"))
	case resp == nil:
		return &llm.Error{Kind: llm.Transport, Provider: m.provider, Message: err.Error(), Err: err}
	}
	// The server answered, and then the body broke off or did not parse.
	return m.truncated(fmt.Errorf("read stream: %w", err))
}

// truncated reports a reply that ended early or could not be understood.
func (m *Model) truncated(err error) error {
	return &llm.Error{Kind: llm.Truncated, Provider: m.provider, Message: err.Error(), Err: err}
}

// apiError maps an error the API returned: an HTTP error status, or an
// error event in the middle of a stream, which arrives with status 200.
func (m *Model) apiError(e *sdk.Error) *llm.Error {
	typ, msg := errorBody(e)
	out := &llm.Error{
		Kind:     errorKind(e.StatusCode, typ, msg),
		Provider: m.provider,
		Status:   e.StatusCode,
		Message:  msg,
		Err:      e,
	}
	if out.Status < 400 {
		// A mid-stream error: the 200 says nothing about it.
		out.Status = 0
	}
	if e.Response != nil {
		out.RetryAfter = retryAfter(e.Response.Header, time.Now())
	}
	if out.Message == "" {
		if out.Status != 0 {
			out.Message = http.StatusText(out.Status)
		} else {
			out.Message = string(typ)
		}
	}
	return out
}

// errorBody returns the error type and message of the API's error body,
// {"type":"error","error":{"type":...,"message":...}}.
func errorBody(e *sdk.Error) (sdk.ErrorType, string) {
	typ, msg := e.Type(), e.Message
	if typ != "" && msg != "" {
		return typ, msg
	}
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	raw := e.RawJSON()
	if json.Unmarshal([]byte(raw), &body) == nil {
		if typ == "" {
			typ = sdk.ErrorType(body.Error.Type)
		}
		if msg == "" {
			msg = body.Error.Message
		}
	} else if msg == "" {
		// Not JSON: a proxy's page, say. Its start is the best message.
		msg = strings.TrimSpace(raw)
		if len(msg) > 300 {
			msg = msg[:300] + "…"
		}
	}
	return typ, msg
}

// errorKind classifies an API error by its HTTP status, or, for a mid-stream
// error event (status below 400), by its type.
func errorKind(status int, typ sdk.ErrorType, msg string) llm.ErrorKind {
	if typ == sdk.ErrorTypeOverloadedError {
		return llm.Overloaded
	}
	if status >= 400 {
		kind := llm.KindForStatus(status)
		if kind == llm.BadRequest && isContextTooLong(msg) {
			return llm.ContextTooLong
		}
		return kind
	}
	switch typ {
	case sdk.ErrorTypeRateLimitError:
		return llm.RateLimited
	case sdk.ErrorTypeAuthenticationError, sdk.ErrorTypePermissionError:
		return llm.Auth
	case "request_too_large":
		return llm.ContextTooLong
	case sdk.ErrorTypeInvalidRequestError:
		if isContextTooLong(msg) {
			return llm.ContextTooLong
		}
		return llm.BadRequest
	case sdk.ErrorTypeNotFoundError, sdk.ErrorTypeBillingError:
		return llm.BadRequest
	}
	// api_error, timeout_error and types this adapter does not know: the
	// provider failed while answering.
	return llm.Server
}

// isContextTooLong reports whether an error message says the prompt does
// not fit the context window, in the API's words.
func isContextTooLong(msg string) bool {
	msg = strings.ToLower(msg)
	for _, s := range []string{
		"prompt is too long",
		"exceed context limit",
		"exceeds the context window",
		"context window",
		"context length",
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// retryAfter returns the wait the headers ask for: retry-after-ms, or
// retry-after in seconds or as an HTTP date. It is 0 when they ask for none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return duration(ms, time.Millisecond)
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return duration(s, time.Second)
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// duration returns n units, saturating instead of overflowing.
func duration(n float64, unit time.Duration) time.Duration {
	d := n * float64(unit)
	if d >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(d)
}
