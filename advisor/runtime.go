package advisor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// DefaultMaxToolRounds is the default of [Options.MaxToolRounds].
const DefaultMaxToolRounds = 8

// DefaultCallTimeout is the default of [Options.CallTimeout].
const DefaultCallTimeout = 2 * time.Minute

// RetryDelay is how long the runtime waits before retrying a failed review.
const RetryDelay = time.Second

// MaxConsecutiveFailures is how many reviews in a row may fail before the
// runtime drops its backlog, warns, and goes on with the next steps.
const MaxConsecutiveFailures = 3

// ErrStopped is returned by [Runtime.WaitBacklogBelow] when the runtime
// is not running (not started yet, or stopped): no review will shrink the
// backlog.
var ErrStopped = errors.New("advisor: runtime not running")

// Runtime runs one advisor over one watched agent: it reads the
// transcript in deltas after each primary step, reviews them with the
// advisor model in its own append-only context, and delivers the advice
// through its emission guard, delivery routing, interrupt cooldown and
// user-interrupt latch (see the package documentation) to the [Host].
// One review runs at a time, on one goroutine; steps that end during a
// review are coalesced into the next one.
type Runtime struct {
	opts   Options
	system string
	ro     []tools.Tool
	defs   []llm.Tool

	wake chan struct{}
	// askWake is signalled when a consult is queued in asks.
	askWake chan struct{}

	mu sync.Mutex
	// asks are the consults waiting for the drain goroutine, in order;
	// runConsults counts those of the primary's current run.
	asks        []*consultReq
	runConsults int
	queue       []Event // step_ended and history_rewritten, in order
	latch       interruptLatch
	immunity    interruptCooldown
	streaming   bool
	status      Status
	model       llm.Model
	modelName   string
	// prosewarned says the current prose streak was warned of.
	prosewarned bool
	// quotaUntil is when the provider's rate limit ends; quotaLatched says
	// it is a long one (the agent does not wait for the advisor);
	// healthDetail is the last failure, cleared by a review that works.
	quotaUntil   time.Time
	quotaLatched bool
	healthDetail string
	// shared is the advisor's context as last published by the drain
	// goroutine, for Transcript. Its backing array is never written
	// below its length again (a rollback copies), so readers may keep it.
	shared  []llm.Message
	started bool
	stopped bool
	cancel  context.CancelFunc
	done    chan struct{}
	// changed is closed, and replaced, each time status.Backlog changes
	// or the drain goroutine ends; WaitBacklogBelow waits on it.
	changed chan struct{}

	// Owned by the drain goroutine.
	cursor   int
	pending  []session.Entry
	messages []llm.Message
	renderer history.Renderer
	guard    emissionGuard
	failures int // consecutive
	// due says a step ended since the last review: pending entries are
	// reviewed only then, so a primed tail waits for the next step.
	due bool
	// needPrime says the cursor and pending entries must be set from
	// Host.View (after a rewrite, or at a StartPrimed or StartAtEnd start).
	needPrime bool
	// seedOnly says the first prime only seeds the cursor (StartAtEnd).
	seedOnly bool
	// continuing says a review failed after it delivered a note: its
	// context was kept up to that note's result, and the retry continues
	// it instead of rendering the update again.
	continuing bool
	// thinking is the agent's thinking level as its session last said
	// (FollowThinking), "" until known.
	thinking llm.ThinkingLevel
	// sinceReview counts the steps read since the last review, and
	// runEnded says a run ended since; the cadence decides by them
	// (cadence.go).
	sinceReview int
	runEnded    bool
	// held are notes the guard held back for the next update, oldest
	// first (held.go).
	held []Advice
	// reviewAt is the index in messages of the current review's opening
	// message (an update or a consult): the advisor's tool results before
	// it are stale (elide.go).
	reviewAt int
	// reported is the prompt+output size of the last reply, and reportedAt
	// the context length it covered; ContextTokens is derived from them.
	reported   int64
	reportedAt int
	// hints are the Detector's notes not yet used by a review.
	hints []Advice
	// signals are the Detector's signals ([Signaler]) not yet used by a
	// review; kept only when a model is gated by them.
	signals []string
	// usages holds, for each message of the context, the usage of the
	// reply that made it (zero for user messages).
	usages []llm.Usage
	// recorded is how many messages of the context the Recorder has.
	recorded int
	// window is the current advisor model's context window.
	window int

	// afterDrain, if set (by tests), is called by the drain goroutine each
	// time it has nothing left to do.
	afterDrain func()
}

