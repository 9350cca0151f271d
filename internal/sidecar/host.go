package sidecar

import (
	"context"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
)

// MaxContext bounds the text one hook reply adds to the agent's context:
// notes that do not fit wait for the next boundary (a single note larger
// than this is sent alone).
const MaxContext = 9000

// Host is the [advisor.Host] of an agent watched through its hooks. The
// sidecar appends the entries it follows; the advisor's notes wait in
// the Host until a hook takes them, since the agent can be told things
// only when it calls a hook:
//
//   - Aside and Steer queue a note for the next tool boundary
//     (PostToolUse); a Steer also makes the Stop hook block. The agent's
//     running tool is never aborted: hooks cannot do that.
//   - Card keeps a note for the user's next prompt (UserPromptSubmit).
//   - Resume does nothing more: the Stop hook, waiting for the review
//     that steered, blocks with the note so the agent takes one more
//     turn; once the agent has stopped, a hook cannot restart it.
//   - Withhold (advisor.allowPromptInjection: false) keeps the note for
//     the user only ([Host.Withheld]): no hook reply carries it, as
//     additionalContext or as a Stop block.
//
// Its entries are an [advisor.EntryBuffer]'s: memory stays bounded.
type Host struct {
	advisor.EntryBuffer

	mu     sync.Mutex
	asides []advisor.Advice
	steers []advisor.Advice
	cards  []advisor.Advice
	// withheld counts the notes kept from the agent; lastWithheld holds
	// the latest maxWithheld of them.
	withheld     int
	lastWithheld []advisor.Advice
}

var _ advisor.Withholder = (*Host)(nil)

// maxWithheld bounds the withheld notes a Host keeps to show.
const maxWithheld = 20

// NewHost returns an empty Host.
func NewHost() *Host { return &Host{} }

// Aside implements [advisor.Host].
func (h *Host) Aside(_ context.Context, n advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asides = append(h.asides, n)
	return nil
}

// Steer implements [advisor.Host].
func (h *Host) Steer(_ context.Context, n advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steers = append(h.steers, n)
	return nil
}

// Card implements [advisor.Host].
func (h *Host) Card(_ context.Context, n advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cards = append(h.cards, n)
	return nil
}

// Withhold implements [advisor.Withholder]: the note is kept to show the
// user and never handed to a hook.
func (h *Host) Withhold(_ context.Context, n advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.withheld++
	h.lastWithheld = append(h.lastWithheld, n)
	if len(h.lastWithheld) > maxWithheld {
		h.lastWithheld = append(h.lastWithheld[:0], h.lastWithheld[len(h.lastWithheld)-maxWithheld:]...)
	}
	return nil
}

// Withheld returns how many notes were withheld from the agent and the
// latest of them, oldest first.
func (h *Host) Withheld() (n int, latest []advisor.Advice) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.withheld, append([]advisor.Advice(nil), h.lastWithheld...)
}

// Resume implements [advisor.Host]. The runtime calls it after a Steer
// when the run ended on its own; the Stop hook, which is still waiting
// for that review, blocks with the steered note, which is the only way to
// resume an agent through its hooks. So there is nothing more to do.
func (h *Host) Resume(_ context.Context) error { return nil }

// Boundary takes the notes due at a tool boundary, interrupting ones
// first, formatted as one text, at most [MaxContext] long; "" when none.
func (h *Host) Boundary() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	text := h.takeSteersLocked(MaxContext)
	var more string
	more, h.asides = take(h.asides, MaxContext-len(text))
	return join(text, more)
}

// StopNotes takes the interrupting notes, formatted, when the agent is
// stopping and should not: "" when none is pending.
func (h *Host) StopNotes() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.takeSteersLocked(MaxContext)
}

// Prompt takes what is due when the user sends a prompt: the cards,
// then the notes still waiting for a boundary.
func (h *Host) Prompt() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var cards, asides string
	cards, h.cards = take(h.cards, MaxContext)
	steers := h.takeSteersLocked(MaxContext - len(cards))
	asides, h.asides = take(h.asides, MaxContext-len(cards)-len(steers))
	return join(join(cards, steers), asides)
}

// takeSteersLocked takes the interrupting notes that fit in limit.
func (h *Host) takeSteersLocked(limit int) string {
	var text string
	text, h.steers = take(h.steers, limit)
	return text
}

// dropSteers forgets the interrupting notes waiting (their run ended).
func (h *Host) dropSteers() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steers = nil
}

// Pending counts the notes waiting: interrupting ones, asides, cards.
func (h *Host) Pending() (steers, asides, cards int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.steers), len(h.asides), len(h.cards)
}

// take formats the longest prefix of notes that fits in limit (at least
// one note, if any) and returns the text and the notes left.
func take(notes []advisor.Advice, limit int) (string, []advisor.Advice) {
	if len(notes) == 0 {
		return "", notes
	}
	n := 1
	text := advisor.FormatAdvisories(notes[:1])
	for n < len(notes) {
		next := advisor.FormatAdvisories(notes[:n+1])
		if len(next) > limit {
			break
		}
		text, n = next, n+1
	}
	if len(text) > limit && limit < MaxContext {
		return "", notes // not even one fits after what is already taken
	}
	return text, append([]advisor.Advice(nil), notes[n:]...)
}

func join(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}
