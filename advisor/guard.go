package advisor

import (
	"fmt"
	"strings"
)

// rememberedNotes bounds how many distinct notes an [emissionGuard] remembers for
// duplicate detection; the oldest is forgotten first.
const rememberedNotes = 4096

// guardDecision is the emission guard's verdict on one note.
type guardDecision struct {
	// Deliver says the note goes on to the delivery policy.
	Deliver bool
	// Hold says the note is new but this update's notes are taken: it is
	// kept and delivered with the next update, never dropped.
	Hold bool
	// Reason says, for the advisor, why a note was dropped or held; empty
	// when it is delivered.
	Reason string
}

// emissionGuard is the emission guard of one advisor runtime. It keeps the advisor
// from flooding the primary, while never dropping a note whose content is
// new. For each note, in this order, it:
//
//  1. drops a content-free note: one whose normalised text is a known
//     empty phrase or has fewer than [minContentWords] content words
//     ("Stop.", "Done.", "No issue; continue.");
//  2. drops an exact or near-exact duplicate of an earlier delivered note,
//     unless the new one has a higher severity (an escalation: a nit
//     repeated as a concern, a concern repeated as a blocker). Notes are
//     compared after normalisation: case, white space, punctuation,
//     apostrophes, filler words ("the", "please", "now", "just", ...) and
//     trailing thanks do not count. A nit and a note without severity
//     weigh the same;
//  3. holds a note that is not a blocker once PerUpdate notes (one by
//     default) were delivered in the same update: the runtime delivers it
//     with the next update instead, so a second distinct concern is late
//     by one update, never lost. Blockers are never held back.
//
// A delivered note is remembered (the last 4096 distinct notes, with the
// highest severity each was delivered at) and, unless it is a blocker,
// takes one of the update's slots. A dropped note does neither, so an
// advisor whose first note was a duplicate may still send a new one in
// that update.
//
// The zero value is ready to use. A Guard is not safe for concurrent use;
// the runtime calls it from its drain loop only.
type emissionGuard struct {
	// PerUpdate is how many notes other than blockers one update
	// delivers; 0 means 1.
	PerUpdate int

	notes map[string]remembered
	order []string // keys of notes, oldest first
	taken int      // notes other than blockers delivered in this update
}

// remembered is what a Guard keeps of a delivered note.
type remembered struct {
	severity Severity // the highest it was delivered at
	text     string   // as first delivered, for the reason text
	// answered says it was said in the answer to a consult
	// ([emissionGuard.Answered]), not as a note.
	answered bool
}

// NewUpdate tells the guard that a new update (one advisor review of a
// transcript delta) begins, which frees its delivery slots.
func (g *emissionGuard) NewUpdate() {
	g.taken = 0
}

// Reset forgets every note, for a new conversation. PerUpdate is kept.
func (g *emissionGuard) Reset() {
	*g = emissionGuard{PerUpdate: g.PerUpdate}
}

// perUpdate is PerUpdate, 1 when unset.
func (g *emissionGuard) perUpdate() int { return max(g.PerUpdate, 1) }

// Check decides whether a note is delivered, and records it if so. It is
// [emissionGuard.Decide] followed, when the note is delivered, by [emissionGuard.Record].
func (g *emissionGuard) Check(a Advice) guardDecision {
	d := g.Decide(a)
	if d.Deliver {
		g.Record(a)
	}
	return d
}

// Decide says whether a note would be delivered, without recording it:
// call [emissionGuard.Record] once the note has really reached the agent, so a
// note the agent could not be given neither takes the update's slot nor
// counts as said.
func (g *emissionGuard) Decide(a Advice) guardDecision {
	words := normalise(a.Note)
	if contentFree(words) {
		return guardDecision{Reason: "the note has no concrete content; say what is wrong and what to do instead, or send nothing"}
	}
	key := strings.Join(words, " ")
	prev, seen := g.notes[key]
	if seen && a.Severity.rank() <= prev.severity.rank() && prev.answered {
		return guardDecision{Reason: fmt.Sprintf("it repeats your answer to the agent's question (%s), which the agent already has; repeat it only to escalate it to a blocker",
			quote(prev.text))}
	}
	if seen && a.Severity.rank() <= prev.severity.rank() {
		return guardDecision{Reason: fmt.Sprintf("it repeats an earlier note (%s) at %s severity; repeat a note only to escalate it to a higher severity",
			quote(prev.text), sameOrLower(a.Severity, prev.severity))}
	}
	if a.Severity != SeverityBlocker && g.taken >= g.perUpdate() {
		n := g.perUpdate()
		return guardDecision{Hold: true, Reason: fmt.Sprintf("%d %s already delivered in this update, which delivers %d; it goes to the agent with the next update, unless it repeats a note by then",
			n, plural(n, "note was", "notes were"), n)}
	}
	return guardDecision{Deliver: true}
}

// Record remembers a delivered note: unless it is a blocker it takes one
// of the update's slots, and later repeats of it at the same or a lower
// severity are dropped.
func (g *emissionGuard) Record(a Advice) {
	if a.Severity != SeverityBlocker {
		g.taken++
	}
	g.remember(a, false)
}

// Answered remembers the answer the advisor gave to a question of the
// agent ([Runtime.Consult]) as said at concern severity: a later note that
// repeats the whole answer, one of its paragraphs or one of its
// sentences, at concern severity or lower, is dropped; a blocker still
// goes through. It takes no update's slot.
func (g *emissionGuard) Answered(answer string) {
	for _, part := range answerParts(answer) {
		if part = strings.TrimSpace(part); !contentFree(normalise(part)) {
			g.remember(Advice{Note: part, Severity: SeverityConcern}, true)
		}
	}
}

// answerParts splits an answer into itself, its paragraphs and its
// sentences (ended by . ! or ? before white space, or by a line break).
func answerParts(answer string) []string {
	parts := []string{answer}
	for _, para := range strings.Split(answer, "\n\n") {
		parts = append(parts, para)
		start := 0
		for i := 0; i < len(para); i++ {
			end := para[i] == '\n' || (para[i] == '.' || para[i] == '!' || para[i] == '?') && (i+1 == len(para) || para[i+1] == ' ' || para[i+1] == '\n')
			if end {
				parts = append(parts, para[start:i+1])
				start = i + 1
			}
		}
		parts = append(parts, para[start:])
	}
	return parts
}

// remember keeps a note said to the agent, at the highest severity it was
// said at.
func (g *emissionGuard) remember(a Advice, answered bool) {
	key := strings.Join(normalise(a.Note), " ")
	if g.notes == nil {
		g.notes = make(map[string]remembered)
	}
	if prev, seen := g.notes[key]; seen {
		if a.Severity.rank() > prev.severity.rank() {
			prev.severity, prev.answered = a.Severity, answered
			g.notes[key] = prev
		}
		return
	}
	if len(g.order) >= rememberedNotes {
		delete(g.notes, g.order[0])
		g.order = g.order[1:]
	}
	g.notes[key] = remembered{severity: a.Severity, text: a.Note, answered: answered}
	g.order = append(g.order, key)
}

func sameOrLower(s, prev Severity) string {
	if s.rank() < prev.rank() {
		return "a lower"
	}
	return "the same"
}

// quote shows an earlier note in a reason, shortened if long.
func quote(s string) string {
	const limit = 80
	r := []rune(s)
	if len(r) > limit {
		s = string(r[:limit]) + "…"
	}
	return fmt.Sprintf("%q", s)
}
