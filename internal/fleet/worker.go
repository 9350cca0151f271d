package fleet

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/rulesadvisor"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
)

// SessionInfo tells a [Factory] which session a runtime is for.
type SessionInfo struct {
	Tenant  string
	Session string
	// Start is where the runtime must start ([advisor.Options.Start]):
	// [advisor.StartAtBeginning] for a session new to the fleet, and
	// [advisor.StartPrimed] for one taken over from another worker, whose
	// host's view then holds a bounded tail of the steps already reviewed.
	Start advisor.StartPoint
}

// Factory builds the advisor runtime of one session over host; the
// worker starts it, reports the session's events to it and stops it.
// It is the continuous (or rules) reviewer; [ReviewerFactory] builds any
// [Reviewer], the periodic one included ([PeriodicFactory]).
type Factory func(info SessionInfo, host advisor.Host) (*advisor.Runtime, error)

// Reviewers is f as a [ReviewerFactory]: each runtime as a
// [RuntimeReviewer].
func (f Factory) Reviewers() ReviewerFactory {
	return func(info SessionInfo, h advisor.Host) (Reviewer, error) {
		rt, err := f(info, h)
		if err != nil {
			return nil, err
		}
		return RuntimeReviewer(rt), nil
	}
}

// Reviewer is what a worker needs of a session's advisor: the continuous
// runtime ([RuntimeReviewer]) or the periodic one ([PeriodicFactory]).
// The worker calls it from the session's one goroutine.
type Reviewer interface {
	// Start starts the reviewer; it runs until ctx ends or Stop.
	Start(ctx context.Context)
	// Stop stops it and waits for it.
	Stop()
	// Notify reports one of a step's events, before the step's end.
	Notify(ev advisor.Event)
	// Review reports the end of a step, whose entries the host already
	// holds, and returns once its review is done (its notes given to the
	// host), or with ctx's error.
	Review(ctx context.Context, step StepEnd) error
	// Usage is what the reviewer's model calls spent so far, by model.
	Usage() []advisor.ModelUsage
}

// StepEnd is the end of one step, as a worker reports it to a
// [Reviewer].
type StepEnd struct {
	// Seq is the step's number in its session.
	Seq uint64
	// Entries are the step's entries, appended to the host.
	Entries []session.Entry
	// Cursor is the host's cursor just after them.
	Cursor int
}

// ReviewerFactory builds the reviewer of one session over host; the
// worker starts it, reports the session's steps to it and stops it.
type ReviewerFactory func(info SessionInfo, host advisor.Host) (Reviewer, error)

// RuntimeReviewer is the [Reviewer] of a continuous (or rules) runtime:
// each step ends with [advisor.EventStepEnded], and its review is done
// when the runtime's backlog is empty.
func RuntimeReviewer(rt *advisor.Runtime) Reviewer { return runtimeReviewer{rt} }

type runtimeReviewer struct{ rt *advisor.Runtime }

func (r runtimeReviewer) Start(ctx context.Context) { r.rt.Start(ctx) }
func (r runtimeReviewer) Stop()                     { r.rt.Stop() }
func (r runtimeReviewer) Notify(ev advisor.Event)   { r.rt.Notify(ev) }
func (r runtimeReviewer) Usage() []advisor.ModelUsage {
	return r.rt.Status().Models
}

func (r runtimeReviewer) Review(ctx context.Context, step StepEnd) error {
	r.rt.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: step.Cursor})
	if err := r.rt.WaitBacklogBelow(ctx, 1); err != nil {
		return fmt.Errorf("waiting for the runtime's review: %w", err)
	}
	return nil
}

// RulesFactory reviews with vigil's zero-token detectors alone: no model.
func RulesFactory(s rules.Settings) Factory {
	return func(info SessionInfo, h advisor.Host) (*advisor.Runtime, error) {
		return advisor.New(advisor.Options{Detector: rulesadvisor.New(s), Host: h, Start: info.Start})
	}
}

// dispatchConsumer names the durable consumer a tenant's workers share:
// each step is dispatched to one of them, which takes the session when
// no worker owns it.
const dispatchConsumer = "workers"

// sessionConsumerPrefix begins the name of a session's durable consumer.
const sessionConsumerPrefix = "s_"

