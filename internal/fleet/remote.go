package fleet

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/session"
)

// Provision creates the tenant's streams of steps and notes with limits
// when they do not exist yet, so that an agent can publish before any
// worker has run (its steps wait, up to limits.MaxSteps, for one). It
// never changes streams that exist: their limits are the workers'
// ([Ensure]). An account allowed only to publish and read gets an error
// the caller may ignore when the streams exist.
func Provision(ctx context.Context, js jetstream.JetStream, tenant string, limits Limits) error {
	if err := checkNames(tenant, ""); err != nil {
		return err
	}
	l := limits.withDefaults()
	storage := jetstream.FileStorage
	if l.Memory {
		storage = jetstream.MemoryStorage
	}
	for _, cfg := range []jetstream.StreamConfig{stepConfig(tenant, l, storage), noteConfig(tenant, l, storage)} {
		if _, err := js.Stream(ctx, cfg.Name); err == nil {
			continue
		} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
			return fmt.Errorf("fleet: stream %s: %w", cfg.Name, err)
		}
		if _, err := js.CreateStream(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			return fmt.Errorf("fleet: creating stream %s: %w", cfg.Name, err)
		}
	}
	return nil
}

// ClockSeq returns a number for a session's first step in this process
// that no earlier process of the session can have reached: the time in
// microseconds (a process would have to publish a step every
// microsecond to catch up with the clock). It reads nothing, so an
// account that may only publish steps and read its notes (docs/fleet.md)
// can use it, at once.
func ClockSeq() uint64 { return uint64(time.Now().UnixMicro()) }

// RemoteOptions configure a [Remote].
type RemoteOptions struct {
	// Start is where the fleet's advisor starts, as
	// [advisor.Options.Start]: [advisor.StartAtBeginning] publishes the
	// transcript from its first entry, [advisor.StartAtEnd] only what
	// comes after Start, and [advisor.StartPrimed] first publishes what
	// the agent's model sees now, as a rewritten history the advisor
	// primes from.
	Start advisor.StartPoint
	// Withhold shows every note to the user only ([advisor.Withholder]),
	// whatever way the fleet's advisor chose: the agent's own setting
	// (advisor.allowPromptInjection false) holds over the fleet's.
	Withhold bool
	// OnTrouble, if set, is told once when a step cannot be published
	// (the fleet unreachable: the agent goes on unreviewed) and once when
	// publishing works again after that.
	OnTrouble func(ok bool, err error)
	// Logf, if set, logs what the remote does.
	Logf func(format string, args ...any)
}

// RemoteStatus are a [Remote]'s counters.
type RemoteStatus struct {
	// Published counts the steps the fleet took, Reviewed those of them
	// whose reviews have ended, Dropped those it could not be given
	// (fail-open).
	Published, Reviewed, Dropped int64
	// Backlog is how many steps wait for their review, in the agent's
	// queue or in the fleet.
	Backlog int
	// Notes counts the notes delivered to the host, by the way they went.
	Notes map[string]int64
}