// New returns a runtime; call Start to run it.
func New(opts Options) (*Runtime, error) {
	if opts.Model == nil && opts.Detector == nil {
		return nil, errors.New("advisor: Options.Model or Options.Detector is required")
	}
	if opts.Host == nil {
		return nil, errors.New("advisor: Options.Host is required")
	}
	r := &Runtime{opts: opts, system: opts.System, model: opts.Model, modelName: opts.ModelName, wake: make(chan struct{}, 1), askWake: make(chan struct{}, 1), changed: make(chan struct{})}
	r.window = opts.ContextWindow
	r.guard.PerUpdate = opts.MaxNotesPerUpdate
	r.needPrime = opts.Start != StartAtBeginning
	r.seedOnly = opts.Start == StartAtEnd
	if r.opts.CallTimeout <= 0 {
		r.opts.CallTimeout = DefaultCallTimeout
	}
	if r.opts.PrimeTokens <= 0 {
		r.opts.PrimeTokens = DefaultPrimeTokens
	}
	if r.opts.ConsultTimeout <= 0 {
		r.opts.ConsultTimeout = DefaultConsultTimeout
	}
	if r.opts.ConsultMaxPerRun <= 0 {
		r.opts.ConsultMaxPerRun = DefaultConsultMaxPerRun
	}
	if r.system == "" {
		r.system = DefaultSystemPrompt
	}
	// The caller's prompt holds WATCHDOG.md files, which are the user's
	// text and may quote anything.
	r.system = opts.Redactor.Redact(r.system)
	if r.opts.MaxToolRounds <= 0 {
		r.opts.MaxToolRounds = DefaultMaxToolRounds
	}
	switch {
	case opts.ImmuneTurns == 0:
		r.immunity.Turns = DefaultImmuneTurns
	case opts.ImmuneTurns > 0:
		r.immunity.Turns = opts.ImmuneTurns
	}
	r.defs = []llm.Tool{adviseTool()}
	if len(opts.Roots) > 0 {
		to := tools.Options{Roots: opts.Roots}
		if opts.Redactor != nil {
			// Whole lines, before the tools cut long ones: a cut would
			// leave half a secret that the context's redaction (see
			// appendMessage) no longer recognises.
			to.Redact = opts.Redactor.Redact
		}
		ro, err := tools.NewReadOnly(to)
		if err != nil {
			return nil, fmt.Errorf("advisor: read-only tools: %w", err)
		}
		if len(opts.ToolNames) > 0 {
			ro = slices.DeleteFunc(ro, func(t tools.Tool) bool {
				name := t.Definition().Name
				alias := map[string]string{"search": "grep", "find": "glob"}[name]
				return !slices.Contains(opts.ToolNames, name) && (alias == "" || !slices.Contains(opts.ToolNames, alias))
			})
		}
		r.ro = ro
		r.defs = append(r.defs, tools.Definitions(ro)...)
	}
	return r, nil
}

// Start launches the drain goroutine; it runs until ctx is cancelled or
// Stop is called. Start may be called once.
func (r *Runtime) Start(ctx context.Context) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.started {
		return
	}
	r.started = true
	if r.needPrime {
		// The start point is the transcript as it is now, not when the
		// drain goroutine first runs: entries appended after Start
		// returns are new. On failure the goroutine tries again.
		r.mu.Unlock()
		err := r.prime(ctx)
		r.mu.Lock()
		if err != nil {
			r.logf("advisor: reading the primary's view: %v", err)
		}
	}
	ctx, r.cancel = context.WithCancel(ctx)
	r.done = make(chan struct{})
	go func() {
		defer close(r.done)
		r.run(ctx)
		r.mu.Lock()
		r.stopped = true
		r.broadcastLocked()
		r.mu.Unlock()
	}()
}