// WorkerOptions configure a [Worker].
type WorkerOptions struct {
	// Tenant is the one tenant whose sessions the worker reviews. Required.
	Tenant string
	// ID names the worker in its leases; "" picks a unique one.
	ID string
	// Factory builds each session's advisor runtime. Required unless
	// Reviewer is set.
	Factory Factory
	// Reviewer, if set, builds each session's reviewer instead of
	// Factory: the way to run the periodic advisor ([PeriodicFactory]).
	Reviewer ReviewerFactory
	// Limits bound the tenant's streams (see [Ensure]).
	Limits Limits
	// MaxSessions bounds the sessions the worker owns at once; a new
	// session beyond it is left to another worker. Default 10,000.
	MaxSessions int
	// IdleTimeout releases a session that published no step for that
	// long and has none waiting for its review. Default 10 minutes.
	IdleTimeout time.Duration
	// PrimeSteps bounds the steps already reviewed replayed to the
	// advisor of a session taken over. Default 50.
	PrimeSteps int
	// AckWait is how long a step given to a worker that stopped working
	// on it (it died) waits before it is delivered again; a worker
	// reviewing a step tells the server so every third of it. Default the
	// lease's time to live.
	AckWait time.Duration
	// OnReviewed, if set, is told of each step reviewed, after its ack.
	OnReviewed func(Reviewed)
	// OnSession, if set, is told when the worker takes a session (owned
	// true) and when it lets it go.
	OnSession func(sess string, owned bool, start advisor.StartPoint)
	// Logf, if set, logs what the worker does.
	Logf func(format string, args ...any)
	// Redactor hides secrets in the notes the worker publishes and the
	// answers it gives, should a reviewer quote one (the agents redact
	// their steps and questions before they publish them: see
	// [ClientOptions.Redactor]). nil hides the secrets found by their
	// shape alone.
	Redactor *history.Redactor
}

// Reviewed describes one step a worker reviewed.
type Reviewed struct {
	Tenant  string
	Session string
	Seq     uint64
	// Notes is how many notes the review published.
	Notes int
	// Latency runs from the step's publication to its ack.
	Latency time.Duration
	// Delivered counts the deliveries of the step (more than 1: it was
	// redelivered after a worker died or let it go).
	Delivered uint64
	// Models is what the review spent, by the model that served each
	// call (none for the rules reviewer).
	Models []advisor.ModelUsage
}

// Stats are a worker's counters since it started.
type Stats struct {
	// Sessions is how many sessions the worker owns now.
	Sessions int
	// Taken counts the sessions it took (new or taken over); TakenOver
	// those of them primed from steps another worker reviewed.
	Taken, TakenOver int64
	// Steps counts the steps received, Reviews those reviewed and acked,
	// Notes the notes published.
	Steps, Reviews, Notes int64
}

// Worker reviews one tenant's sessions: see the package doc.
type Worker struct {
	nc    *nats.Conn
	js    jetstream.JetStream
	opts  WorkerOptions
	kv    jetstream.KeyValue
	steps jetstream.Stream

	mu       sync.Mutex
	sessions map[string]*owned
	// others holds when a session was last found owned by another
	// worker, so that its steps on the shared consumer cost no lookup.
	others map[string]time.Time
	// wg counts the claims running; stopping, once set, starts no more
	// (see spawn).
	wg       sync.WaitGroup
	stopping bool

	taken, takenOver, nsteps, reviews, notes atomic.Int64

	// beforeAck, if set (by tests), is called after a step's notes are
	// published and before it is acknowledged.
	beforeAck func(Step)
}

// owned is a session the worker owns (or is claiming).
type owned struct {
	rev    atomic.Uint64
	cancel context.CancelFunc
}

