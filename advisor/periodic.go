package advisor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// DefaultReviewTimeout bounds one periodic review when
// [PeriodicOptions.ReviewTimeout] is 0.
const DefaultReviewTimeout = 2 * time.Minute

// PeriodicOptions configure a [Periodic] runtime.
type PeriodicOptions struct {
	// Host is the agent watched. Required.
	Host PeriodicHost
	// EveryToolCalls makes a review due after this many tool calls of
	// user-triggered runs; 0 turns this trigger off.
	EveryToolCalls int
	// EveryMinutes makes a review due after this many minutes of
	// accumulated run time (the time user-triggered runs were going, not
	// the wall clock); 0 turns this trigger off. With both triggers off
	// the runtime warns once and reviews nothing.
	EveryMinutes int
	// Instructions, if set, is read at each review for the guidance that
	// replaces [DefaultReviewInstructions] (see [ReviewPrompt]), so that
	// a change applies at the next review.
	Instructions func() string
	// ReviewTimeout bounds each review, fork and reply; 0 means
	// [DefaultReviewTimeout]. A review that runs out fails.
	ReviewTimeout time.Duration
	// Recorder, if set, is given each review's exchange (its prompt and
	// the fork's reply), once the reply is in.
	Recorder Recorder
	// Logf, if set, is told what the runtime does: each review started,
	// its verdict, the steer, a stand-down, a cancellation.
	Logf func(format string, args ...any)
	// OnWarning, if set, is told of a failed review and of triggers that
	// are both off; otherwise Logf is.
	OnWarning func(string)
	// ConsultTimeout bounds one [Periodic.Consult], its wait for a review
	// in flight included; 0 means [DefaultConsultTimeout].
	ConsultTimeout time.Duration
	// ConsultMaxPerRun caps the consults of one run; 0 means
	// [DefaultConsultMaxPerRun].
	ConsultMaxPerRun int
	// Withhold says nothing of the advisor's may enter the agent's
	// context (advisor.allowPromptInjection: false): consults are refused
	// ([ErrConsultWithheld]); corrections are the host's to block.
	Withhold bool
	// Name names the advisor in a roster: its corrections carry it
	// ([Advice.Advisor]), and its log lines and warnings say
	// "advisor NAME:" instead of "advisor:".
	Name string
	// Roster, when set, is the guard the roster's advisors share: a
	// correction another advisor already made, or one over the roster's
	// notes per step, is held back ([OutcomeHeld]) instead of steered.
	// The caller frees its slots ([RosterGuard.NewStep]) as the agent's
	// steps begin.
	Roster *RosterGuard
	// Detector, if set, pulls reviews forward: after each call settles it
	// reads the agent's new entries, and a finding or a signal
	// ([Signaler]) makes a review due at once, whatever the triggers say;
	// the review's prompt says what it saw. Nothing it finds reaches the
	// agent by itself. Each runtime needs its own.
	Detector Detector
}