// Stop cancels any review in flight and waits for the drain goroutine to
// return. It is safe to call more than once, and before Start.
func (r *Runtime) Stop() {
	r.mu.Lock()
	cancel, done := r.cancel, r.done
	r.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// Notify reports one event of the watched agent. It never blocks.
func (r *Runtime) Notify(ev Event) {
	r.mu.Lock()
	switch ev.Kind {
	case EventStepEnded:
		r.immunity.StepEnded()
		r.streaming = true
		r.queue = append(r.queue, ev)
		r.status.Pending = true
		r.status.Backlog++
		r.broadcastLocked()
	case EventRunEnded:
		r.streaming = false
		r.runConsults = 0
		if r.opts.Cadence.Final || r.opts.Cadence.Every > 1 {
			// The cadence reviews what the run left unreviewed: that
			// review is backlog until it completes, as a step's is.
			r.queue = append(r.queue, ev)
			r.status.Pending = true
			r.status.Backlog++
			r.broadcastLocked()
		}
	case EventUserInterrupted:
		r.latch.UserInterrupted()
		r.streaming = false
	case EventUserResumed:
		r.latch.UserResumed()
		r.streaming = true
	case EventHistoryRewritten:
		r.queue = append(r.queue, ev)
	}
	r.mu.Unlock()
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// WaitBacklogBelow blocks until the backlog is below n, ctx is done, or
// the runtime is not running, and returns nil, ctx's error or
// [ErrStopped] respectively. n <= 0 never waits.
//
// The backlog is the number of steps reported by [Runtime.Notify]
// (EventStepEnded) whose review has not completed (with a [Cadence] that
// skips steps, the end of a run too, until the review of what it left
// completes; the steps skipped no longer count): those still queued
// plus those in the review in flight, retries included. A step counts
// from its Notify until the review covering it completes, whether that
// review delivered advice, gave none, or was dropped after
// [MaxConsecutiveFailures]; a step with nothing to review (or discarded by
// a history rewrite) stops counting when the drain goroutine reaches it.
// So after a step is notified the backlog is at least 1 until then, and
// WaitBacklogBelow(ctx, 1) waits for every notified step to be reviewed.
// Steps whose transcript could not be read stay queued, and counted,
// until a later read succeeds.
//
// Waiting costs no polling: the drain goroutine signals every change.
func (r *Runtime) WaitBacklogBelow(ctx context.Context, n int) error {
	if n <= 0 {
		return nil
	}
	for {
		r.mu.Lock()
		backlog, running, changed, latched := r.status.Backlog, r.started && !r.stopped, r.changed, r.quotaLatched
		r.mu.Unlock()
		if backlog < n || latched {
			return nil // a quota window latched the advisor: nothing to wait for
		}
		if !running {
			return ErrStopped
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// broadcastLocked wakes every WaitBacklogBelow. r.mu is held.
func (r *Runtime) broadcastLocked() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// settleLocked sets the backlog to the steps still queued: the drain
// goroutine calls it when the steps it took are done with (reviewed,
// dropped or found empty). r.mu is held.
func (r *Runtime) settleLocked() {
	n := 0
	for _, ev := range r.queue {
		if ev.Kind == EventStepEnded || ev.Kind == EventRunEnded {
			n++ // a run's end is queued only for a cadence's review
		}
	}
	if n != r.status.Backlog {
		r.status.Backlog = n
		r.broadcastLocked()
	}
}

func (r *Runtime) logf(format string, args ...any) {
	if r.opts.Logf != nil {
		r.opts.Logf("%s", nameLine(r.opts.Name, fmt.Sprintf(format, args...)))
	}
}

// warn tells OnWarning (Logf when unset) of msg, a line that begins
// "advisor:", naming the advisor in a roster.
func (r *Runtime) warn(msg string) {
	if r.opts.OnWarning != nil {
		r.opts.OnWarning(nameLine(r.opts.Name, msg))
		return
	}
	r.logf("%s", msg)
}

func (r *Runtime) run(ctx context.Context) {
	if r.needPrime {
		// Find the start point now rather than at the first step, so that
		// entries appended meanwhile are read as new.
		r.drain(ctx)
	}
	for {
		if r.afterDrain != nil {
			r.afterDrain()
		}
		select {
		case <-ctx.Done():
			return
		case <-r.wake:
		case <-r.askWake:
		}
		r.drain(ctx)
	}
}

// drain reviews everything pending, retrying failures, until nothing is
// left, the backlog is dropped, or ctx ends.
func (r *Runtime) drain(ctx context.Context) {
	for ctx.Err() == nil {
		if ask := r.nextAsk(); ask != nil {
			// Between reviews: the consult takes the pending update with it.
			r.consult(ctx, ask)
			continue
		}
		if err := r.collect(ctx, false); err != nil {
			if ctx.Err() != nil {
				return
			}
			r.logf("advisor: reading the transcript: %v", err)
			if !r.failed(ctx, err) {
				return
			}
			continue
		}
		if !r.continuing && (len(r.pending) == 0 || !r.due) {
			if len(r.pending) == 0 {
				r.runEnded = false // nothing of the run is left to review
			}
			r.setPending(false)
			return
		}
		if r.cadenceWaits() {
			// Not yet: the steps' entries wait for the review the cadence
			// makes, cut to the tail that fits the prime budget, and they
			// no longer count as backlog.
			r.due = false
			r.pending = primeTail(r.pending, r.opts.PrimeTokens)
			r.mu.Lock()
			r.status.Pending = len(r.queue) > 0
			r.settleLocked()
			r.mu.Unlock()
			continue
		}
		r.sinceReview, r.runEnded = 0, false
		if r.opts.Model == nil || r.gateClosed() {
			r.due = false
			r.mu.Lock()
			if r.opts.Model == nil {
				r.mu.Unlock()
				r.detectorOnly(ctx)
				r.pending = nil
				r.mu.Lock()
				r.status.Reviews++
			}
			r.status.Pending = len(r.queue) > 0
			r.settleLocked()
			r.mu.Unlock()
			continue
		}
		ran, err := r.review(ctx)
		r.record()
		if err == nil {
			r.forgetHints()
			r.failures = 0
			r.pending = nil
			r.due = false
			r.mu.Lock()
			r.healthDetail = ""
			if ran {
				r.status.Reviews++
			}
			r.status.Pending = len(r.queue) > 0
			r.status.ContextMessages = len(r.messages)
			r.settleLocked()
			r.mu.Unlock()
			continue
		}
		if ctx.Err() != nil {
			return
		}
		if !r.failed(ctx, err) {
			return
		}
	}
}

// failed records a failed review and either waits RetryDelay (true: try
// again) or, after MaxConsecutiveFailures, drops the backlog (false).
func (r *Runtime) failed(ctx context.Context, err error) bool {
	if wait, ok := quotaWait(err); ok {
		r.mu.Lock()
		r.status.Failures++
		r.mu.Unlock()
		return r.quota(ctx, err, wait)
	}
	r.failures++
	r.mu.Lock()
	r.status.Failures++
	r.healthDetail = err.Error()
	r.mu.Unlock()
	r.logf("advisor: review failed (%d in a row): %v", r.failures, err)
	if r.failures >= MaxConsecutiveFailures {
		msg := fmt.Sprintf("advisor: %d reviews failed in a row; dropping the backlog and going on (last error: %v)", r.failures, err)
		r.failures = 0
		r.pending = nil
		r.due = false
		r.continuing = false
		r.mu.Lock()
		r.status.Dropped++
		r.status.Pending = len(r.queue) > 0
		r.settleLocked()
		r.mu.Unlock()
		r.warn(msg)
		return false
	}
	t := time.NewTimer(RetryDelay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	case <-r.askWake:
		// A consult does not wait out the retry delay: drain serves it
		// first (it is queued in asks), with the failed update, and the
		// retry follows.
		return true
	}
}

func (r *Runtime) setPending(p bool) {
	r.mu.Lock()
	r.status.Pending = p || len(r.queue) > 0
	if !p {
		r.settleLocked()
	}
	r.mu.Unlock()
}

// collect applies the queued events in order and reads the transcript
// after the last step into r.pending; with always (a consult) it reads
// what the transcript holds even when no step ended.
func (r *Runtime) collect(ctx context.Context, always bool) error {
	r.mu.Lock()
	queue := r.queue
	r.queue = nil
	r.mu.Unlock()
	read := false
	for _, ev := range queue {
		switch ev.Kind {
		case EventStepEnded:
			read = true
			r.due = true
			r.sinceReview++
		case EventRunEnded:
			r.runEnded, r.due = true, true
		case EventHistoryRewritten:
			r.resetContext()
			r.pending = nil
			r.forgetHints()
			if r.opts.Detector != nil {
				r.opts.Detector.Reset()
			}
			r.due = false
			r.needPrime = true
			read = false
		}
	}
	if r.needPrime {
		if err := r.prime(ctx); err != nil {
			r.requeue(read)
			return err
		}
		read = false // the view runs to the end
	}
	if !read && !always {
		return nil
	}
	entries, next, err := r.opts.Host.Since(ctx, r.cursor)
	if err != nil {
		r.requeue(true)
		return err
	}
	r.cursor = next
	r.followThinking(entries)
	from := len(r.pending)
	for _, e := range entries {
		if history.Visible(e) {
			r.pending = append(r.pending, e)
		}
	}
	r.observe(r.pending[from:])
	return nil
}

// requeue puts back a step-ended event whose entries are still unread, so
// a retry reads them.
func (r *Runtime) requeue(step bool) {
	if !step {
		return
	}
	r.mu.Lock()
	r.queue = append([]Event{{Kind: EventStepEnded}}, r.queue...)
	r.mu.Unlock()
}
