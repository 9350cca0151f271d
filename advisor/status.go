package advisor

import (
	"slices"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// Status is a snapshot of a runtime's counters.
type Status struct {
	// Reviews is how many reviews completed.
	Reviews int
	// Failures is how many review attempts failed, retries included.
	Failures int
	// Dropped is how many backlogs were dropped after repeated failures.
	Dropped int
	// Model names the model serving the advisor now, and Window is its
	// context window (0 when unknown).
	Model  string
	Window int
	// Usage sums the token usage of every successful model call.
	Usage llm.Usage
	// Models splits Usage by the model that served each call, in the
	// order they first served, so each call is priced at its own model.
	Models []ModelUsage
	// ContextMessages is the length of the advisor's own context.
	ContextMessages int
	// ContextTokens is the size of the advisor's own context in tokens:
	// the prompt size the provider reported for the last reply, plus an
	// estimate (bytes/4) of what was added after it.
	ContextTokens int64
	// Delivered counts the notes that reached the agent (as an aside, a
	// steer or a card); Withheld those shown to the user only
	// ([Options.Withhold]).
	Delivered, Withheld int
	// Resets counts how often the advisor's context was reset by a
	// history rewrite.
	Resets int
	// Promotions, Compactions and Reprimes count the steps of context
	// maintenance taken.
	Promotions, Compactions, Reprimes int
	// Promoted lists the promotions, oldest first.
	Promoted []PromotionRecord
	// ProseStreak is how many reviews in a row ended in prose (at least
	// [ProseMin] characters) with no advise call; an advise call resets
	// it. ProseWarnings counts the warnings it raised (one per streak
	// that reached [ProseWarnAfter]).
	ProseStreak, ProseWarnings int
	// Pending says a step is waiting to be reviewed.
	Pending bool
	// Backlog is how many steps are unreviewed; see
	// [Runtime.WaitBacklogBelow].
	Backlog int
	// Consults counts the agent's questions the advisor answered
	// ([Runtime.Consult]), apart from Reviews; ConsultFailures those that
	// failed or ran out of time, and ConsultsRefused those refused at
	// once (the per-run cap, no model). ConsultUsage is the part of Usage
	// the consults spent.
	Consults, ConsultFailures, ConsultsRefused int
	ConsultUsage                               llm.Usage
	// Health says whether the advisor supervises now, HealthDetail why
	// not (the last failure), and Until when a quota window ends.
	Health       Health
	HealthDetail string
	Until        time.Time
}

// Status returns the runtime's counters.
func (r *Runtime) Status() Status {
	r.mu.Lock()
	defer r.mu.Unlock()
	st := r.status
	st.Model, st.Window = r.modelName, r.window
	st.Health, st.HealthDetail, st.Until = r.healthLocked(time.Now())
	st.Models = slices.Clone(st.Models)
	st.Promoted = slices.Clone(st.Promoted)
	return st
}
