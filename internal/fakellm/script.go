package fakellm

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// Script is what a fake model says, in order. It is loaded from YAML or JSON
// (see [ParseScript]) or built in Go. A Script must not be modified after it is
// handed to [Start].
type Script struct {
	Rules []Rule `yaml:"rules" json:"rules"`
	// ContextWindows maps a model glob to its context window in tokens. A
	// request to a matching model whose prompt is larger (4 bytes a token)
	// is rejected, before any rule is picked, with HTTP 400 and the
	// provider's own "prompt is too long" error.
	ContextWindows map[string]int `yaml:"context_windows,omitempty" json:"context_windows,omitempty"`
}

// Rule answers the requests it matches with its steps, one step per request.
// A request matches when every non-empty condition holds.
type Rule struct {
	// Name labels the rule in the request log and in errors.
	Name string `yaml:"name,omitempty" json:"name,omitempty"`
	// Model is a path.Match glob on the request's model; "" matches any model.
	Model string `yaml:"model,omitempty" json:"model,omitempty"`
	// Match lists substrings that must all occur in the raw request body.
	Match []string `yaml:"match,omitempty" json:"match,omitempty"`
	// API restricts the rule to one wire API: "anthropic", "chat" or
	// "responses"; "" matches all three.
	API string `yaml:"api,omitempty" json:"api,omitempty"`
	// Steps are served in order, one per matching request.
	Steps []Step `yaml:"steps" json:"steps"`
	// Repeat serves the last step forever once it is reached; without it an
	// exhausted rule no longer matches.
	Repeat bool `yaml:"repeat,omitempty" json:"repeat,omitempty"`
}

// Step is one reply. It holds content (any of Text, Thinking,
// RedactedThinking, ToolCalls), or a Fault, or content shaped by a Fault that
// is not an HTTP error (CutAfter, Malformed, Stall).
type Step struct {
	// Text is the visible answer.
	Text string `yaml:"text,omitempty" json:"text,omitempty"`
	// Thinking is the reasoning text: an Anthropic thinking block, a Chat
	// reasoning_content, a Responses reasoning summary.
	Thinking string `yaml:"thinking,omitempty" json:"thinking,omitempty"`
	// Signature is the Anthropic thinking signature, and the Responses
	// encrypted_content. One is derived from Thinking when it is empty.
	Signature string `yaml:"signature,omitempty" json:"signature,omitempty"`
	// RedactedThinking is the data of an Anthropic redacted_thinking block
	// (and the encrypted_content of a Responses reasoning item with no
	// summary). Chat Completions has no equivalent and leaves it out.
	RedactedThinking string `yaml:"redacted_thinking,omitempty" json:"redacted_thinking,omitempty"`
	// ToolCalls are function calls, sent after any text.
	ToolCalls []ToolCall `yaml:"tool_calls,omitempty" json:"tool_calls,omitempty"`
	// StopReason overrides why the turn ended. Either API's word may be used
	// and is translated: end_turn/stop, max_tokens/length, tool_use/tool_calls,
	// and stop_sequence, refusal, pause_turn, content_filter,
	// model_context_window_exceeded. The default is end_turn, or tool_use
	// when there are ToolCalls.
	StopReason string `yaml:"stop_reason,omitempty" json:"stop_reason,omitempty"`
	// Usage replaces the simulated token counts with exactly these.
	Usage *Usage `yaml:"usage,omitempty" json:"usage,omitempty"`
	// Delay waits before replying; a client that goes away ends the wait.
	Delay Duration `yaml:"delay,omitempty" json:"delay,omitempty"`
	// Chunk is the most bytes of text or thinking per streamed delta (never
	// splitting a UTF-8 sequence), and of tool arguments when set; 0 means
	// 8 bytes for text and three fragments for arguments.
	Chunk int `yaml:"chunk,omitempty" json:"chunk,omitempty"`
	// Fault makes the reply fail; see [Fault].
	Fault *Fault `yaml:"fault,omitempty" json:"fault,omitempty"`
}

// ToolCall is a function call the model makes.
type ToolCall struct {
	// ID is the call's id; one is generated when empty.
	ID string `yaml:"id,omitempty" json:"id,omitempty"`
	// Name is the function's name; it is required.
	Name string `yaml:"name" json:"name"`
	// Arguments is the input: an object (sent as JSON), a string holding a
	// JSON object (sent as written), or nothing (sent as {}).
	Arguments any `yaml:"arguments,omitempty" json:"arguments,omitempty"`
	// Namespace, for the OpenAI Responses API, is the namespace of a
	// tool offered in one (Codex offers an MCP server's tools in the
	// namespace mcp__SERVER); the other APIs ignore it.
	Namespace string `yaml:"namespace,omitempty" json:"namespace,omitempty"`
}

