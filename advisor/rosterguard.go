package advisor

import (
	"fmt"
	"strings"
	"sync"
)

// RosterGuard is the emission guard that spans the advisors of a roster,
// on top of each one's own: none delivers a point another already made
// (the duplicate rules of each runtime's guard, across advisors), and the
// agent gets at most Max notes per step of its own from the whole roster;
// blockers are exempt from that cap. [RosterGuard.NewStep] frees the
// slots when the agent's next step begins. Each advisor is otherwise
// independent: its own context, cursor, cache, transcript and usage; none
// sees another's notes.
//
// It is safe for concurrent use by the roster's runtimes.
type RosterGuard struct {
	mu sync.Mutex
	// said remembers what any advisor of the roster delivered (and the
	// answers to the agent's questions).
	said emissionGuard
	// max and taken are the cap per step and the notes delivered in this
	// one; pending are notes between Decide and Record.
	max, taken int
	pending    map[string]bool
	// steps counts NewStep; boundary is the step whose reviews last
	// decided at dispatch, and proceed what they decided.
	steps, boundary  uint64
	decided, proceed bool
}

// NewRosterGuard returns the guard of a roster that delivers at most max
// notes per step of the agent (0 or less: one), blockers exempt.
func NewRosterGuard(max int) *RosterGuard {
	if max <= 0 {
		max = 1
	}
	return &RosterGuard{max: max, pending: map[string]bool{}}
}

// NewStep frees the roster's slots: the agent has begun a new step.
func (g *RosterGuard) NewStep() {
	g.mu.Lock()
	g.taken = 0
	g.steps++
	g.mu.Unlock()
}

// step is the agent's step as the guard counts it: what a member's
// review records when it is queued, to dispatch with the reviews queued
// at the same boundary.
func (g *RosterGuard) step() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.steps
}

// dispatch decides, for the reviews the roster queued at step, whether
// they fork or stand down: the first member to dispatch decides with
// fresh (no call started since its review was queued) and the others
// follow it, so the corrections of one boundary reach the agent
// together. A member that reaches dispatch late, after the agent's next
// call started, forks as its siblings did: its host's fork ends where
// every call has its result ([PeriodicHost.Fork]), the point they
// reviewed.
func (g *RosterGuard) dispatch(step uint64, fresh bool) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decided && g.boundary == step {
		return g.proceed
	}
	g.decided, g.boundary, g.proceed = true, step, fresh
	return fresh
}

// reserve decides a note another advisor's guard let through, and holds
// its slot until [RosterGuard.commit] or [RosterGuard.release], so two
// advisors delivering at once cannot both take the last slot or make the
// same point.
func (g *RosterGuard) reserve(a Advice) guardDecision {
	key := strings.Join(normalise(a.Note), " ")
	g.mu.Lock()
	defer g.mu.Unlock()
	g.said.NewUpdate() // the roster's cap is counted per step, below
	if d := g.said.Decide(a); !d.Deliver {
		return guardDecision{Reason: strings.Replace(d.Reason, "an earlier note", "a note of another advisor of this session", 1)}
	}
	if g.pending[key] {
		return guardDecision{Reason: "another advisor of this session is delivering the same note now"}
	}
	if a.Severity != SeverityBlocker && g.taken >= g.max {
		return guardDecision{Hold: true, Reason: fmt.Sprintf("the advisors of this session already gave the agent %d %s since its last step (maxNotesPerUpdate); it goes to the agent with your next update, unless another advisor makes the point first",
			g.taken, plural(g.taken, "note", "notes"))}
	}
	g.pending[key] = true
	if a.Severity != SeverityBlocker {
		g.taken++
	}
	return guardDecision{Deliver: true}
}

// commit records a reserved note that reached the agent.
func (g *RosterGuard) commit(a Advice) {
	key := strings.Join(normalise(a.Note), " ")
	g.mu.Lock()
	delete(g.pending, key)
	g.said.remember(a, false)
	g.mu.Unlock()
}

// release gives back the slot of a reserved note that did not reach the
// agent.
func (g *RosterGuard) release(a Advice) {
	key := strings.Join(normalise(a.Note), " ")
	g.mu.Lock()
	delete(g.pending, key)
	if a.Severity != SeverityBlocker && g.taken > 0 {
		g.taken--
	}
	g.mu.Unlock()
}

// answered remembers an advisor's answer to the agent's question for the
// whole roster.
func (g *RosterGuard) answered(answer string) {
	g.mu.Lock()
	g.said.Answered(answer)
	g.mu.Unlock()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
