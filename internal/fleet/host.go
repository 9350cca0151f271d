package fleet

import (
	"context"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
)

// host is the [advisor.Host] of one session a worker owns: the steps the
// worker receives are appended to its [advisor.EntryBuffer], and what
// the advisor tells it is collected as notes the worker publishes after
// each review. A history rewrite restarts the buffer's view (the step
// that says so carries what the agent's model sees now); a session
// taken over primes it with the entries reviewed before.
type host struct {
	advisor.EntryBuffer

	mu    sync.Mutex
	notes []Note
}

var _ advisor.Withholder = (*host)(nil)

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
