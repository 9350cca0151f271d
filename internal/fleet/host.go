package fleet

import (
	"context"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/session"
)

// maxView bounds the entries a host keeps of what the agent's model sees.
const maxView = 400

// host is the [advisor.Host] of one session a worker owns: the steps the
// worker receives are appended to it, and what the advisor tells it is
// collected as notes the worker publishes after each review.
type host struct {
	mu sync.Mutex
	// entries[i] has cursor base+i; entries read are dropped.
	entries []session.Entry
	base    int
	view    []session.Entry
	notes   []Note
}

var _ advisor.Withholder = (*host)(nil)

// append adds a step's entries and returns the cursor after them.
func (h *host) append(entries []session.Entry) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range entries {
		h.entries = append(h.entries, e)
		if _, ok := e.Body.(*session.Compaction); ok {
			h.view = h.view[:0]
		}
		h.view = append(h.view, e)
		if len(h.view) > maxView {
			h.view = append(h.view[:0], h.view[len(h.view)-maxView/2:]...)
		}
	}
	return h.base + len(h.entries)
}

// rewrite empties the view: the agent's history was rewritten, and the
// step that says so carries what its model sees now.
func (h *host) rewrite() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.view = h.view[:0]
}

// prime seeds the view with entries the advisor has seen before (a
// session taken over): they are behind the cursor, for View only.
func (h *host) prime(entries []session.Entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.view = append(h.view[:0], entries...)
	if len(h.view) > maxView {
		h.view = h.view[len(h.view)-maxView:]
	}
	h.base = len(entries)
}

// take returns the notes collected since the last take.
func (h *host) take() []Note {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := h.notes
	h.notes = nil
	return n
}

func (h *host) add(kind string, a advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.notes = append(h.notes, Note{Kind: kind, Advice: a, Advisor: a.Advisor})
	return nil
}

// Since implements [advisor.Host].
func (h *host) Since(_ context.Context, cursor int) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	end := h.base + len(h.entries)
	if cursor >= end {
		return nil, end, nil
	}
	from := max(cursor-h.base, 0)
	out := append([]session.Entry(nil), h.entries[from:]...)
	if from > 0 {
		h.entries = append(h.entries[:0], h.entries[from:]...)
		h.base += from
	}
	return out, end, nil
}

// View implements [advisor.Host].
func (h *host) View(_ context.Context) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]session.Entry(nil), h.view...), h.base + len(h.entries), nil
}

// Aside implements [advisor.Host].
func (h *host) Aside(_ context.Context, a advisor.Advice) error { return h.add(KindAside, a) }

// Steer implements [advisor.Host].
func (h *host) Steer(_ context.Context, a advisor.Advice) error { return h.add(KindSteer, a) }

// Card implements [advisor.Host].
func (h *host) Card(_ context.Context, a advisor.Advice) error { return h.add(KindCard, a) }

// Withhold implements [advisor.Withholder].
func (h *host) Withhold(_ context.Context, a advisor.Advice) error { return h.add(KindWithhold, a) }

// Resume implements [advisor.Host]: the agent is asked to resume.
func (h *host) Resume(_ context.Context) error { return h.add(KindResume, advisor.Advice{}) }