// Periodic is the periodic mode of the advisor: one review, one steer.
// Instead of reviewing every step as [Runtime] does, it counts the tool
// calls and the run time of the primary's user-triggered runs; when
// EveryToolCalls calls or EveryMinutes minutes are due and every running
// call has its real result, it forks the primary's conversation onto the
// primary's own model ([PeriodicHost.Fork]) with [ReviewPrompt], and if
// the reply is a CORRECTION it steers that one correction into the run
// that was going ([PeriodicHost.SteerRun]). Any other reply delivers
// nothing.
//
// # Counting and settling
//
// Counters belong to the runtime, which watches one session, and carry
// across its runs. Only a top-level call of a run whose trigger is the
// user's (a prompt, or the user's resume of a stopped run) counts: not a
// resume the advisor made, a scheduled job or a subagent's inner calls
// (a subagent with an advisor of its own is another session, counted by
// its own runtime). The calls known to be running form a set keyed by [CallKey];
// nested calls are in it under their own keys, so a call that owns
// nested calls settles with its own result only, and two calls sharing
// an ID in different sources settle apart. A review is due when either
// trigger is reached; it is queued when a call settles, the review is
// due, no call is running and none is in flight, and it is dispatched by
// the runtime's goroutine. At dispatch it stands down if another call
// started since it was queued: it stays due and is queued again at that
// call's result.
//
// # Settling, cancelling
//
// A review settles when its fork answers or fails: then the counters
// reset, whatever the outcome. One review is in flight at a time. The end
// of the run it was forked in cancels it: the fork is abandoned, a late
// reply is discarded, the counters are kept, and nothing reaches a later
// run. [Periodic.Stop] does the same for good.
//
// # Concurrency
//
// Notify never blocks on a review; the runtime calls the host from its
// one goroutine and never while holding its lock. Status, WaitReview
// and Transcript may be called from any goroutine.
type Periodic struct {
	opts  PeriodicOptions
	every time.Duration
	off   bool
	wake  chan struct{}

	mu sync.Mutex
	// run is the run going ("" when none) and counted whether it is the
	// user's; runStart is when counting its time began (its start, or the
	// last settled review), and active the counted run time before it.
	run      string
	counted  bool
	runStart time.Time
	active   time.Duration
	calls    int
	// pending are the calls running; starts counts every call started,
	// and queuedAt is starts when the due review was queued.
	pending  map[CallKey]struct{}
	starts   uint64
	queued   bool
	queuedAt uint64
	// queuedStep is the roster's step ([RosterGuard.step]) when the due
	// review was queued; with no roster it is unused.
	queuedStep uint64
	// cursor is where the Detector's next look starts; scan says a call
	// settled since the last look, rewritten that the history was
	// replaced; pulled says what the Detector saw made a review due, and
	// seen is that, for the review's prompt, until a review settles.
	cursor          int
	scan, rewritten bool
	pulled          bool
	seen            []string
	inFlight        *review
	// consulting says a consult's fork is in flight; runConsults counts
	// the consults of the run going.
	consulting  bool
	runConsults int
	status      PeriodicStatus
	// changed is closed, and replaced, when a review is queued, starts or
	// settles, or the runtime stops; WaitReview waits on it.
	changed   chan struct{}
	started   bool
	stopped   bool
	cancel    context.CancelFunc
	done      chan struct{}
	exchanges []llm.Message

	// beforeDispatch, if set (by tests), is called by the runtime's
	// goroutine each time it is woken, before it looks at the queue.
	beforeDispatch func()
}

// review is the review in flight: the run it was forked in, and what
// cancels it.
type review struct {
	run    string
	cancel context.CancelFunc
}

// NewPeriodic returns a periodic runtime; call Start to run it.
func NewPeriodic(opts PeriodicOptions) (*Periodic, error) {
	if opts.Host == nil {
		return nil, errors.New("advisor: PeriodicOptions.Host is required")
	}
	if opts.EveryToolCalls < 0 || opts.EveryMinutes < 0 {
		return nil, errors.New("advisor: negative periodic trigger")
	}
	if opts.ReviewTimeout <= 0 {
		opts.ReviewTimeout = DefaultReviewTimeout
	}
	if opts.ConsultTimeout <= 0 {
		opts.ConsultTimeout = DefaultConsultTimeout
	}
	if opts.ConsultMaxPerRun <= 0 {
		opts.ConsultMaxPerRun = DefaultConsultMaxPerRun
	}
	p := &Periodic{
		opts:    opts,
		every:   time.Duration(opts.EveryMinutes) * time.Minute,
		off:     opts.EveryToolCalls == 0 && opts.EveryMinutes == 0,
		wake:    make(chan struct{}, 1),
		pending: map[CallKey]struct{}{},
		changed: make(chan struct{}),
	}
	p.status.EveryToolCalls, p.status.EveryMinutes, p.status.Off = opts.EveryToolCalls, opts.EveryMinutes, p.off
	return p, nil
}

// Start launches the runtime's goroutine; it runs until ctx is cancelled
// or Stop is called. With both triggers off it warns, once, and starts
// nothing: no review is ever scheduled. Start may be called once.
func (p *Periodic) Start(ctx context.Context) {
	p.mu.Lock()
	if p.started {
		p.mu.Unlock()
		return
	}
	p.started = true
	if p.off {
		p.stopped = true
		p.mu.Unlock()
		p.warn("advisor: both everyToolCalls and everyMinutes are 0, so no periodic review will run; set either above 0")
		return
	}
	ctx, p.cancel = context.WithCancel(ctx)
	p.done = make(chan struct{})
	p.mu.Unlock()
	go func() {
		defer close(p.done)
		p.loop(ctx)
		p.mu.Lock()
		p.stopped = true
		p.broadcastLocked()
		p.mu.Unlock()
	}()
}

