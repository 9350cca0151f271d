package fakellm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// A dialect is one wire API: how to read its requests and how to write its
// replies and errors. Implementations only render; the server decides what
// to say, when, and which faults to act out.
type dialect interface {
	// parse reads the fields the server needs from a request body.
	parse(body []byte) (*wireRequest, error)
	// body renders a complete non-streaming reply, ready to encode as JSON.
	body(rp *reply) any
	// events renders a streaming reply; the last event is the terminal one.
	events(rp *reply) []event
	// errorBody renders an error in the API's shape.
	errorBody(status int, msg string) any
	// tooLong is the provider's message for a prompt of n tokens over a
	// window of max.
	tooLong(n, max int) string
}

// wireRequest is what the server reads from a request, whatever its API.
type wireRequest struct {
	model  string
	stream bool
	// prompt is the canonical prompt text (see promptText) for usage.
	prompt string
	// cacheControl is set when an Anthropic request marks a cache breakpoint.
	cacheControl bool
	// includeUsage is Chat's stream_options.include_usage.
	includeUsage bool
	// encryptedReasoning is set when a Responses request includes
	// reasoning.encrypted_content.
	encryptedReasoning bool
}

// event is one server-sent event. Chat Completions events have no name.
type event struct {
	name string
	data []byte
}

// marshal encodes v as JSON the way the real APIs do, leaving <, > and &
// as they are.
func marshal(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Every value rendered here is built from strings, numbers and
		// validated JSON, so this is a bug in fakellm.
		panic(fmt.Sprintf("fakellm: encode reply: %v", err))
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// anthropicErrorType is Anthropic's error type for an HTTP status.
func anthropicErrorType(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "invalid_request_error"
	case http.StatusUnauthorized:
		return "authentication_error"
	case http.StatusPaymentRequired:
		return "billing_error"
	case http.StatusForbidden:
		return "permission_error"
	case http.StatusNotFound:
		return "not_found_error"
	case http.StatusRequestEntityTooLarge:
		return "request_too_large"
	case http.StatusTooManyRequests:
		return "rate_limit_error"
	case http.StatusGatewayTimeout:
		return "timeout_error"
	case 529:
		return "overloaded_error"
	}
	if status >= 500 {
		return "api_error"
	}
	return "invalid_request_error"
}

// openAIError is the error object of both OpenAI APIs.
type openAIError struct {
	Message string  `json:"message"`
	Type    string  `json:"type"`
	Param   *string `json:"param"`
	Code    *string `json:"code"`
}

// openAIErrorBody renders an OpenAI error for an HTTP status.
func openAIErrorBody(status int, msg string) any {
	typ, code := "invalid_request_error", ""
	switch {
	case status == http.StatusUnauthorized:
		code = "invalid_api_key"
	case status == http.StatusForbidden:
		typ = "permission_error"
	case status == http.StatusNotFound:
		code = "not_found"
	case status == http.StatusTooManyRequests:
		typ, code = "rate_limit_error", "rate_limit_exceeded"
	case status >= 500:
		typ, code = "server_error", "server_error"
	case status == http.StatusBadRequest && strings.Contains(msg, "maximum context length"):
		code = "context_length_exceeded"
	}
	e := openAIError{Message: msg, Type: typ}
	if code != "" {
		e.Code = &code
	}
	return map[string]any{"error": e}
}

// object is a JSON object that keeps its keys in the order given, so that
// events read like the real APIs' ("type" first).
type object []any

// obj builds an object from alternating keys and values.
func obj(kv ...any) object { return object(kv) }

// MarshalJSON encodes the pairs in order.
func (o object) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := 0; i+1 < len(o); i += 2 {
		if i > 0 {
			buf.WriteByte(',')
		}
		buf.Write(marshal(o[i].(string)))
		buf.WriteByte(':')
		buf.Write(marshal(o[i+1]))
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}