// Remote is the advisor of a session that the fleet serves: it takes the
// place of a local [advisor.Runtime] over the agent's host. The events
// the host reports become steps published through a [Client] (each
// completed step's entries, with the events before it), and the notes
// that come back are handed to the host, which delivers them with its
// own rules (asides at the next boundary, steers, cards). Like the
// runtime it never blocks the agent: Notify queues, and a fleet that
// cannot be reached costs each step at most the client's publish bound,
// on the remote's own goroutine.
type Remote struct {
	c    *Client
	host advisor.Host
	opts RemoteOptions

	mu      sync.Mutex // guards queue, steps, changed, events
	queue   []advisor.Event
	steps   int // step-ended events queued or being published
	changed chan struct{}
	wake    chan struct{}
	// events are those to send with the next step.
	events []advisor.Event

	cursor    int
	troubled  bool
	published atomic.Int64
	notesMu   sync.Mutex
	notes     map[string]int64

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

// NewRemote returns the remote advisor of c's session over host; Start
// starts it. c should be made with [ClientOptions.AckNotes], so that a
// wait for the backlog ([Remote.WaitBacklogBelow]) ends only once the
// notes of the reviews it waited for were handed to the host.
func NewRemote(c *Client, host advisor.Host, opts RemoteOptions) *Remote {
	return &Remote{c: c, host: host, opts: opts, changed: make(chan struct{}), wake: make(chan struct{}, 1), notes: map[string]int64{}}
}

// Start publishes the steps and delivers the notes until Stop.
func (r *Remote) Start(ctx context.Context) {
	ctx, r.cancel = context.WithCancel(ctx)
	switch r.opts.Start {
	case advisor.StartAtEnd:
		if _, next, err := r.host.View(ctx); err == nil {
			r.cursor = next
		}
	case advisor.StartPrimed:
		r.mu.Lock()
		r.queue = append([]advisor.Event{{Kind: advisor.EventHistoryRewritten}}, r.queue...)
		r.mu.Unlock()
		r.signal()
	}
	r.wg.Add(2)
	go func() {
		defer r.wg.Done()
		r.publishLoop(ctx)
	}()
	go func() {
		defer r.wg.Done()
		r.deliverLoop(ctx)
	}()
}

// Stop publishes what is queued (each step within the client's bound),
// stops delivering notes and closes the client.
func (r *Remote) Stop() {
	r.once.Do(func() {
		r.mu.Lock()
		r.queue = append(r.queue, advisor.Event{Kind: stopEvent})
		r.mu.Unlock()
		r.signal()
		r.wg.Wait()
		r.c.Close()
	})
}

// stopEvent ends the publishing loop once what was queued before it is
// published; it is not an advisor event.
const stopEvent advisor.EventKind = "vigil_fleet_stop"

// Notify queues one of the host's events; it never blocks.
func (r *Remote) Notify(ev advisor.Event) {
	r.mu.Lock()
	r.queue = append(r.queue, ev)
	if ev.Kind == advisor.EventStepEnded {
		r.steps++
	}
	r.mu.Unlock()
	r.signal()
}

func (r *Remote) signal() {
	select {
	case r.wake <- struct{}{}:
	default:
	}
}

// WaitBacklogBelow waits until every step notified has been published
// (or dropped) and fewer than n of them wait for their review, ctx ends
// (its error), or the remote stops (nil).
func (r *Remote) WaitBacklogBelow(ctx context.Context, n int) error {
	for {
		r.mu.Lock()
		steps, changed := r.steps, r.changed
		r.mu.Unlock()
		if steps == 0 {
			break
		}
		select {
		case <-changed:
		case <-r.c.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return r.c.WaitBacklogBelow(ctx, n)
}

// Status returns the remote's counters.
func (r *Remote) Status() RemoteStatus {
	r.mu.Lock()
	queued := r.steps
	r.mu.Unlock()
	r.notesMu.Lock()
	notes := make(map[string]int64, len(r.notes))
	for k, v := range r.notes {
		notes[k] = v
	}
	r.notesMu.Unlock()
	return RemoteStatus{Published: r.published.Load(), Reviewed: r.c.Reviewed(), Dropped: r.c.Dropped(), Backlog: queued + r.c.Backlog(), Notes: notes}
}

func (r *Remote) logf(format string, args ...any) {
	if r.opts.Logf != nil {
		r.opts.Logf(format, args...)
	}
}

// publishLoop turns the queued events into steps, in order.
func (r *Remote) publishLoop(ctx context.Context) {
	for {
		r.mu.Lock()
		queue := r.queue
		r.queue = nil
		r.mu.Unlock()
		for _, ev := range queue {
			if ev.Kind == stopEvent {
				r.cancel()
				return
			}
			r.handle(ctx, ev)
		}
		select {
		case <-r.wake:
		case <-ctx.Done():
			return
		}
	}
}

// handle applies one event: a step ended publishes the entries since the
// last step with the events held for it; a rewritten history publishes
// the agent's view afresh; a run's end or a user's interrupt goes at
// once, in a step of its own with no entries (the advisor's latch and
// end-of-run review must not wait for the next step).
func (r *Remote) handle(ctx context.Context, ev advisor.Event) {
	switch ev.Kind {
	case advisor.EventStepEnded:
		entries, next, err := r.host.Since(ctx, r.cursor)
		if err != nil {
			r.logf("fleet: reading the step: %v", err)
		} else {
			r.cursor = next
			r.send(ctx, entries)
		}
		r.mu.Lock()
		r.steps--
		close(r.changed)
		r.changed = make(chan struct{})
		r.mu.Unlock()
	case advisor.EventHistoryRewritten:
		entries, next, err := r.host.View(ctx)
		if err != nil {
			r.logf("fleet: reading the rewritten history: %v", err)
			return
		}
		r.cursor = next
		r.events = append(r.events, advisor.Event{Kind: advisor.EventHistoryRewritten})
		r.send(ctx, entries)
	case advisor.EventRunEnded, advisor.EventUserInterrupted:
		r.events = append(r.events, advisor.Event{Kind: ev.Kind, Run: ev.Run})
		r.send(ctx, nil)
	default:
		// EventUserResumed and the rest go with the next step.
		ev.Cursor = 0
		r.events = append(r.events, ev)
	}
}

// send publishes entries with the events held, reporting the first
// failure and the recovery after it.
func (r *Remote) send(ctx context.Context, entries []session.Entry) {
	events := r.events
	r.events = nil
	_, err := r.c.Publish(ctx, entries, events...)
	if err != nil {
		r.logf("%v", err)
		if !r.troubled {
			r.troubled = true
			if r.opts.OnTrouble != nil {
				r.opts.OnTrouble(false, err)
			}
		}
		return
	}
	r.published.Add(1)
	if r.troubled {
		r.troubled = false
		if r.opts.OnTrouble != nil {
			r.opts.OnTrouble(true, nil)
		}
	}
}

// deliverLoop hands each note from the fleet to the host.
func (r *Remote) deliverLoop(ctx context.Context) {
	for {
		select {
		case n := <-r.c.Notes():
			r.deliver(ctx, n)
			r.c.Handled() // its review may end now
		case <-ctx.Done():
			return
		}
	}
}

// deliver hands one note to the host the way the fleet's advisor chose,
// or withholds it when the agent's settings say so.
func (r *Remote) deliver(ctx context.Context, n Note) {
	a := n.Advice
	a.Advisor = n.Advisor
	kind := n.Kind
	if r.opts.Withhold && kind != KindResume {
		kind = KindWithhold
	}
	var err error
	switch kind {
	case KindAside:
		err = r.host.Aside(ctx, a)
	case KindSteer:
		err = r.host.Steer(ctx, a)
	case KindCard:
		err = r.host.Card(ctx, a)
	case KindWithhold:
		if w, ok := r.host.(advisor.Withholder); ok {
			err = w.Withhold(ctx, a)
		} else {
			err = r.host.Card(ctx, a)
		}
	case KindResume:
		if r.opts.Withhold {
			return // nothing the agent was told to act on
		}
		err = r.host.Resume(ctx)
	default:
		r.logf("fleet: note %s of an unknown kind %q: dropped", n.ID, n.Kind)
		return
	}
	if err != nil {
		r.logf("fleet: delivering note %s: %v", n.ID, err)
		return
	}
	r.notesMu.Lock()
	r.notes[kind]++
	r.notesMu.Unlock()
}
