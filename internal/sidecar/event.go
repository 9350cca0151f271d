package sidecar

import "github.com/vigil-dev/vigil/internal/hookwire"

// The hook events vigil answers, the agents a sidecar can watch and the
// event it reads are the hook's side of the contract, which
// internal/hookwire (the hook command's small package) defines; the
// sidecar reads them with the same code.
const (
	EventSessionStart       = hookwire.EventSessionStart
	EventSessionEnd         = hookwire.EventSessionEnd
	EventUserPromptSubmit   = hookwire.EventUserPromptSubmit
	EventPostToolUse        = hookwire.EventPostToolUse
	EventPostToolUseFailure = hookwire.EventPostToolUseFailure
	EventStop               = hookwire.EventStop
	EventPreCompact         = hookwire.EventPreCompact
)

// The agents a sidecar can watch: the dialects of the hook contract.
const (
	AgentClaudeCode = hookwire.AgentClaudeCode
	AgentCodex      = hookwire.AgentCodex
)

// Input is what vigil reads of a hook's event JSON: [hookwire.Input].
type Input = hookwire.Input

// ParseInput decodes a hook event: [hookwire.ParseInput], which refuses
// invalid UTF-8 and ids or paths with control characters or longer than
// any real one.
func ParseInput(b []byte) (Input, error) { return hookwire.ParseInput(b) }

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
