package advisor

import (
	"time"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
)

// Options configure a [Runtime].
type Options struct {
	// Model is the advisor model. Do not wrap it in [llm.WithRetry]: the
	// runtime has its own retry rule. Nil makes the Detector the only
	// reviewer; one of the two is required.
	Model llm.Model
	// Name names the advisor in a roster (see [RosterGuard]): its notes
	// carry advisor="NAME"; "" for the single advisor.
	Name string
	// Roster, when set, is the guard shared by the roster's advisors, on
	// top of this runtime's own.
	Roster *RosterGuard
	// ToolNames, when set, keeps only these of the read-only tools (grep
	// is search and glob is find, as WATCHDOG.yml writes them); a
	// roster's advisor may be given fewer.
	ToolNames []string
	// ModelName names Model as provider/model in [Status.Models], notices
	// and promotion records.
	ModelName string
	// Detector, if set, observes every update with zero-token detectors:
	// with no Model its notes are the advice; with Gate they decide when
	// the model reviews; otherwise they are hints added to each update.
	Detector Detector
	// Gate makes the model review only updates in which the Detector
	// found something.
	Gate bool
	// Host is the agent watched. Required.
	Host Host
	// System is the advisor's system prompt; "" means [DefaultSystemPrompt].
	System string
	// Roots are the folders the read-only tools may read; empty gives the
	// advisor the advise tool alone.
	Roots []string
	// Redactor hides secrets in everything the advisor model is sent: the
	// system prompt (with WATCHDOG.md), the session updates, the results
	// of its tools and the errors quoted back to it; nil hides nothing.
	Redactor *history.Redactor
	// ImmuneTurns is the interrupt cooldown in primary steps: after a
	// steer, later concerns and blockers go as asides until that many
	// primary steps have completed. 0 means [DefaultImmuneTurns], a
	// negative value turns it off.
	ImmuneTurns int
	// MaxToolRounds bounds the model calls of one review that run tools:
	// after that many, further tool calls are answered with an error and
	// the review ends. 0 means [DefaultMaxToolRounds].
	MaxToolRounds int
	// ContinueAfterAdvise asks the model again after a review's round
	// whose calls were all advise calls the runtime took (delivered,
	// withheld, queued or held), instead of ending the review there; for
	// tests that need a model call after a delivered note. Consults
	// always go on: they need an answer.
	ContinueAfterAdvise bool
	// MaxTokens caps each advisor reply; 0 means the model's default.
	MaxTokens int
	// OnWarning, if set, is told when a backlog is dropped after
	// [MaxConsecutiveFailures] failed reviews; otherwise Logf is.
	OnWarning func(string)
	// Logf, if set, logs what the runtime does.
	Logf func(format string, args ...any)
	// Start says where in the transcript the runtime starts reading; the
	// zero value is [StartAtBeginning].
	Start StartPoint
	// CallTimeout bounds each advisor model call, so that a stalled
	// provider becomes a failed review (retried, and after
	// [MaxConsecutiveFailures] dropped) instead of silencing the advisor;
	// 0 means [DefaultCallTimeout].
	CallTimeout time.Duration
	// ContextWindow is the advisor model's context window in tokens;
	// before each review the runtime keeps its context under a threshold
	// below it (promotion, compaction, re-prime). 0 turns that off.
	ContextWindow int
	// Promote, if set, is asked for a larger-context model when the
	// advisor's context crosses the threshold; need is its size in
	// tokens. ok false offers none.
	Promote func(need int64) (p Promotion, ok bool)
	// OnNotice, if set, is told of each step of context maintenance.
	OnNotice func(string)
	// Recorder, if set, is given the advisor's context as it is
	// finalized; see [Recorder].
	Recorder Recorder
	// FollowThinking has each review ask for the thinking level the agent
	// last switched to (its session's model changes), instead of the
	// advisor model's own; until the agent's is known, the model's own.
	FollowThinking bool
	// Cadence is how often the model reviews: every step (the zero
	// value), every N-th, or at the end of each run.
	Cadence Cadence
	// MaxNotesPerUpdate is how many notes other than blockers one update
	// delivers (the guard's PerUpdate); the others are held for the next
	// update. 0 means 1.
	MaxNotesPerUpdate int
	// KeepToolResults sends the advisor's tool results from earlier
	// reviews whole with every request, instead of a one-line marker in
	// their place (elide.go); for comparison, and for models whose cache
	// pricing makes the marker a loss.
	KeepToolResults bool
	// Withhold keeps every note out of the primary's context
	// (advisor.allowPromptInjection: false), to try an advisor before
	// trusting it: reviews run as usual, the guard still decides, and a
	// note it lets through is shown through [Withholder.Withhold] instead
	// of being delivered; no run is interrupted or resumed, and the
	// advisor is told its note was withheld.
	Withhold bool
	// PrimeTokens bounds, in estimated tokens, the tail of the primary's
	// view replayed to the advisor after a history rewrite and at a
	// [StartPrimed] start; 0 means [DefaultPrimeTokens].
	PrimeTokens int
	// ConsultTimeout bounds one [Runtime.Consult], its wait for a review
	// in flight included (advisor.consult.timeoutSeconds); 0 means
	// [DefaultConsultTimeout].
	ConsultTimeout time.Duration
	// ConsultMaxPerRun caps the consults of one primary run
	// (advisor.consult.maxPerRun); 0 means [DefaultConsultMaxPerRun].
	ConsultMaxPerRun int
}
