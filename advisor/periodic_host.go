package advisor

import (
	"context"

	"github.com/vigil-dev/vigil/llm"
)

// PeriodicHost is the [Host] of an advisor in the periodic mode: the same
// boundary, and two more things the mode does through it. Everything
// crossing it is plain data, as for Host.
//
// The host reports, besides the Host events, when each run starts
// ([EventRunStarted], with what triggered it) and ends ([EventRunEnded],
// with its name), and when each tool call starts ([EventToolStarted]) and
// settles ([EventToolSettled]), calls keyed by [CallKey] and nested ones
// with their Parent. A call starts when it is known, not only when it
// begins executing: a host whose agent runs one step's calls in turn
// reports them all once the step's reply is written, so that no review
// forks between two calls of one step.
type PeriodicHost interface {
	Host

	// Fork forks the primary's conversation onto the primary's own model
	// and asks it one more thing: prompt, sent as the next user message.
	// The fork ends at the latest point where every tool call has its
	// real result: a trailing reply whose calls are not all answered is
	// left out, never answered with made-up results. The fork's request
	// begins with the same bytes as the primary's own requests (its
	// system prompt, tool definitions and messages), so the provider's
	// prompt cache serves all but its last messages; but no tool runs in
	// it: a tool call in the reply is never executed. The exchange is not
	// written to the primary's transcript, and the fork is discarded.
	// Fork returns when the reply is complete, or with ctx's error once
	// ctx is done.
	Fork(ctx context.Context, prompt string) (ForkReply, error)

	// SteerRun delivers note to the run named run, as an interrupting
	// steer: it enters the primary's context at the run's next step
	// boundary, marked as the advisor's, with no more authority than the
	// run already has. If that run is not going (it ended, or another
	// began), or ends before a boundary delivers the note, the note is
	// dropped: it never reaches a later run. A host whose policy forbids
	// the advisor to inject anything answers [SteerBlocked], with the
	// setting in Reason. The error is for a host that could not be
	// reached.
	SteerRun(ctx context.Context, run string, note Advice) (SteerResult, error)
}

// The triggers of a run that the periodic mode counts; a run with any
// other trigger ([TriggerAdvisor], a scheduled job, a memory flush) is not
// the user's work and is never reviewed.
const (
	// TriggerUser: the user's prompt. A run reported with no trigger
	// counts as one.
	TriggerUser = "user"
	// TriggerResume: the user resumed a stopped run (vigil's resume
	// command), which goes on with the user's work.
	TriggerResume = "resume"
	// TriggerManual: the user started the run by hand in some other way.
	TriggerManual = "manual"
)

// TriggerAdvisor is the trigger of a run the advisor itself resumed, to
// act on a note it steered; it is not counted.
const TriggerAdvisor = "advisor"

// userTriggered reports whether a run with this trigger is counted.
func userTriggered(trigger string) bool {
	switch trigger {
	case "", TriggerUser, TriggerResume, TriggerManual:
		return true
	}
	return false
}

// ForkReply is what a fork of the primary answered (see
// [PeriodicHost.Fork]).
type ForkReply struct {
	// Reply is the model's answer. Only its text is read; tool calls in
	// it were not run.
	Reply llm.Message `json:"reply"`
	// Usage is the reply's token usage: mostly cache reads, when the
	// provider's cache was warm.
	Usage llm.Usage `json:"usage"`
	// Model names the model that answered: the primary's.
	Model llm.Ref `json:"model,omitzero"`
	// At is the id of the last transcript entry the fork included.
	At string `json:"at,omitempty"`
}

// SteerOutcome is what became of a note given to [PeriodicHost.SteerRun].
type SteerOutcome string

// The outcomes of SteerRun.
const (
	// SteerDelivered: queued in the run, for its next step boundary.
	SteerDelivered SteerOutcome = "delivered"
	// SteerRunEnded: the run is not going; the note was dropped.
	SteerRunEnded SteerOutcome = "run_ended"
	// SteerBlocked: the host's policy forbids injecting into the run.
	SteerBlocked SteerOutcome = "blocked"
	// SteerRefused: the host refused for another reason, given in
	// Reason.
	SteerRefused SteerOutcome = "refused"
)

// SteerResult is the outcome of one SteerRun and, when it was not
// delivered, why: for SteerBlocked, the setting that blocks it, such as
// "advisor.allowPromptInjection=false".
type SteerResult struct {
	Outcome SteerOutcome `json:"outcome"`
	Reason  string       `json:"reason,omitempty"`
}
