package fakellm

import (
	"encoding/json"
	"net/http"
	"time"
)

// Request records one request the server received.
type Request struct {
	// Time is when the request arrived.
	Time time.Time
	// API is the wire API of a model request (APIAnthropic, APIChat,
	// APIResponses; count_tokens counts as APIAnthropic), "" for others.
	API    string
	Method string
	Path   string
	// Model and Stream are read from the request body.
	Model  string
	Stream bool
	// Rule is the name of the rule that answered; RuleIndex and StepIndex
	// locate the step, or are -1 when no step answered.
	Rule      string
	RuleIndex int
	StepIndex int
	// Status is the HTTP status sent, or 0 while (or if) none was.
	Status int
	// Usage is the token usage reported in the reply, zero if none was.
	Usage Usage
	// Body is the raw request body.
	Body json.RawMessage
	// Header holds the request headers, with credentials redacted.
	Header http.Header
}

// Redacted is the value that replaces credentials in [Request.Header].
const Redacted = "REDACTED"

// credentialHeaders are the headers whose values Request.Header redacts.
var credentialHeaders = []string{"Authorization", "X-Api-Key", "Api-Key", "Proxy-Authorization", "Cookie"}

func redactHeader(h http.Header) http.Header {
	h = h.Clone()
	for _, k := range credentialHeaders {
		if vs := h.Values(k); len(vs) > 0 {
			red := make([]string, len(vs))
			for i := range red {
				red[i] = Redacted
			}
			h[k] = red
		}
	}
	return h
}

// logLine is one line of the JSON request log.
type logLine struct {
	Time       time.Time `json:"time"`
	API        string    `json:"api,omitempty"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Model      string    `json:"model,omitempty"`
	Stream     bool      `json:"stream"`
	Rule       string    `json:"rule,omitempty"`
	RuleIndex  int       `json:"rule_index"`
	Step       int       `json:"step"`
	Status     int       `json:"status"`
	Usage      Usage     `json:"usage"`
	Error      string    `json:"error,omitempty"`
	DurationMS float64   `json:"duration_ms"`
}

// writeLog appends one line for a finished request to the log, if any.
func (s *Server) writeLog(r Request, errMsg string, d time.Duration) {
	if s.logw == nil {
		return
	}
	line, err := json.Marshal(logLine{
		Time: r.Time, API: r.API, Method: r.Method, Path: r.Path, Model: r.Model, Stream: r.Stream,
		Rule: r.Rule, RuleIndex: r.RuleIndex, Step: r.StepIndex, Status: r.Status, Usage: r.Usage,
		Error: errMsg, DurationMS: float64(d.Microseconds()) / 1000,
	})
	if err != nil {
		return
	}
	s.logMu.Lock()
	defer s.logMu.Unlock()
	_, _ = s.logw.Write(append(line, '\n'))
}
