package agent

import (
	"context"
	"time"

	"github.com/vigil-dev/vigil/session"
)

// DefaultBoundaryTimeout bounds the time the hooks of one step boundary
// may take together, when Options.BoundaryTimeout is zero.
const DefaultBoundaryTimeout = 30 * time.Second

// Hook is how something outside the agent (the advisor, above all) takes
// part in a run without the agent knowing it. The agent declares it; the
// advisor's host adapter implements it.
type Hook interface {
	// Boundary is called at every step boundary of a turn: after the step's
	// entries were written and step_end was emitted, and before queued
	// steers are delivered and the next model request is made. That
	// includes the last step of a turn (Final set), where what Boundary
	// returns can continue the turn. It is not called for a step that was
	// aborted or failed.
	//
	// It runs on the agent's loop goroutine, which waits for it: it may
	// block (to let a review catch up) until ctx is done, and must return
	// promptly once it is. ctx ends when the boundary's time
	// (Options.BoundaryTimeout, 30 seconds by default, shared by all
	// hooks of the agent) runs out, when an interrupting steer arrives and
	// when the run is aborted. Hooks are called in Options order, each
	// also after the time ran out (with ctx already done), so that one
	// that has messages ready can still hand them over.
	//
	// The messages it returns are appended, in order, after the steers
	// delivered at this boundary, and are in the next model request. A
	// message the model sees (text, or a custom message with InContext)
	// returned at the last step continues the turn with another step.
	Boundary(ctx context.Context, b BoundaryInfo) []Injection
}

// HookFunc adapts a function to a [Hook].
type HookFunc func(ctx context.Context, b BoundaryInfo) []Injection

// Boundary calls f.
func (f HookFunc) Boundary(ctx context.Context, b BoundaryInfo) []Injection { return f(ctx, b) }

// BoundaryInfo describes the step that just ended.
type BoundaryInfo struct {
	// Session is the session the step was written to.
	Session *session.Session
	// Turn and Step number the step, as in events.
	Turn, Step int
	// Entries are the entries the step wrote, as in its step_end event.
	// They are shared: do not modify them.
	Entries []session.Entry
	// Final says the model called no tools: the turn ends after this
	// boundary unless a steer or a model-visible injection is delivered.
	Final bool
}

// Injection is a message a hook hands to the agent. Exactly one of Text
// and Custom is set: Text becomes a user message, Custom a custom entry
// (an advisor's aside: CustomType "advisor", Display and InContext set).
// Only a custom entry of type [CustomAdvisor] reaches the model with its
// advisory tags live; see "Advisory tags" in the package documentation.
type Injection struct {
	Text   string
	Custom *session.Custom
}

// body returns the session entry body the injection becomes, and whether
// the model sees it.
func (in Injection) body() (session.Body, bool) {
	if in.Custom != nil {
		c := *in.Custom
		return &c, c.InContext
	}
	if in.Text == "" {
		return nil, false
	}
	return userText(in.Text), true
}
