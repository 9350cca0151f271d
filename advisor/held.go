package advisor

import (
	"context"
	"slices"
)

// maxHeld bounds the notes held for later updates: an advisor that says
// more than this in a few updates is flooding, and its oldest held notes
// go first (logged).
const maxHeld = 16

// hold keeps a note the guard held back, for the next update.
func (r *Runtime) hold(a Advice) {
	if len(r.held) >= maxHeld {
		r.logf("advisor: %d notes held for later updates; dropping the oldest, %q", len(r.held), a.Note)
		r.held = r.held[1:]
	}
	r.held = append(r.held, a)
}

// deliverHeld delivers, at the start of an update, the notes earlier
// updates held back: strongest first, then oldest. Those the guard holds
// again (this update's slots are taken) wait for the next one; repeats of
// notes delivered since are dropped.
func (r *Runtime) deliverHeld(ctx context.Context) {
	if len(r.held) == 0 {
		return
	}
	held := r.held
	r.held = nil
	slices.SortStableFunc(held, func(a, b Advice) int { return b.Severity.rank() - a.Severity.rank() })
	for _, a := range held {
		if text, _, _ := r.deliver(ctx, a); text != "" {
			r.logf("advisor: held note %q: %s", a.Note, text)
		}
	}
}