// Stop cancels the review in flight, without a warning or a delivery,
// and waits for the runtime's goroutine to return. It is safe to call
// more than once, and before Start.
func (p *Periodic) Stop() {
	p.mu.Lock()
	cancel, done := p.cancel, p.done
	p.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// Notify reports one event of the watched agent: [EventRunStarted],
// [EventRunEnded], [EventToolStarted] and [EventToolSettled] matter;
// others are ignored. It never blocks.
func (p *Periodic) Notify(ev Event) {
	if p.off {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	switch ev.Kind {
	case EventRunStarted:
		p.endRunLocked(now) // a start without the last run's end ends it
		if ev.Run == "" {
			return // a run the host cannot name is never counted
		}
		p.run, p.counted, p.runStart = ev.Run, userTriggered(ev.Trigger), now
	case EventRunEnded:
		if ev.Run == "" || ev.Run == p.run {
			p.endRunLocked(now)
		}
	case EventToolStarted:
		if p.run == "" {
			return
		}
		key := pendingKey(ev)
		if _, running := p.pending[key]; running {
			return
		}
		p.pending[key] = struct{}{}
		p.starts++
		if p.counted && ev.Parent == (CallKey{}) {
			p.calls++
		}
	case EventToolSettled:
		if p.run == "" {
			return
		}
		delete(p.pending, pendingKey(ev))
		p.armLocked(now)
		p.wantLookLocked()
	case EventHistoryRewritten:
		if p.opts.Detector != nil {
			p.rewritten = true
			p.wantLookLocked()
		}
	}
}

// pendingKey is the key a call is running under: its own, nested or not.
// Keying by the top-level call instead would settle a call that owns
// nested calls with the first of them to finish; keying by ID alone would
// settle two calls that share an ID with the first of them.
func pendingKey(ev Event) CallKey {
	return ev.Call
}

// armLocked queues a review, or refreshes the one queued, when one is
// due, the run is the user's, no call is running and none is in flight.
// p.mu is held.
func (p *Periodic) armLocked(now time.Time) {
	if !p.counted || p.inFlight != nil || p.consulting || len(p.pending) > 0 || !p.dueLocked(now) {
		return
	}
	p.queued, p.queuedAt = true, p.starts
	if g := p.opts.Roster; g != nil {
		p.queuedStep = g.step()
	}
	p.broadcastLocked()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// wantLookLocked asks the runtime's goroutine for a look of the Detector,
// if there is one. p.mu is held.
func (p *Periodic) wantLookLocked() {
	if p.opts.Detector == nil {
		return
	}
	p.scan = true
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// dueLocked reports whether either trigger is reached, or the Detector
// pulled a review forward. p.mu is held.
func (p *Periodic) dueLocked(now time.Time) bool {
	if p.pulled {
		return true
	}
	if n := p.opts.EveryToolCalls; n > 0 && p.calls >= n {
		return true
	}
	return p.every > 0 && p.runTimeLocked(now) >= p.every
}

// runTimeLocked is the counted run time since the last settled review.
// p.mu is held.
func (p *Periodic) runTimeLocked(now time.Time) time.Duration {
	if p.counted {
		return p.active + now.Sub(p.runStart)
	}
	return p.active
}

// endRunLocked closes the run going, if any: its time is counted, its
// calls forgotten, a queued review dropped (it stays due) and the review
// in flight cancelled. p.mu is held.
func (p *Periodic) endRunLocked(now time.Time) {
	if p.run == "" {
		return
	}
	p.active = p.runTimeLocked(now)
	p.run, p.counted = "", false
	p.runConsults = 0
	clear(p.pending)
	p.queued = false
	if p.inFlight != nil {
		p.inFlight.cancel()
	}
	p.broadcastLocked()
}

// WaitReview blocks while a review is queued or in flight, until ctx is
// done, or until the runtime is not running, and returns nil, ctx's error
// or [ErrStopped] respectively. A host calls it at the primary's step
// boundary after a settlement, so that a correction about that step
// lands before the next model call.
func (p *Periodic) WaitReview(ctx context.Context) error {
	for {
		p.mu.Lock()
		busy, running, changed := p.queued || p.inFlight != nil, p.started && !p.stopped, p.changed
		p.mu.Unlock()
		if !busy {
			return nil
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

// broadcastLocked wakes every WaitReview. p.mu is held.
func (p *Periodic) broadcastLocked() {
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *Periodic) logf(format string, args ...any) {
	if p.opts.Logf != nil {
		p.opts.Logf("%s", p.named(fmt.Sprintf(format, args...)))
	}
}

func (p *Periodic) warn(msg string) {
	if p.opts.OnWarning != nil {
		p.opts.OnWarning(p.named(msg))
		return
	}
	p.logf("%s", msg)
}

// named puts the advisor's name, in a roster, into a line that begins
// "advisor:".
func (p *Periodic) named(line string) string { return nameLine(p.opts.Name, line) }

// nameLine puts name, when not "", into a line that begins "advisor:":
// "advisor NAME: ...".
func nameLine(name, line string) string {
	if name == "" {
		return line
	}
	if rest, ok := strings.CutPrefix(line, "advisor:"); ok {
		return "advisor " + name + ":" + rest
	}
	return line
}
