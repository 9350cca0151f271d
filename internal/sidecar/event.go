package sidecar

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
const (
	AgentClaudeCode = "claude-code"
	AgentCodex      = "codex"
)

// Input is what vigil reads of a hook's event JSON (the rest is ignored).
// Claude Code and Codex send the same fields; Codex adds turn_id and
// model, and may send a null transcript_path.
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

// The longest id and path an event may hold: ids are UUIDs, and a path
// longer than PATH_MAX cannot be opened.
const (
	maxID   = 256
	maxPath = 4096
)

// Transcript is the transcript path, "" when the agent sent none.
func (in Input) Transcript() string {
	if in.TranscriptPath == nil {
		return ""
	}
	return *in.TranscriptPath
}

// Output is a hook's JSON reply, in the shape both agents read.
type Output struct {
	// Decision "block" with Reason: for Stop, the reason becomes the
	// agent's next instruction and its turn goes on.
	Decision string `json:"decision,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// Specific carries additionalContext, which the agent adds to its
	// model's context (next to the tool result, or the prompt).
	Specific *Specific `json:"hookSpecificOutput,omitempty"`
}

// Specific is hookSpecificOutput.
type Specific struct {
	HookEventName     string `json:"hookEventName"`
	AdditionalContext string `json:"additionalContext,omitempty"`
}

// contextReply is an Output that adds text to the agent's context.
func contextReply(event, text string) *Output {
	return &Output{Specific: &Specific{HookEventName: event, AdditionalContext: text}}
}

// blockReply is a Stop Output that makes the agent take one more turn.
func blockReply(reason string) *Output {
	return &Output{Decision: "block", Reason: reason}
}
