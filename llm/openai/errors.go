package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/ssestream"

	"github.com/vigil-dev/vigil/llm"
)

// streamError maps the error that ended a stream to what Stream yields.
// res is the HTTP response, or nil when none arrived. Cancellation wins over
// everything: a cancelled call returns ctx's own error.
func (m *Model) streamError(ctx context.Context, err error, res *http.Response) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	var apiErr *openai.Error
	if errors.As(err, &apiErr) && apiErr.StatusCode >= 400 {
		msg := apiErr.Message
		if msg == "" && apiErr.Response != nil {
			msg = bodyMessage(apiErr.Response.Body)
		}
		return m.httpError(apiErr.StatusCode, apiErr.Code, msg, headerOf(apiErr.Response), err)
	}
	if res != nil && res.StatusCode >= 400 {
		// The SDK could not read the body as an OpenAI error (a proxy's
		// text, Ollama's {"error": "..."}), but the status still counts.
		return m.httpError(res.StatusCode, "", bodyMessage(res.Body), res.Header, err)
	}
	var sseErr *ssestream.StreamError
	if errors.As(err, &sseErr) {
		code, msg := errorObject(sseErr.Event.Data)
		return m.eventError(code, msg, err)
	}
	if res == nil {
		return &llm.Error{Kind: llm.Transport, Provider: m.cfg.ProviderName, Err: err}
	}
	// The body broke off or did not parse after a successful status.
	return &llm.Error{Kind: llm.Truncated, Provider: m.cfg.ProviderName, Message: "read stream: " + err.Error(), Err: err}
}

// requestError wraps a failure to build the request.
func (m *Model) requestError(err error) error {
	return &llm.Error{Kind: llm.BadRequest, Provider: m.cfg.ProviderName, Message: "build request: " + err.Error(), Err: err}
}

// httpError builds the error for an HTTP failure.
func (m *Model) httpError(status int, code, msg string, h http.Header, err error) *llm.Error {
	kind := llm.KindForStatus(status)
	if status < 500 && status != http.StatusTooManyRequests && contextTooLong(code, msg) {
		kind = llm.ContextTooLong
	}
	return &llm.Error{
		Kind:       kind,
		Provider:   m.cfg.ProviderName,
		Status:     status,
		RetryAfter: retryAfter(h, time.Now()),
		Message:    msg,
		Err:        err,
	}
}

// eventError builds the error for a failure reported inside a stream that
// started well (a Chat error chunk, a Responses error or response.failed
// event): there is no HTTP status, so the kind comes from the code.
func (m *Model) eventError(code, msg string, err error) *llm.Error {
	return &llm.Error{Kind: eventErrorKind(code, msg), Provider: m.cfg.ProviderName, Message: msg, Err: err}
}

// eventErrorKind classifies an in-stream error by its code, which is an
// OpenAI error code or, from some proxies such as OpenRouter, an HTTP status.
func eventErrorKind(code, msg string) llm.ErrorKind {
	if contextTooLong(code, msg) {
		return llm.ContextTooLong
	}
	if n, err := strconv.Atoi(code); err == nil && n >= 400 && n < 600 {
		return llm.KindForStatus(n)
	}
	c := strings.ToLower(code)
	switch {
	case strings.Contains(c, "rate_limit"), c == "insufficient_quota":
		return llm.RateLimited
	case strings.Contains(c, "overloaded"), c == "slow_down":
		return llm.Overloaded
	case c == "invalid_api_key", strings.Contains(c, "auth"), strings.Contains(c, "permission"):
		return llm.Auth
	case strings.HasPrefix(c, "invalid_"), c == "bad_request":
		return llm.BadRequest
	}
	return llm.Server
}

// contextPhrases are the ways servers say a prompt does not fit: OpenAI and
// vLLM ("maximum context length"), llama.cpp ("exceeds the available
// context size"), LM Studio and others ("context length", "context
// window"), and Anthropic-style wording relayed by proxies.
var contextPhrases = []string{
	"maximum context length",
	"context length",
	"context window",
	"context size",
	"prompt is too long",
	"prompt too long",
}

// contextTooLong reports whether an error says the prompt is too long.
func contextTooLong(code, msg string) bool {
	switch code {
	case "context_length_exceeded", "exceed_context_size_error":
		return true
	}
	m := strings.ToLower(msg)
	for _, p := range contextPhrases {
		if strings.Contains(m, p) {
			return true
		}
	}
	return false
}

// errorObject reads the code and message of an error event or body:
// {"error": {"code", "message"}}, {"error": "text"}, {"code", "message"},
// {"message"} or {"detail"}. A numeric code comes back as its digits.
func errorObject(data []byte) (code, msg string) {
	var outer struct {
		Error   json.RawMessage `json:"error"`
		Code    json.RawMessage `json:"code"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if err := json.Unmarshal(data, &outer); err != nil {
		return "", ""
	}
	if len(outer.Error) > 0 && outer.Error[0] == '{' {
		var inner struct {
			Code    json.RawMessage `json:"code"`
			Type    string          `json:"type"`
			Message string          `json:"message"`
		}
		if json.Unmarshal(outer.Error, &inner) == nil {
			code = rawString(inner.Code)
			if code == "" {
				code = inner.Type
			}
			return code, inner.Message
		}
	}
	if s := rawString(outer.Error); s != "" {
		return "", s
	}
	if outer.Message != "" {
		return rawString(outer.Code), outer.Message
	}
	return rawString(outer.Code), rawString(outer.Detail)
}

// rawString returns a JSON string's value, a number's digits, or "".
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		return n.String()
	}
	return ""
}

// maxErrorBody bounds how much of an error body is read or quoted.
const maxErrorBody = 64 << 10

// bodyMessage returns the message of an error body, or its text.
func bodyMessage(body io.Reader) string {
	if body == nil {
		return ""
	}
	data, _ := io.ReadAll(io.LimitReader(body, maxErrorBody))
	if _, msg := errorObject(data); msg != "" {
		return msg
	}
	text := strings.TrimSpace(string(bytes.ToValidUTF8(data, []byte("\uFFFD"))))
	if len(text) > 500 {
		text = text[:500] + "…"
	}
	return text
}

func headerOf(res *http.Response) http.Header {
	if res == nil {
		return nil
	}
	return res.Header
}

// retryAfter reads the wait a response asks for: retry-after-ms (OpenAI's
// own, in milliseconds) or retry-after (seconds, or an HTTP date relative to
// now). It returns 0 when there is none.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("retry-after-ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil {
		if s > 0 {
			return time.Duration(s * float64(time.Second))
		}
		return 0
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