// NewWorker returns a worker over nc; call Run.
func NewWorker(nc *nats.Conn, opts WorkerOptions) (*Worker, error) {
	if err := checkNames(opts.Tenant, ""); err != nil {
		return nil, err
	}
	if opts.Reviewer == nil {
		if opts.Factory == nil {
			return nil, errors.New("fleet: WorkerOptions.Factory or Reviewer is required")
		}
		opts.Reviewer = opts.Factory.Reviewers()
	}
	if opts.ID == "" {
		opts.ID = nuid.Next()
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = 10_000
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	if opts.PrimeSteps <= 0 {
		opts.PrimeSteps = 50
	}
	opts.Limits = opts.Limits.withDefaults()
	opts.Redactor = orShapes(opts.Redactor)
	if opts.AckWait <= 0 {
		opts.AckWait = opts.Limits.LeaseTTL
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("fleet: jetstream: %w", err)
	}
	return &Worker{nc: nc, js: js, opts: opts, sessions: map[string]*owned{}, others: map[string]time.Time{}}, nil
}

// ID is the worker's name in its leases.
func (w *Worker) ID() string { return w.opts.ID }

// Stats returns the worker's counters.
func (w *Worker) Stats() Stats {
	w.mu.Lock()
	n := len(w.sessions)
	w.mu.Unlock()
	return Stats{Sessions: n, Taken: w.taken.Load(), TakenOver: w.takenOver.Load(), Steps: w.nsteps.Load(), Reviews: w.reviews.Load(), Notes: w.notes.Load()}
}

func (w *Worker) logf(format string, args ...any) {
	if w.opts.Logf != nil {
		w.opts.Logf(format, args...)
	}
}

// Run serves until ctx ends, then lets its sessions go (their leases
// deleted, so that other workers take them at once) and returns nil; it
// returns an error when it cannot set up the tenant's streams or
// consumers.
func (w *Worker) Run(ctx context.Context) error {
	setup, cancelSetup := context.WithTimeout(ctx, 30*time.Second)
	kv, err := Ensure(setup, w.js, w.opts.Tenant, w.opts.Limits)
	cancelSetup()
	if err != nil {
		return err
	}
	w.kv = kv
	w.steps, err = w.js.Stream(ctx, StepStream(w.opts.Tenant))
	if err != nil {
		return fmt.Errorf("fleet: stream %s: %w", StepStream(w.opts.Tenant), err)
	}
	watcher, err := kv.WatchAll(ctx, jetstream.UpdatesOnly())
	if err != nil {
		return fmt.Errorf("fleet: watching leases: %w", err)
	}
	defer func() { _ = watcher.Stop() }()
	disp, err := w.steps.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:       dispatchConsumer,
		Description:   "vigil fleet: steps dispatched to the workers, to find sessions no worker owns",
		FilterSubject: StepSubject(w.opts.Tenant, "*"),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       30 * time.Second,
		MaxAckPending: 10_000,
		HeadersOnly:   true,
	})
	if err != nil {
		return fmt.Errorf("fleet: dispatch consumer: %w", err)
	}
	cc, err := disp.Consume(func(m jetstream.Msg) { w.dispatch(ctx, m) })
	if err != nil {
		return fmt.Errorf("fleet: dispatch consumer: %w", err)
	}
	defer cc.Stop()
	w.rescan(ctx)
	tick := time.NewTicker(w.opts.Limits.LeaseTTL)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			cc.Stop()
			w.stopAll()
			return nil
		case e, ok := <-watcher.Updates():
			if !ok {
				cc.Stop()
				w.stopAll()
				if ctx.Err() != nil {
					return nil // the watcher stops with ctx
				}
				return errors.New("fleet: the lease watcher stopped")
			}
			if e != nil && e.Operation() != jetstream.KeyValuePut {
				// A lease expired or was let go: take the session if steps wait.
				w.mu.Lock()
				delete(w.others, e.Key())
				w.mu.Unlock()
				if w.waiting(ctx, e.Key()) {
					w.spawn(func() { w.claim(ctx, e.Key(), nil) })
				}
			}
		case <-tick.C:
			w.rescan(ctx)
		}
	}
}

// stopAll ends every session and waits for them.
func (w *Worker) stopAll() {
	w.mu.Lock()
	w.stopping = true
	for _, o := range w.sessions {
		if o.cancel != nil {
			o.cancel()
		}
	}
	w.mu.Unlock()
	w.wg.Wait()
}

// spawn runs claim on a goroutine of its own, counted by w.wg, unless
// the worker is stopping; it reports whether it did. A claim started
// while stopAll waits (a step dispatched as the worker stops) would be
// a WaitGroup Add racing its Wait: the Wait may return before the claim
// runs, and the claim then outlive Run.
func (w *Worker) spawn(claim func()) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopping {
		return false
	}
	w.wg.Go(claim)
	return true
}

// dispatch looks at one step of the shared consumer: a session no worker
// owns is taken.
func (w *Worker) dispatch(ctx context.Context, m jetstream.Msg) {
	sess := sessionOf(m.Subject())
	if !ValidName(sess) {
		_ = m.Term()
		return
	}
	w.mu.Lock()
	_, mine := w.sessions[sess]
	full := len(w.sessions) >= w.opts.MaxSessions
	other, known := w.others[sess]
	w.mu.Unlock()
	switch {
	case mine, known && time.Since(other) < w.opts.Limits.LeaseTTL:
		// Ours, or another worker's a moment ago: if that worker dies,
		// its lease's expiry brings the session back through Run.
		_ = m.Ack()
	case full:
		_ = m.NakWithDelay(time.Second) // for a worker with room
	default:
		if !w.spawn(func() { w.claim(ctx, sess, func() { _ = m.Ack() }) }) {
			_ = m.Nak() // stopping: for another worker
		}
	}
}

// waiting reports whether a session has steps not yet reviewed.
func (w *Worker) waiting(ctx context.Context, sess string) bool {
	if !ValidName(sess) {
		return false
	}
	c, err := w.steps.Consumer(ctx, sessionConsumerPrefix+sess)
	if err == nil {
		info := c.CachedInfo()
		return info.NumPending+uint64(info.NumAckPending) > 0
	}
	// No consumer: its worker died before making it, or it was cleaned up.
	_, err = w.steps.GetLastMsgForSubject(ctx, StepSubject(w.opts.Tenant, sess))
	return err == nil
}

