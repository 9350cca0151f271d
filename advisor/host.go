package advisor

import (
	"context"

	"github.com/vigil-dev/vigil/session"
)

// Host is the agent an advisor watches, as the advisor sees it: the one
// boundary between the advisor and any agent (the built-in one, or an
// adapter over another agent's hooks). Every argument and result is plain
// data, so a Host may be a proxy over a transport, with the agent in
// another process or on another machine.
//
// The advisor runtime calls a Host from one goroutine at a time, in the
// order its decisions are made; an implementation need not be safe for
// concurrent use by the runtime, but must be safe against its own agent.
// Every method must return promptly (it queues or records; it never waits
// for the agent to act on what it was given) and must honour ctx.
//
// The other direction, the agent telling the advisor what happened, is a
// stream of [Event] values the host reports in the order they happened.
type Host interface {
	// Since returns the transcript entries appended after the first cursor
	// ones, in order, and the cursor to pass next time. A cursor of 0
	// reads from the start. Entries are only ever appended, so a cursor
	// stays valid until the host reports an [EventHistoryRewritten];
	// after that, the advisor reads again from 0. A cursor beyond the end
	// returns no entries and the current end. Since must return every
	// entry up to the end of the step of the last [EventStepEnded] the
	// host reported.
	Since(ctx context.Context, cursor int) (entries []session.Entry, next int, err error)

	// View returns the entries the primary's model sees now, in order (after
	// a compaction: its summary first, then the entries it kept and those
	// after it), and the cursor at the end of the transcript, the one
	// Since would return as next. The advisor reads it when it is started
	// and after an [EventHistoryRewritten], to pick up from what the
	// primary knows, bounded to its own budget.
	View(ctx context.Context) (entries []session.Entry, cursor int, err error)

	// Aside queues a note that does not interrupt. At the primary's next
	// step boundary (or, if it is idle, at the first boundary of its next
	// run) the host drains every queued note into one message, formatted
	// by [FormatAdvisories] in the order Aside was called, and adds it to
	// the primary's context. Aside never starts a run.
	Aside(ctx context.Context, note Advice) error

	// Steer interrupts the primary with one note: if a step is running, the
	// host may abort its in-flight tools, and the note, formatted by
	// [FormatAdvisories], enters the primary's context before its next
	// model call. Steer does not start a run that has ended; the advisor
	// calls Resume for that.
	Steer(ctx context.Context, note Advice) error

	// Card records one note as a visible advisor card in the transcript,
	// formatted by [FormatAdvisories], without starting or resuming a run.
	// The primary sees it in its context when the user next resumes.
	Card(ctx context.Context, note Advice) error

	// Resume starts a new primary run so that a steered note is acted on,
	// when the run ended on its own. It does nothing if a run is going.
	// The advisor never calls it while the user has stopped the run
	// ([EventUserInterrupted] until [EventUserResumed]); a host that gets
	// such a call anyway must not resume.
	Resume(ctx context.Context) error
}

// Withholder is a [Host] that can show the user a note kept from the
// agent. With [Options.Withhold] (advisor.allowPromptInjection: false) the
// runtime reviews as usual but calls no Aside, Steer, Card or Resume: each
// note the guard lets through goes to Withhold instead, if the host has it
// (a host without it leaves the note in the advisor's own transcript and
// counters only).
type Withholder interface {
	Host
	// Withhold shows note to the user (a visible entry in the transcript,
	// a log line) where the primary's model never reads it: not in its
	// context, not in a hook's reply to the agent, not now and not at a
	// later resume. It never starts, interrupts or continues a run, and
	// returns promptly like every Host method.
	Withhold(ctx context.Context, note Advice) error
}

// EventKind says what happened in the watched agent.
type EventKind string

// The events a host reports.
const (
	// EventStepEnded: a primary step (one assistant message and its tool
	// results) ended, and its entries can be read with [Host.Since].
	EventStepEnded EventKind = "step_ended"
	// EventRunEnded: the primary's run ended on its own (it yielded); it
	// is idle until a prompt or a [Host.Resume]. Run, when set, names the
	// run that ended.
	EventRunEnded EventKind = "run_ended"
	// EventUserInterrupted: the user stopped the run; sets the runtime's
	// user-interrupt latch.
	EventUserInterrupted EventKind = "user_interrupted"
	// EventUserResumed: the user resumed (a new message, a continue, a
	// steer or follow-up they typed); clears the latch.
	EventUserResumed EventKind = "user_resumed"
	// EventHistoryRewritten: the transcript was replaced (compaction, a
	// session switch, a branch or fork); cursors from before are invalid.
	EventHistoryRewritten EventKind = "history_rewritten"

	// The periodic mode's events (see [Periodic] and [PeriodicHost]).

	// EventRunStarted: a run of the primary began; Run names it and
	// Trigger says what started it.
	EventRunStarted EventKind = "run_started"
	// EventToolStarted: a tool call of the primary is running, from the
	// moment the call is known (it may not have started executing yet)
	// until its EventToolSettled; Call names it and Parent the call it
	// is nested in, if any.
	EventToolStarted EventKind = "tool_started"
	// EventToolSettled: the call named by Call recorded its real result
	// in the primary's transcript (a stand-in a fork would make up does
	// not count). A call that owns nested calls settles with its own
	// result, never with theirs.
	EventToolSettled EventKind = "tool_settled"
)

// Event is one thing the watched agent reports to its advisor. Events
// from one host arrive in the order they happened.
type Event struct {
	Kind EventKind `json:"kind"`
	// Cursor is, for EventStepEnded, the transcript cursor just after the
	// step's last entry; 0 otherwise.
	Cursor int `json:"cursor,omitempty"`
	// Run names a run (EventRunStarted, EventRunEnded); the host chooses
	// the names, unique within the session.
	Run string `json:"run,omitempty"`
	// Trigger says what started a run (EventRunStarted): "" or
	// [TriggerUser] for a user's prompt, [TriggerResume] for the user's
	// resume, [TriggerManual], [TriggerAdvisor] for the advisor's own
	// resume, or the host's word for anything else (a schedule, a memory
	// flush).
	Trigger string `json:"trigger,omitempty"`
	// Call names a tool call (EventToolStarted, EventToolSettled).
	Call CallKey `json:"call,omitzero"`
	// Parent names the call that Call is nested in (EventToolStarted,
	// EventToolSettled), zero for a call the primary made itself.
	Parent CallKey `json:"parent,omitzero"`
}

// CallKey names one tool call: Source says whose numbering ID belongs
// to (the primary's own calls, a subagent's, a native tool item), so
// two calls that share an ID but not a source are different calls.
type CallKey struct {
	Source string `json:"source,omitempty"`
	ID     string `json:"id"`
}
