package agent

import (
	"encoding/json"
	"slices"
	"sync/atomic"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// EventType names an event. The strings are those of vigil's JSON output
// mode and of docs/agent-events.md.
type EventType string

// The events an agent emits. The package documentation gives their order.
const (
	// EventTurnStart opens a turn; Entry is its opening message and Cause
	// says what started it.
	EventTurnStart EventType = "turn_start"
	// EventStepStart opens a step, just before its model request.
	EventStepStart EventType = "step_start"
	// EventMessageDelta carries a fragment (Text) of the reply being
	// streamed; Delta says whether it is text or thinking.
	EventMessageDelta EventType = "message_delta"
	// EventMessageEnd carries the assistant entry once it is written.
	EventMessageEnd EventType = "message_end"
	// EventToolStart says a tool call is about to run.
	EventToolStart EventType = "tool_start"
	// EventToolEnd carries a tool call's result entry.
	EventToolEnd EventType = "tool_end"
	// EventStepEnd closes a step; Entries are the entries the step wrote.
	EventStepEnd EventType = "step_end"
	// EventTurnEnd closes a turn; Err says why it ended early, if it did.
	EventTurnEnd EventType = "turn_end"
	// EventIdle is the last event of a run: the agent is idle again.
	EventIdle EventType = "idle"
	// EventHistoryRewritten says what the model sees changed other than by
	// appending: Reason is compaction, branch, fork or switch.
	EventHistoryRewritten EventType = "history_rewritten"
	// EventSteerDelivered carries a steering message the agent appended.
	EventSteerDelivered EventType = "steer_delivered"
	// EventFollowUpDelivered carries a follow-up appended to open a turn.
	EventFollowUpDelivered EventType = "follow_up_delivered"
	// EventInjectionDelivered carries a message a [Hook] returned, once
	// appended.
	EventInjectionDelivered EventType = "injection_delivered"
	// EventCustomAppended carries a custom entry written by
	// [Agent.AppendCustom].
	EventCustomAppended EventType = "custom_appended"
	// EventAborted says a run was interrupted; Entry is the marker written
	// to the session.
	EventAborted EventType = "aborted"
	// EventRequestAborted says a steer with [SteerOptions].AbortRequest
	// aborted the model request in flight, which is sent again with the
	// steer: a user interface drops the reply streamed so far. Entry is
	// the [CustomRequestAborted] marker, Usage what the aborted request
	// used, Reason InterruptSteer.
	EventRequestAborted EventType = "request_aborted"
	// EventCompactionStart says a compaction began; Reason is threshold,
	// overflow or manual.
	EventCompactionStart EventType = "compaction_start"
	// EventCompactionEnd ends it, with the compaction entry or Err.
	EventCompactionEnd EventType = "compaction_end"
	// EventSubagent wraps an event of a subagent started by the task tool.
	EventSubagent EventType = "subagent_event"
	// EventApprovalRequest says a tool call waits for the user's approval
	// ([Approvals]): ToolCallID, Tool and Arguments name it; for a write
	// or an edit, Details has the path and the diff it would make, or
	// Text says why it would fail.
	EventApprovalRequest EventType = "approval_request"
	// EventApprovalEnd says the wait is over: Decision is the answer (Text
	// the user's message with a denial), or "" when an interrupt cut the
	// wait short (Reason says which).
	EventApprovalEnd EventType = "approval_end"
)

// TurnCause says what opened a turn.
type TurnCause string

// The causes of a turn.
const (
	CausePrompt   TurnCause = "prompt"
	CauseResume   TurnCause = "resume"
	CauseFollowUp TurnCause = "follow_up"
)

// DeltaKind says what a message_delta streams.
type DeltaKind string

// The kinds of delta.
const (
	DeltaText     DeltaKind = "text"
	DeltaThinking DeltaKind = "thinking"
)

// The values of Event.Reason for history_rewritten.
const (
	RewriteCompaction = "compaction"
	RewriteBranch     = "branch"
	RewriteFork       = "fork"
	RewriteSwitch     = "switch"
)

// The values of Event.Reason for compaction_start and compaction_end.
const (
	CompactThreshold = "threshold"
	CompactOverflow  = "overflow"
	CompactManual    = "manual"
)

// The values of Event.Reason for a tool_end whose call was interrupted or
// skipped, and for request_aborted.
const (
	InterruptSteer = "steer"
	InterruptUser  = "user"
)

// Event is one thing that happened in an agent. Type says which; the other
// fields are set as the comments say and are zero otherwise. Events are
// values: entries in them are shared with the session and must not be
// modified. [Event.MarshalJSON] gives the form of vigil's JSON output mode.
type Event struct {
	Type EventType
	// Turn and Step number the turn (from 1, over the agent's life) and the
	// step within it (from 1) the event belongs to; 0 outside a turn or step.
	Turn, Step int
	// Cause is set on turn_start.
	Cause TurnCause
	// Delta and Text are set on message_delta; Text is also the user's
	// message with a denial (approval_end).
	Delta DeltaKind
	Text  string
	// Entry is the entry the event reports: the opening message
	// (turn_start), the assistant reply (message_end), the tool result
	// (tool_end), the delivered message (steer_delivered,
	// follow_up_delivered, injection_delivered, custom_appended), the
	// marker (aborted, request_aborted) or the compaction
	// (compaction_end).
	Entry *session.Entry
	// Entries are every entry a step wrote, in order (step_end).
	Entries []session.Entry
	// ToolCallID, Tool and Arguments name the call (tool_start, tool_end,
	// approval_request, approval_end; approval_end has no Arguments).
	ToolCallID string
	Tool       string
	Arguments  json.RawMessage
	// Summary is the start of a tool result's text (tool_end).
	Summary string
	// IsError says a tool call failed (tool_end).
	IsError bool
	// Interrupted says a tool call was cut short or never run (tool_end);
	// Skipped says it never started. Reason then says by what:
	// InterruptSteer or InterruptUser.
	Interrupted bool
	Skipped     bool
	// Denied says the user denied the call, which did not run (tool_end).
	Denied bool
	// Decision is the answer to an approval request (approval_end).
	Decision Decision
	// Details are the tool's structured facts for user interfaces
	// (tool_end), or the change a call would make (approval_request).
	Details *tools.Details
	// Interrupt says a delivered steer was an interrupting one
	// (steer_delivered).
	Interrupt bool
	// Reason qualifies history_rewritten, compaction_start/end, aborted
	// (the interrupt's label), request_aborted, an interrupted tool_end
	// and an approval_end an interrupt cut short.
	Reason string
	// StopReason is why the model stopped (message_end, turn_end).
	StopReason llm.StopReason
	// Usage is the reply's token usage (message_end), or the aborted
	// request's (request_aborted).
	Usage *llm.Usage
	// TokensBefore and TokensAfter are the context's size in tokens before
	// and after a compaction (compaction_start, compaction_end).
	TokensBefore, TokensAfter int64
	// Err is why a turn ended early (turn_end) or a compaction failed
	// (compaction_end); nil otherwise.
	Err error
	// SubagentID names the subagent and Subagent is its event
	// (subagent_event).
	SubagentID string
	Subagent   *Event
}

// subscriber is one Subscribe call. active is cleared by its unsubscribe,
// so no delivery starts after that returns.
type subscriber struct {
	fn     func(Event)
	active atomic.Bool
}

// Subscribe calls fn with every event the agent emits from now on, in
// order, until unsubscribe is called. fn runs synchronously on the
// goroutine that produced the event (the one running Prompt, Resume,
// Compact or AppendCustom) and never concurrently with another delivery of
// this agent; the agent waits for it, so it must not block long. fn may
// call Steer, FollowUp, Abort, State, AppendCustom (which then queues) and
// Subscribe, but not Prompt, Resume or Compact (they return ErrBusy).
// Subscribers are called in the order they subscribed. Once unsubscribe
// returns, no new call of fn starts.
func (a *Agent) Subscribe(fn func(Event)) (unsubscribe func()) {
	s := &subscriber{fn: fn}
	s.active.Store(true)
	a.mu.Lock()
	next := append(slices.Clone(a.loadSubs()), s)
	a.subs.Store(&next)
	a.mu.Unlock()
	return func() {
		s.active.Store(false)
		a.mu.Lock()
		defer a.mu.Unlock()
		cur := a.loadSubs()
		if i := slices.Index(cur, s); i >= 0 {
			next := slices.Delete(slices.Clone(cur), i, i+1)
			a.subs.Store(&next)
		}
	}
}

func (a *Agent) loadSubs() []*subscriber {
	if p := a.subs.Load(); p != nil {
		return *p
	}
	return nil
}

// emit delivers ev to every subscriber. Only the goroutine holding the
// agent's busy token calls it, which is what serialises deliveries.
func (a *Agent) emit(ev Event) {
	for _, s := range a.loadSubs() {
		if s.active.Load() {
			s.fn(ev)
		}
	}
}
