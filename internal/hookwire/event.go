package hookwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The hook events vigil answers. Claude Code and Codex share the names.
const (
	EventSessionStart       = "SessionStart"
	EventSessionEnd         = "SessionEnd"
	EventUserPromptSubmit   = "UserPromptSubmit"
	EventPostToolUse        = "PostToolUse"
	EventPostToolUseFailure = "PostToolUseFailure"
	EventStop               = "Stop"
	EventPreCompact         = "PreCompact"
)

// The agents a sidecar can watch: the dialects of the hook contract.
// pi and omp have no command hooks: vigil's extension in them sends
// their events in Claude Code's shape (docs/attach.md), through this
// command only when no sidecar answers yet.
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
	AgentPi         = "pi"
	AgentOmp        = "omp"
)

// Agents lists the dialects, as the hook command takes them.
func Agents() []string { return []string{AgentClaudeCode, AgentCodex, AgentPi, AgentOmp} }

// MaxEvent bounds a hook event the hook and the sidecar read; tool
// output can be large, and vigil needs only a few small fields of it.
const MaxEvent = 16 << 20

// DeadlineHeader carries, in milliseconds, how long the hook command
// will wait for the answer; the sidecar bounds its waits by it.
const DeadlineHeader = "Vigil-Deadline-Ms"

// ProblemHeader, in an answer, says why the sidecar cannot do its work
// (its transcript cannot be read, its settings are broken): once per
// condition, for the hook's log. The answer is still the answer.
const ProblemHeader = "Vigil-Problem"

// Input is what vigil reads of a hook's event JSON (the rest is ignored).
// Claude Code and Codex send the same fields; Codex adds turn_id and
// model, and may send a null transcript_path. It has the fields of
// sidecar.Input, in the same order, so the one converts to the other.
type Input struct {
	SessionID      string  `json:"session_id"`
	TranscriptPath *string `json:"transcript_path"`
	Cwd            string  `json:"cwd"`
	HookEventName  string  `json:"hook_event_name"`
	// Tool events.
	ToolName    string `json:"tool_name,omitempty"`
	ToolUseID   string `json:"tool_use_id,omitempty"`
	IsInterrupt bool   `json:"is_interrupt,omitempty"`
	// Stop.
	StopHookActive       bool    `json:"stop_hook_active,omitempty"`
	LastAssistantMessage *string `json:"last_assistant_message,omitempty"`
	// SessionStart: startup, resume, clear, compact.
	Source string `json:"source,omitempty"`
	// SessionEnd.
	Reason string `json:"reason,omitempty"`
	// Codex.
	TurnID string `json:"turn_id,omitempty"`
	Model  string `json:"model,omitempty"`
	// Present only inside a subagent (Claude Code).
	AgentID string `json:"agent_id,omitempty"`
}

// The longest id and path an event may hold: ids are UUIDs, and a path
// longer than PATH_MAX cannot be opened.
const (
	maxID   = 256
	maxPath = 4096
)

// ParseInput decodes a hook event. It needs session_id and
// hook_event_name; anything else may be missing.
//
// It refuses what no agent sends: text that is not UTF-8 (JSON is), and
// ids or paths holding control characters or longer than any real one.
// They name the session's sidecar, its log and the file it follows, and
// go into a command line and log lines.
func ParseInput(b []byte) (Input, error) {
	if !utf8.Valid(b) {
		return Input{}, errors.New("hook event: not valid UTF-8")
	}
	var in Input
	if err := json.Unmarshal(b, &in); err != nil {
		return Input{}, fmt.Errorf("hook event: %w", err)
	}
	if in.SessionID == "" {
		return Input{}, fmt.Errorf("hook event %q has no session_id", LogText(in.HookEventName))
	}
	if in.HookEventName == "" {
		return Input{}, fmt.Errorf("hook event has no hook_event_name")
	}
	for _, f := range []struct {
		name, value string
		max         int
	}{
		{"session_id", in.SessionID, maxID},
		{"hook_event_name", in.HookEventName, maxID},
		{"agent_id", in.AgentID, maxID},
		{"transcript_path", in.Transcript(), maxPath},
		{"cwd", in.Cwd, maxPath},
	} {
		if len(f.value) > f.max {
			return Input{}, fmt.Errorf("hook event: %s is %d bytes long, more than %d", f.name, len(f.value), f.max)
		}
		if strings.IndexFunc(f.value, unicode.IsControl) >= 0 {
			return Input{}, fmt.Errorf("hook event: %s %s holds control characters", f.name, strconv.QuoteToASCII(f.value))
		}
	}
	return in, nil
}

// Transcript is the transcript path, "" when the agent sent none.
func (in Input) Transcript() string {
	if in.TranscriptPath == nil {
		return ""
	}
	return *in.TranscriptPath
}

// LogText returns s with what a log line must not hold escaped: control
// characters (a newline would forge a line, an escape sequence would
// reach the terminal of whoever reads the log) and invalid UTF-8. Hook
// events come from the agent, but their paths and ids end up in the logs
// and in a reply header.
func LogText(s string) string {
	i := 0
	for i < len(s) && !unsafeAt(s, i) {
		_, n := utf8.DecodeRuneInString(s[i:])
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// unsafeAt reports whether the rune at s[i] must be escaped.
func unsafeAt(s string, i int) bool {
	r, n := utf8.DecodeRuneInString(s[i:])
	return r == utf8.RuneError && n == 1 || unicode.IsControl(r)
}
