package agent

import (
	"context"
	"slices"

	"github.com/vigil-dev/vigil/session"
)

// Steer queues a user message for the running turn. It is delivered at the
// next step boundary: appended after the step's tool results (and after
// the hooks ran), so the next model request carries it after them. With
// interrupt set it also cancels the step's running tool call (its result
// says a steering message interrupted it), skips the step's remaining
// calls (each answered as not run) and cuts short a boundary's hook wait.
// A steer queued while the agent is idle is delivered at the start of the
// next run, right after its opening message. Steer never blocks.
func (a *Agent) Steer(text string, interrupt bool) {
	if text == "" {
		return
	}
	a.queueSteer(userText(text), interrupt)
}

// SteerCustom is Steer for a custom message, such as an advisor's
// interrupting card (CustomType "advisor", Display and InContext set), so
// the transcript keeps who sent it.
func (a *Agent) SteerCustom(c session.Custom, interrupt bool) {
	a.SteerCustomWith(c, SteerOptions{Interrupt: interrupt})
}

// SteerOptions say how far a steer reaches into the step in flight.
type SteerOptions struct {
	// Interrupt is Steer's interrupt: it cancels the running tool call,
	// skips the step's remaining calls and cuts short a boundary's hook
	// wait.
	Interrupt bool
	// AbortRequest, which implies Interrupt, also aborts the model request
	// in flight: the reply being streamed is dropped (nothing of it is
	// written but a [CustomRequestAborted] marker), the queued steers are
	// delivered, and the request is sent again, in the same step, with
	// them. A steer aborts at most one request: it is delivered when it
	// does. One that arrives while no request is in flight interrupts as
	// Interrupt does; one still queued when the next request is about to
	// be sent is delivered before it instead. An advisor's blocker uses
	// it: waiting for the boundary would let the model finish a reply
	// built on the mistake.
	AbortRequest bool
}

// SteerCustomWith is SteerCustom with the options o. It never blocks.
func (a *Agent) SteerCustomWith(c session.Custom, o SteerOptions) {
	if c.CustomType == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queueSteerLocked(queuedSteer{body: &c, interrupt: o.Interrupt || o.AbortRequest, abort: o.AbortRequest})
}

// SteerRun is SteerCustom for the run in progress only. While a run
// (Prompt or Resume) is going it queues c and reports true; otherwise it
// queues nothing and reports false. The steer belongs to that run: if the
// run ends before a boundary delivers it, it is dropped, never delivered
// at the start of a later run as a plain steer would be. The advisor's
// periodic corrections use it, so that advice about one run never reaches
// another. Its interrupt cancels the step's running tool call as Steer's
// does, but not a boundary's hook wait: the hooks are what waits for it
// (advisor.syncBacklog), and for the others of that boundary, which are
// delivered with it.
func (a *Agent) SteerRun(c session.Custom, interrupt bool) bool {
	if c.CustomType == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.running {
		return false
	}
	a.queueSteerLocked(queuedSteer{body: &c, interrupt: interrupt, run: a.runs})
	return true
}

func (a *Agent) queueSteer(b session.Body, interrupt bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queueSteerLocked(queuedSteer{body: b, interrupt: interrupt})
}

// queueSteerLocked queues s, and cancels the registered wait if s cuts
// it short; a.mu is held.
func (a *Agent) queueSteerLocked(s queuedSteer) {
	a.steers = append(a.steers, s)
	if a.interrupt != nil && a.wait.cutBy(s) {
		a.interrupt(ErrSteerInterrupt)
	}
}

// waitKind is the kind of wait an interrupting steer may cut short.
type waitKind int

const (
	waitNone waitKind = iota
	// waitTools is a step's tool calls: any interrupting steer cuts it.
	waitTools
	// waitHooks is a boundary's hook wait, which a run's own steer
	// ([Agent.SteerRun]) does not cut: the hooks are what waits for it
	// and for the others of its boundary (a roster's reviews).
	waitHooks
	// waitRequest is a model request: only a steer with AbortRequest
	// cuts it.
	waitRequest
)

// cutBy reports whether the steer s cuts a wait of kind w short.
func (w waitKind) cutBy(s queuedSteer) bool {
	switch w {
	case waitTools:
		return s.interrupt
	case waitHooks:
		return s.interrupt && s.run == 0
	case waitRequest:
		return s.abort
	}
	return false
}

// FollowUp queues a user message for when the running turn ends: it then
// opens a new turn in the same Prompt call. Follow-ups open one turn each,
// in order. A follow-up queued while the agent is idle, or left when a
// run ends early (error or abort), waits for the end of the next run's
// first turn. FollowUp never blocks.
func (a *Agent) FollowUp(text string) {
	if text == "" {
		return
	}
	a.mu.Lock()
	a.followUps = append(a.followUps, text)
	a.mu.Unlock()
}

// dropRunSteers forgets the steers that belong to the run ending now
// (SteerRun), and so the interrupt they asked for; a.mu is held.
func (a *Agent) dropRunSteers() {
	a.steers = slices.DeleteFunc(a.steers, func(s queuedSteer) bool { return s.run == a.runs })
}

// deliverSteers appends the queued steers and emits steer_delivered for
// each. It reports whether there were any. The caller holds the busy
// token.
func (a *Agent) deliverSteers() bool {
	a.mu.Lock()
	queued := a.steers
	a.steers = nil
	a.mu.Unlock()
	delivered := false
	for _, s := range queued {
		e, err := a.appendBody(s.body)
		if e.ID == "" {
			// The session refused it; say so rather than lose it silently.
			a.emit(a.event(Event{Type: EventSteerDelivered, Interrupt: s.interrupt, Err: err}))
			continue
		}
		delivered = true
		a.emit(a.event(Event{Type: EventSteerDelivered, Entry: &e, Interrupt: s.interrupt}))
	}
	return delivered
}

// boundary runs the hooks, then delivers queued steers, the hooks'
// injections and queued custom messages, in that order. It reports whether
// something the model must answer was delivered. The caller holds the busy
// token.
func (a *Agent) boundary(ctx context.Context, written []session.Entry, final bool) bool {
	var injections []Injection
	if len(a.hooks) > 0 {
		hookCtx, cancel := context.WithCancelCause(ctx)
		a.setInterrupt(cancel, waitHooks)
		timed, stop := context.WithTimeout(hookCtx, a.boundaryWait)
		info := BoundaryInfo{Session: a.sess, Turn: a.turn, Step: a.step, Entries: written, Final: final}
		for _, h := range a.hooks {
			injections = append(injections, h.Boundary(timed, info)...)
		}
		stop()
		a.setInterrupt(nil, waitNone)
		cancel(nil)
	}
	if ctx.Err() != nil {
		return false
	}
	continued := a.deliverSteers()
	for _, in := range injections {
		body, seen := in.body()
		if body == nil {
			continue
		}
		e, err := a.appendBody(body)
		ev := a.event(Event{Type: EventInjectionDelivered, Err: err})
		if e.ID != "" {
			ev.Entry = &e
			continued = continued || seen
		}
		a.emit(ev)
	}
	a.flushCustoms()
	return continued
}
