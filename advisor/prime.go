package advisor

import (
	"context"
	"math"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// StartPoint says where a runtime starts reading the transcript.
type StartPoint int

const (
	// StartAtBeginning reads the transcript from its first entry: for a
	// session the advisor watches from its start.
	StartAtBeginning StartPoint = iota
	// StartAtEnd seeds the cursor at the current end, so history from
	// before the advisor was enabled is not replayed: for an advisor
	// enabled in the middle of a session.
	StartAtEnd
	// StartPrimed replays a bounded tail of what the primary's model sees
	// now (see [Options.PrimeTokens]) with the first update: for an
	// advisor started on a resumed session.
	StartPrimed
)

// DefaultPrimeTokens is the default of [Options.PrimeTokens].
const DefaultPrimeTokens = 24000

// prime sets the cursor from Host.View and, unless the runtime starts at
// the end, queues the view's tail that fits the prime budget as pending
// entries; they are reviewed with the next step.
func (r *Runtime) prime(ctx context.Context) error {
	if r.seedOnly {
		// Only the end is needed: a cursor past it returns just that.
		_, end, err := r.opts.Host.Since(ctx, math.MaxInt)
		if err != nil {
			return err
		}
		r.cursor, r.needPrime, r.seedOnly = end, false, false
		return nil
	}
	view, cursor, err := r.opts.Host.View(ctx)
	if err != nil {
		return err
	}
	r.cursor, r.needPrime = cursor, false
	r.followThinking(view)
	r.pending = primeTail(view, r.opts.PrimeTokens)
	return nil
}

// primeTail returns the advisor-visible entries at the end of view whose
// rendering fits in budget tokens (4 bytes a token). A compaction summary
// at the head of the view is kept when it fits in a quarter of the budget,
// since it is what the primary knows of everything before. The tail never
// starts with tool results whose calls were cut off.
func primeTail(view []session.Entry, budget int) []session.Entry {
	var visible []session.Entry
	for _, e := range view {
		if history.Visible(e) {
			visible = append(visible, e)
		}
	}
	if len(visible) == 0 {
		return nil
	}
	opts := history.AdvisorOptions(nil)
	cost := func(e session.Entry) int {
		return len(history.Render([]session.Entry{e}, opts))/4 + 1
	}
	left := budget
	var head []session.Entry
	if _, ok := visible[0].Body.(*session.Compaction); ok {
		if c := cost(visible[0]); c <= budget/4 {
			head = visible[:1]
			left -= c
		}
		visible = visible[1:]
	}
	start := len(visible)
	for start > 0 {
		c := cost(visible[start-1])
		if c > left {
			break
		}
		left -= c
		start--
	}
	for start < len(visible) && onlyResults(visible[start]) {
		start++
	}
	out := make([]session.Entry, 0, len(head)+len(visible)-start)
	out = append(out, head...)
	return append(out, visible[start:]...)
}

// onlyResults reports whether e is a message of tool results alone.
func onlyResults(e session.Entry) bool {
	m, ok := e.Body.(*session.Message)
	if !ok || len(m.Message.Content) == 0 {
		return false
	}
	for _, b := range m.Message.Content {
		if b.Type != llm.BlockToolResult {
			return false
		}
	}
	return true
}
