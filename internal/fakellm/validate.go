package fakellm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
)

// The wire APIs a Rule can be restricted to.
const (
	APIAnthropic = "anthropic" // Anthropic Messages, POST /v1/messages
	APIChat      = "chat"      // OpenAI Chat Completions, POST /v1/chat/completions
	APIResponses = "responses" // OpenAI Responses, POST /v1/responses
)

// validationError is one problem in a script, at a path such as
// "rules[0].steps[2].tool_calls[0]".
type validationError struct {
	path string
	msg  string
}

func (e *validationError) Error() string { return e.path + ": " + e.msg }

// maxValidationErrors bounds how many problems Validate lists.
const maxValidationErrors = 20

// Validate reports every problem in s (up to a bound), each naming its rule
// and step, such as "rules[0].steps[1]: a step needs content or a fault".
func (s *Script) Validate() error {
	var errs []error
	add := func(path, format string, args ...any) {
		if len(errs) < maxValidationErrors {
			errs = append(errs, &validationError{path: path, msg: fmt.Sprintf(format, args...)})
		}
	}
	for i := range s.Rules {
		r := &s.Rules[i]
		rp := fmt.Sprintf("rules[%d]", i)
		switch r.API {
		case "", APIAnthropic, APIChat, APIResponses:
		default:
			add(rp+".api", "unknown api %q: want anthropic, chat or responses", r.API)
		}
		if _, err := path.Match(r.Model, ""); err != nil {
			add(rp+".model", "bad glob %q: %v", r.Model, err)
		}
		for j, m := range r.Match {
			if m == "" {
				add(fmt.Sprintf("%s.match[%d]", rp, j), "empty substring")
			}
		}
		if len(r.Steps) == 0 {
			add(rp, "a rule needs at least one step")
		}
		for j := range r.Steps {
			validateStep(&r.Steps[j], fmt.Sprintf("%s.steps[%d]", rp, j), add)
		}
	}
	return errors.Join(errs...)
}

// validateStep checks one step, reporting through add.
func validateStep(st *Step, sp string, add func(path, format string, args ...any)) {
	hasContent := st.Text != "" || st.Thinking != "" || st.RedactedThinking != "" || len(st.ToolCalls) > 0
	if f := st.Fault; f != nil {
		fp := sp + ".fault"
		kinds := 0
		for _, set := range []bool{f.Status != 0, f.CutAfter != 0, f.Malformed, f.Stall} {
			if set {
				kinds++
			}
		}
		// stall with cut_after is one fault: send that many events, then hang.
		if f.Stall && f.CutAfter != 0 && !f.Malformed && f.Status == 0 {
			kinds = 1
		}
		if kinds != 1 {
			add(fp, "a fault needs exactly one of status, cut_after, malformed, stall, or stall with cut_after (has %d)", kinds)
		}
		if f.Status != 0 && (f.Status < 400 || f.Status > 599) {
			add(fp+".status", "status %d is not an HTTP error (400-599)", f.Status)
		}
		if f.Status != 0 && hasContent {
			add(sp, "a status fault replaces the reply: drop text, thinking and tool_calls")
		}
		if f.Status == 0 && (f.RetryAfter != 0 || f.Message != "") {
			add(fp, "retry_after and message go with status")
		}
		if f.RetryAfter < 0 {
			add(fp+".retry_after", "negative duration %s", f.RetryAfter)
		}
		if f.CutAfter < 0 {
			add(fp+".cut_after", "negative event count %d", f.CutAfter)
		}
	} else if !hasContent {
		add(sp, "a step needs content (text, thinking, redacted_thinking, tool_calls) or a fault")
	}
	if st.Signature != "" && st.Thinking == "" {
		add(sp+".signature", "a signature goes with thinking")
	}
	if _, ok := stopReasons[st.StopReason]; !ok {
		add(sp+".stop_reason", "unknown stop reason %q: want one of %s", st.StopReason, strings.Join(stopReasonNames(), ", "))
	}
	if st.Chunk < 0 {
		add(sp+".chunk", "negative chunk size %d", st.Chunk)
	}
	if st.Delay < 0 {
		add(sp+".delay", "negative duration %s", st.Delay)
	}
	if u := st.Usage; u != nil && (u.Input < 0 || u.Output < 0 || u.CacheRead < 0 || u.CacheWrite < 0) {
		add(sp+".usage", "negative token count")
	}
	ids := map[string]bool{}
	for k, tc := range st.ToolCalls {
		tp := fmt.Sprintf("%s.tool_calls[%d]", sp, k)
		if tc.Name == "" {
			add(tp, "a tool call needs a name")
		}
		if tc.ID != "" {
			if ids[tc.ID] {
				add(tp+".id", "duplicate id %q", tc.ID)
			}
			ids[tc.ID] = true
		}
		if _, err := argumentsJSON(tc.Arguments); err != nil {
			add(tp+".arguments", "%v", err)
		}
	}
}

// argumentsJSON renders tool call arguments as a JSON object.
func argumentsJSON(args any) (string, error) {
	switch a := args.(type) {
	case nil:
		return "{}", nil
	case string:
		s := strings.TrimSpace(a)
		if !json.Valid([]byte(s)) || !strings.HasPrefix(s, "{") {
			return "", fmt.Errorf("arguments string must hold a JSON object")
		}
		return s, nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return "", fmt.Errorf("arguments cannot be sent as JSON: %w", err)
	}
	out := strings.TrimSuffix(buf.String(), "\n")
	if !strings.HasPrefix(out, "{") {
		return "", fmt.Errorf("arguments must be an object, not %s", out)
	}
	return out, nil
}