// Fault is a failure to act out. Exactly one of Status, CutAfter, Malformed
// and Stall is set, except that Stall with CutAfter stalls a stream after
// that many events instead of dropping it.
type Fault struct {
	// Status is the HTTP status (400-599) sent with the API's error body.
	Status int `yaml:"status,omitempty" json:"status,omitempty"`
	// RetryAfter sets the Retry-After (whole seconds, rounded up) and
	// retry-after-ms headers of a Status fault.
	RetryAfter Duration `yaml:"retry_after,omitempty" json:"retry_after,omitempty"`
	// Message is the error message of a Status fault.
	Message string `yaml:"message,omitempty" json:"message,omitempty"`
	// CutAfter drops the connection after this many SSE events, never
	// sending the terminal one. A non-streaming reply is cut halfway through
	// its body.
	CutAfter int `yaml:"cut_after,omitempty" json:"cut_after,omitempty"`
	// Malformed sends invalid JSON: half a body, or, in a stream, half the
	// data of the first event after the first one that is not a ping.
	Malformed bool `yaml:"malformed,omitempty" json:"malformed,omitempty"`
	// Stall sends the headers (and the first event of a stream, or the first
	// CutAfter events when that is set too), then waits until the client goes
	// away or the server closes.
	Stall bool `yaml:"stall,omitempty" json:"stall,omitempty"`
}

// Usage is a token count in Anthropic's terms: Input counts the input tokens
// neither read from nor written to the cache. OpenAI replies report
// Input+CacheRead+CacheWrite as their prompt or input tokens, with CacheRead
// as the cached subset.
type Usage struct {
	Input      int `yaml:"input,omitempty" json:"input,omitempty"`
	Output     int `yaml:"output,omitempty" json:"output,omitempty"`
	CacheRead  int `yaml:"cache_read,omitempty" json:"cache_read,omitempty"`
	CacheWrite int `yaml:"cache_write,omitempty" json:"cache_write,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("250ms",
// "2s") or as a number of seconds (1.5).
type Duration time.Duration

// parseDuration reads a Duration from a duration string or a decimal number
// of seconds.
func parseDuration(s string) (Duration, error) {
	s = strings.TrimSpace(s)
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(secs) || secs < 0 || secs > math.MaxInt64/float64(time.Second) {
			return 0, fmt.Errorf("duration %s out of range", s)
		}
		return Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("invalid duration %q: want a number of seconds or a string like \"250ms\"", s)
	}
	return Duration(d), nil
}

// String formats d as a Go duration string.
func (d Duration) String() string { return time.Duration(d).String() }

// UnmarshalYAML reads a duration string or a number of seconds, reporting
// errors at the value's position.
func (d *Duration) UnmarshalYAML(node ast.Node) error {
	var text string
	switch n := node.(type) {
	case *ast.StringNode:
		text = n.Value
	case *ast.IntegerNode, *ast.FloatNode:
		text = n.GetToken().Value
	case *ast.NullNode:
		*d = 0
		return nil
	default:
		return &nodeError{tok: node.GetToken(), msg: fmt.Sprintf("%s was used where a duration is expected", node.Type().YAMLName())}
	}
	v, err := parseDuration(text)
	if err != nil {
		return &nodeError{tok: node.GetToken(), msg: err.Error()}
	}
	*d = v
	return nil
}

// MarshalYAML writes d as a duration string.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalJSON reads a duration string or a number of seconds.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		return fmt.Errorf("decode duration: %w", err)
	}
	switch v := v.(type) {
	case nil:
		*d = 0
		return nil
	case string:
		parsed, err := parseDuration(v)
		*d = parsed
		return err
	case float64:
		parsed, err := parseDuration(strconv.FormatFloat(v, 'f', -1, 64))
		*d = parsed
		return err
	}
	return fmt.Errorf("invalid duration %s: want a number of seconds or a string", data)
}

// MarshalJSON writes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// nodeError is a decoding error at a YAML token; it satisfies yaml.Error so
// that [ParseScript] reports it like goccy's own errors.
type nodeError struct {
	tok *token.Token
	msg string
}

var _ yaml.Error = (*nodeError)(nil)

func (e *nodeError) Error() string                { return e.msg }
func (e *nodeError) GetToken() *token.Token       { return e.tok }
func (e *nodeError) GetMessage() string           { return e.msg }
func (e *nodeError) FormatError(_, _ bool) string { return e.msg }
