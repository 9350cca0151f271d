// Package replay runs the advisor runtime over a recorded session, step
// by step, as if the agent were running it now: the advisor reviews each
// step before it is shown the next, and every note it delivers is
// recorded against the step it was raised at. It is how vigil measures a
// model advisor, a gated one or the detectors alone on transcripts of
// agents that already ran (vigil eval).
//
// A replay is deterministic in what the advisor is shown: the runtime
// reviews in lockstep with the steps (as with advisor.syncBacklog 1), so
// a note can only be about the steps before it. The advisor gets no
// workspace: its read-only tools are off unless Options.Roots is set.
package replay

import (
	"context"
	"fmt"
	"iter"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// Options configure the advisor a [Reviewer] replays runs to.
type Options struct {
	// Model is the advisor model; nil runs the Detector alone.
	Model llm.Model
	// NewDetector, if set, makes a fresh detector for each run.
	NewDetector func() advisor.Detector
	// Gate lets the model review only steps where the detector fired.
	Gate bool
	// System is the advisor's system prompt; "" is the default one.
	System string
	// Roots are folders the advisor may read; none by default.
	Roots []string
	// Redactor hides secrets from the advisor; nil hides none.
	Redactor *history.Redactor
	// ImmuneTurns is passed to the runtime (0: the default).
	ImmuneTurns int
	// ContextWindow is the model's window, for the runtime's context
	// maintenance on long runs (0: none).
	ContextWindow int
}

// DetectorName is the detector name of findings that are advisor notes.
const DetectorName = "advisor"

// Reviewer replays each run to a fresh advisor runtime and returns the
// notes it delivered as findings (detector [DetectorName], the note's
// severity, start and end at the step the note was raised after). It
// implements the reviewer of package internal/eval. It is safe for
// sequential use across runs; Spent sums the tokens of every run.
type Reviewer struct {
	Options Options

	mu    sync.Mutex
	spent llm.Usage
}

// Spent returns the advisor tokens used by every run replayed so far.
func (r *Reviewer) Spent() llm.Usage {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.spent
}

// Review replays steps to a new advisor runtime, waiting for each step's
// review before showing the next.
func (r *Reviewer) Review(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, error) {
	h := &host{}
	opts := advisor.Options{
		Model:       r.Options.Model,
		Host:        h,
		System:      r.Options.System,
		Roots:       r.Options.Roots,
		Redactor:    r.Options.Redactor,
		ImmuneTurns: r.Options.ImmuneTurns,
		Gate:        r.Options.Gate,

		ContextWindow: r.Options.ContextWindow,
	}
	if r.Options.NewDetector != nil {
		opts.Detector = r.Options.NewDetector()
	}
	rt, err := advisor.New(opts)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	rt.Start(ctx)
	defer func() {
		rt.Stop()
		r.mu.Lock()
		r.spent = r.spent.Add(rt.Status().Usage)
		r.mu.Unlock()
	}()
	rt.Notify(advisor.Event{Kind: advisor.EventUserResumed})
	for st := range steps {
		h.add(st)
		rt.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.len()})
		if err := rt.WaitBacklogBelow(ctx, 1); err != nil {
			return h.findings(), fmt.Errorf("replay: step %d: %w", st.N, err)
		}
	}
	rt.Notify(advisor.Event{Kind: advisor.EventRunEnded})
	return h.findings(), nil
}

// host is an advisor.Host over a run being replayed: the transcript grows
// one step at a time and deliveries are recorded, not acted on.
type host struct {
	mu      sync.Mutex
	entries []session.Entry
	step    int
	notes   []rules.Finding
}

var _ advisor.Host = (*host)(nil)

func (h *host) add(st transcript.Step) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.step = st.N
	h.entries = append(h.entries, st.Context...)
	h.entries = append(h.entries, st.Reply)
	h.entries = append(h.entries, st.Results...)
}

func (h *host) len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.entries)
}

func (h *host) findings() []rules.Finding {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]rules.Finding(nil), h.notes...)
}

func (h *host) Since(_ context.Context, cursor int) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cursor = max(0, min(cursor, len(h.entries)))
	return append([]session.Entry(nil), h.entries[cursor:]...), len(h.entries), nil
}

func (h *host) View(_ context.Context) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]session.Entry(nil), h.entries...), len(h.entries), nil
}

func (h *host) record(note advisor.Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	sev := rules.Nit
	switch note.Severity {
	case advisor.SeverityConcern:
		sev = rules.Concern
	case advisor.SeverityBlocker:
		sev = rules.Blocker
	}
	h.notes = append(h.notes, rules.Finding{Detector: DetectorName, Severity: sev, StartStep: h.step, EndStep: h.step, Message: note.Note})
	return nil
}

func (h *host) Aside(_ context.Context, note advisor.Advice) error { return h.record(note) }
func (h *host) Steer(_ context.Context, note advisor.Advice) error { return h.record(note) }
func (h *host) Card(_ context.Context, note advisor.Advice) error  { return h.record(note) }
func (h *host) Resume(context.Context) error                       { return nil }
