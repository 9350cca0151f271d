package sidecar

import (
	"context"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/session"
)

// MaxContext bounds the text one hook reply adds to the agent's context:
// notes that do not fit wait for the next boundary (a single note larger
// than this is sent alone).
const MaxContext = 9000

// maxView bounds the entries a Host keeps of what the agent's model
// sees; the advisor primes from a bounded tail of them anyway.
const maxView = 400

// Host is the [advisor.Host] of an agent watched through its hooks. The
// sidecar appends the entries it follows; the advisor's notes wait in
// the Host until a hook takes them, since the agent can be told things
// only when it calls a hook:
//
//   - Aside and Steer queue a note for the next tool boundary
//     (PostToolUse); a Steer also makes the Stop hook block. The agent's
//     running tool is never aborted: hooks cannot do that.
//   - Card keeps a note for the user's next prompt (UserPromptSubmit).
//   - Resume asks the Stop hook, if it is still waiting, to block with the
//     interrupting notes so the agent takes one more turn; once the agent
//     has stopped, a hook cannot restart it.
//
// It keeps memory bounded: entries the advisor has read are dropped, and
// the view keeps the latest maxView entries.
type Host struct {
	mu sync.Mutex
	// entries[i] has cursor base+i.
	entries []session.Entry
	base    int
	view    []session.Entry
	asides  []advisor.Advice
	steers  []advisor.Advice
	cards   []advisor.Advice
	resume  bool
	// changed is closed and replaced whenever a note arrives.
	changed chan struct{}
}

// NewHost returns an empty Host.
func NewHost() *Host { return &Host{changed: make(chan struct{})} }

// Append adds entries the agent wrote, in order, and returns the cursor
// after the last. A compaction entry restarts the view with itself.
func (h *Host) Append(entries ...session.Entry) int {
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

// Len is the cursor at the end of the entries appended so far.
func (h *Host) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.base + len(h.entries)
}

// Since implements [advisor.Host]. Entries before the cursor are
// forgotten: the advisor never reads behind its cursor but after a
// history rewrite, and then it primes from View.
func (h *Host) Since(_ context.Context, cursor int) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	end := h.base + len(h.entries)
	if cursor >= end {
		return nil, end, nil
	}
	from := max(cursor-h.base, 0)
	out := append([]session.Entry(nil), h.entries[from:]...)
	// Drop what was read before: the advisor's cursor only moves on.
	if from > 0 {
		h.entries = append(h.entries[:0], h.entries[from:]...)
		h.base += from
	}
	return out, end, nil
}

// View implements [advisor.Host]: the latest entries since the last
// compaction (its summary first).
func (h *Host) View(_ context.Context) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]session.Entry(nil), h.view...), h.base + len(h.entries), nil
}

// Aside implements [advisor.Host].
func (h *Host) Aside(_ context.Context, n advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asides = append(h.asides, n)
	h.signalLocked()
	return nil
}

// Steer implements [advisor.Host].
func (h *Host) Steer(_ context.Context, n advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steers = append(h.steers, n)
	h.signalLocked()
	return nil
}

// Card implements [advisor.Host].
func (h *Host) Card(_ context.Context, n advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cards = append(h.cards, n)
	h.signalLocked()
	return nil
}

// Resume implements [advisor.Host].
func (h *Host) Resume(_ context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resume = true
	h.signalLocked()
	return nil
}

func (h *Host) signalLocked() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// Boundary takes the notes due at a tool boundary, interrupting ones
// first, formatted as one text, at most [MaxContext] long; "" when none.
func (h *Host) Boundary() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var text string
	text, h.steers = take(h.steers, MaxContext)
	if len(h.steers) == 0 {
		h.resume = false
	}
	var more string
	more, h.asides = take(h.asides, MaxContext-len(text))
	return join(text, more)
}

// StopNotes takes the interrupting notes, formatted, when the agent is
// stopping and should not: "" when none is pending.
func (h *Host) StopNotes() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var text string
	text, h.steers = take(h.steers, MaxContext)
	if len(h.steers) == 0 {
		h.resume = false
	}
	return text
}

// Prompt takes what is due when the user sends a prompt: the cards,
// then the notes still waiting for a boundary.
func (h *Host) Prompt() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var a, b, c string
	a, h.cards = take(h.cards, MaxContext)
	b, h.steers = take(h.steers, MaxContext-len(a))
	if len(h.steers) == 0 {
		h.resume = false
	}
	c, h.asides = take(h.asides, MaxContext-len(a)-len(b))
	return join(join(a, b), c)
}

// dropSteers forgets the interrupting notes waiting (their run ended).
func (h *Host) dropSteers() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steers, h.resume = nil, false
}

// Pending counts the notes waiting: interrupting ones, asides, cards.
func (h *Host) Pending() (steers, asides, cards int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.steers), len(h.asides), len(h.cards)
}

// Changed returns a channel closed when a note next arrives.
func (h *Host) Changed() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
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