// rescan takes the sessions with steps waiting whose lease is gone: a
// safety net under the lease watcher.
func (w *Worker) rescan(ctx context.Context) {
	w.mu.Lock()
	for sess, at := range w.others {
		if time.Since(at) >= w.opts.Limits.LeaseTTL {
			delete(w.others, sess)
		}
	}
	w.mu.Unlock()
	pending := map[string]bool{} // the sessions that have a consumer: steps wait?
	lister := w.steps.ListConsumers(ctx)
	for info := range lister.Info() {
		if sess, ok := strings.CutPrefix(info.Name, sessionConsumerPrefix); ok {
			pending[sess] = info.NumPending+uint64(info.NumAckPending) > 0
		}
	}
	if err := lister.Err(); err != nil {
		if ctx.Err() == nil {
			w.logf("fleet: listing sessions: %v", err)
		}
		return
	}
	info, err := w.steps.Info(ctx, jetstream.WithSubjectFilter(StepSubject(w.opts.Tenant, "*")))
	if err != nil {
		if ctx.Err() == nil {
			w.logf("fleet: listing sessions: %v", err)
		}
		return
	}
	for subject := range info.State.Subjects {
		sess := sessionOf(subject)
		if waits, has := pending[sess]; has && !waits {
			continue
		}
		w.mu.Lock()
		_, mine := w.sessions[sess]
		w.mu.Unlock()
		if mine {
			continue
		}
		if _, err := w.kv.Get(ctx, sess); errors.Is(err, jetstream.ErrKeyNotFound) || errors.Is(err, jetstream.ErrKeyDeleted) {
			w.spawn(func() { w.claim(ctx, sess, nil) })
		}
	}
}

// claim takes the session if no worker owns it, and reviews it until it
// is idle, lost or the worker stops. decided, if set, is called once the
// lease is taken or found taken.
func (w *Worker) claim(ctx context.Context, sess string, decided func()) {
	if decided == nil {
		decided = func() {}
	}
	decided = sync.OnceFunc(decided)
	defer decided()
	w.mu.Lock()
	if _, ok := w.sessions[sess]; ok || len(w.sessions) >= w.opts.MaxSessions || ctx.Err() != nil {
		w.mu.Unlock()
		return
	}
	o := &owned{}
	sctx, cancel := context.WithCancel(ctx)
	o.cancel = cancel
	w.sessions[sess] = o
	w.mu.Unlock()
	forget := func() {
		cancel()
		w.mu.Lock()
		delete(w.sessions, sess)
		w.mu.Unlock()
	}
	rev, err := w.kv.Create(sctx, sess, []byte(w.opts.ID))
	if err != nil {
		forget()
		if errors.Is(err, jetstream.ErrKeyExists) {
			w.mu.Lock()
			w.others[sess] = time.Now()
			w.mu.Unlock()
		}
		return // another worker has it
	}
	decided()
	o.rev.Store(rev)
	renewed := make(chan struct{})
	go func() {
		defer close(renewed)
		w.renew(sctx, cancel, sess, o)
	}()
	if err := w.serve(sctx, sess); err != nil && sctx.Err() == nil {
		w.logf("fleet: session %s: %v", sess, err)
	}
	cancel()
	<-renewed
	// No longer the worker's before its lease goes: a step that comes
	// once the lease is gone must find the session free, both through
	// the lease watcher and through dispatch. Forgotten after the lease,
	// such a step was acknowledged on the shared consumer as this
	// worker's, and the lease watcher's claim returned at once as it
	// was still here: nobody took the session until the next rescan.
	forget()
	w.release(sess, o)
}

// renew keeps the lease alive; a lease lost ends the session.
func (w *Worker) renew(ctx context.Context, cancel context.CancelFunc, sess string, o *owned) {
	t := time.NewTicker(w.opts.Limits.LeaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			// Not cancelled with the session: an update cut short may
			// still land, leaving release a stale revision.
			uctx, ucancel := context.WithTimeout(context.Background(), w.opts.Limits.LeaseTTL/3)
			rev, err := w.kv.Update(uctx, sess, []byte(w.opts.ID), o.rev.Load())
			ucancel()
			if err != nil {
				if ctx.Err() == nil {
					w.logf("fleet: session %s: lease lost: %v", sess, err)
					cancel()
				}
				return
			}
			o.rev.Store(rev)
		}
	}
}

// release deletes the session's lease, so that another worker may take
// it at once (a dead worker's lease expires instead).
func (w *Worker) release(sess string, o *owned) {
	if w.nc.IsClosed() {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := w.kv.Delete(ctx, sess, jetstream.LastRevision(o.rev.Load())); err != nil {
		w.logf("fleet: session %s: letting the lease go: %v", sess, err)
	}
}
