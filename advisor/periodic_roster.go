package advisor

import (
	"context"
	"errors"
)

// PeriodicRoster is the periodic advisors of a roster run as one: each
// member is an independent [Periodic] (its own counters, forks, prompt,
// transcript and usage; none sees another's replies) over the same
// agent, and Guard, the [RosterGuard] their [PeriodicOptions.Roster]
// names, spans them: no two steer the same point, and the agent gets at
// most the guard's notes per step from all of them.
//
// A step of the agent begins, for the guard, when its run starts or a
// reply of its own names tool calls ([EventRunStarted], or
// [EventToolStarted] of a top-level call): the periodic hosts report no
// step ends, and every review forks at a boundary where the last step's
// calls have all settled, so the corrections of the reviews forked at
// one boundary compete for that step's slots.
type PeriodicRoster struct {
	// Members are the roster's running advisors, in the roster's order;
	// the first answers the agent's questions.
	Members []*Periodic
	// Guard is the guard the members share.
	Guard *RosterGuard
}

// Notify passes an event to every member, freeing the guard's slots
// first when it begins a step of the agent. It never blocks.
func (r *PeriodicRoster) Notify(ev Event) {
	if r.Guard != nil && (ev.Kind == EventRunStarted || ev.Kind == EventToolStarted && ev.Parent == (CallKey{})) {
		r.Guard.NewStep()
	}
	for _, m := range r.Members {
		m.Notify(ev)
	}
}

// WaitReview waits until no member has a review queued or in flight, or
// until ctx is done (its error). A member that is not running is not
// waited for.
func (r *PeriodicRoster) WaitReview(ctx context.Context) error {
	for _, m := range r.Members {
		if err := m.WaitReview(ctx); err != nil && !errors.Is(err, ErrStopped) {
			return err
		}
	}
	return nil
}

// WaitBacklogBelow is WaitReview, for a host that waits for a backlog.
func (r *PeriodicRoster) WaitBacklogBelow(ctx context.Context, _ int) error {
	return r.WaitReview(ctx)
}

// Consult asks the roster's first member ([Periodic.Consult]).
func (r *PeriodicRoster) Consult(ctx context.Context, question string) (string, error) {
	if len(r.Members) == 0 {
		return "", ErrStopped
	}
	return r.Members[0].Consult(ctx, question)
}

// Start starts every member.
func (r *PeriodicRoster) Start(ctx context.Context) {
	for _, m := range r.Members {
		m.Start(ctx)
	}
}

// Stop stops every member.
func (r *PeriodicRoster) Stop() {
	for _, m := range r.Members {
		m.Stop()
	}
}

// Status is the members' statuses, in their order.
func (r *PeriodicRoster) Status() []PeriodicStatus {
	out := make([]PeriodicStatus, len(r.Members))
	for i, m := range r.Members {
		out[i] = m.Status()
	}
	return out
}
