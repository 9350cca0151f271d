package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/session"
)

// DefaultPublishTimeout is the default of [ClientOptions.PublishTimeout].
const DefaultPublishTimeout = 2 * time.Second

// maxSeen bounds the note ids a client remembers to drop repeats.
const maxSeen = 4096

// ClientOptions configure a [Client].
type ClientOptions struct {
	// Tenant and Session name the session the client publishes. Required.
	Tenant  string
	Session string
	// NextSeq is the number of the first step to publish; 0 means 1. A
	// session resumed in a new process goes on from its last number + 1.
	NextSeq uint64
	// PublishTimeout bounds each Publish; 0 means [DefaultPublishTimeout].
	PublishTimeout time.Duration
	// NotesBuffer is how many notes wait in [Client.Notes] before the
	// client stops reading more from the fleet; 0 means 256.
	NotesBuffer int
	// AckNotes says the reader of [Client.Notes] calls [Client.Handled]
	// once it has dealt with each note: a review then counts as ended
	// (for Backlog, Reviewed and WaitBacklogBelow) only after its notes
	// were handled, so a wait for the backlog cannot end before the
	// review's notes reached the agent.
	AckNotes bool
	// Redactor hides the secrets in everything the client publishes (the
	// steps' entries, the questions to the advisor) before it leaves the
	// agent: the steps stream keeps them on the server's disk, and a
	// worker's model is sent them. nil hides the secrets found by their
	// shape alone (keys, tokens, private keys, passwords in URLs and
	// assignments); the agent passes one that also knows its
	// environment's and configuration's secrets.
	Redactor *history.Redactor
}

// Client is the agent's side of the fleet for one session: it publishes
// completed steps and delivers the notes that come back. It fails open:
// a step it cannot publish within the bound is dropped and counted, and
// the agent goes on.
type Client struct {
	js   jetstream.JetStream
	nc   *nats.Conn
	opts ClientOptions
	cc   jetstream.ConsumeContext

	seq      atomic.Uint64
	reviewed atomic.Int64
	dropped  atomic.Int64
	repeats  atomic.Int64

	notes chan Note
	done  chan struct{}
	once  sync.Once

	mu    sync.Mutex // guards seen, order, pending, changed and the counts below
	seen  map[string]bool
	order []string
	// pending are the steps published and not yet reviewed, in order;
	// changed is closed (and replaced) whenever reviews take some off.
	pending []uint64
	changed chan struct{}
	// With AckNotes, given and handled count the notes put on Notes and
	// those Handled; held are the review markers that wait for the notes
	// given before them.
	given, handled int64
	held           []heldReview
}

// heldReview is a review marker waiting until the notes given before it
// (after counts them) were handled.
type heldReview struct {
	seq   uint64
	after int64
}

// NewClient returns a client over nc, subscribed to its session's notes
// from now on. It fails when the notes cannot be subscribed to (the
// fleet is unreachable, or its streams are not set up): the agent then
// runs without the fleet.
func NewClient(ctx context.Context, nc *nats.Conn, opts ClientOptions) (*Client, error) {
	if err := checkNames(opts.Tenant, opts.Session); err != nil {
		return nil, err
	}
	if opts.Session == "" {
		return nil, errors.New("fleet: ClientOptions.Session is required")
	}
	if opts.PublishTimeout <= 0 {
		opts.PublishTimeout = DefaultPublishTimeout
	}
	if opts.NotesBuffer <= 0 {
		opts.NotesBuffer = 256
	}
	if opts.NextSeq == 0 {
		opts.NextSeq = 1
	}
	opts.Redactor = orShapes(opts.Redactor)
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("fleet: jetstream: %w", err)
	}
	c := &Client{js: js, nc: nc, opts: opts, notes: make(chan Note, opts.NotesBuffer), done: make(chan struct{}), seen: map[string]bool{}, changed: make(chan struct{})}
	c.seq.Store(opts.NextSeq)
	ctx, cancel := context.WithTimeout(ctx, opts.PublishTimeout)
	defer cancel()
	// From the stream's end now, by sequence rather than "new": an
	// ordered consumer that has delivered nothing yet and is made again
	// (the server restarted) would otherwise start from the end then and
	// miss the notes published in between.
	st, err := js.Stream(ctx, NoteStream(opts.Tenant))
	if err != nil {
		return nil, fmt.Errorf("fleet: subscribing to the notes of %s: %w", opts.Session, err)
	}
	oc, err := js.OrderedConsumer(ctx, NoteStream(opts.Tenant), jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{NoteSubject(opts.Tenant, opts.Session)},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    st.CachedInfo().State.LastSeq + 1,
	})
	if err != nil {
		return nil, fmt.Errorf("fleet: subscribing to the notes of %s: %w", opts.Session, err)
	}
	c.cc, err = oc.Consume(c.receive)
	if err != nil {
		return nil, fmt.Errorf("fleet: subscribing to the notes of %s: %w", opts.Session, err)
	}
	return c, nil
}

// receive hands one note to Notes, once per note id.
func (c *Client) receive(m jetstream.Msg) {
	var n Note
	if err := json.Unmarshal(m.Data(), &n); err != nil || n.ID == "" {
		return
	}
	c.mu.Lock()
	if c.seen[n.ID] {
		c.mu.Unlock()
		c.repeats.Add(1)
		return
	}
	c.seen[n.ID] = true
	c.order = append(c.order, n.ID)
	if len(c.order) > maxSeen {
		delete(c.seen, c.order[0])
		c.order = c.order[1:]
	}
	if n.Kind == KindReviewed {
		if c.opts.AckNotes && c.handled < c.given {
			c.held = append(c.held, heldReview{seq: n.Seq, after: c.given})
		} else {
			c.reviewedUpTo(n.Seq)
		}
		c.mu.Unlock()
		return
	}
	if c.opts.AckNotes {
		c.given++
	}
	c.mu.Unlock()
	select {
	case c.notes <- n:
	case <-c.done:
	}
}

// reviewedUpTo marks every pending step up to seq reviewed: reviews come
// in the order of the steps. c.mu is held.
func (c *Client) reviewedUpTo(seq uint64) {
	k := 0
	for k < len(c.pending) && c.pending[k] <= seq {
		k++
	}
	if k > 0 {
		c.reviewed.Add(int64(k))
		c.pending = c.pending[k:]
		close(c.changed)
		c.changed = make(chan struct{})
	}
}

// Handled tells the client, with [ClientOptions.AckNotes], that the
// reader dealt with the next note of Notes (delivered, withheld or
// dropped): the reviews held behind it end.
func (c *Client) Handled() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.handled++
	k := 0
	for k < len(c.held) && c.held[k].after <= c.handled {
		c.reviewedUpTo(c.held[k].seq)
		k++
	}
	c.held = c.held[k:]
}

// Backlog is how many of the steps published have not been reviewed yet.
func (c *Client) Backlog() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.pending)
}

// WaitBacklogBelow waits until fewer than n published steps are
// unreviewed, ctx ends (its error), or the client is closed (nil).
func (c *Client) WaitBacklogBelow(ctx context.Context, n int) error {
	for {
		c.mu.Lock()
		left, changed := len(c.pending), c.changed
		c.mu.Unlock()
		if left < n {
			return nil
		}
		select {
		case <-changed:
		case <-c.done:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// Notes delivers the session's notes, each once, in the order published.
func (c *Client) Notes() <-chan Note { return c.notes }

// Publish publishes one completed step: its entries, their secrets
// hidden ([ClientOptions.Redactor]), and the events to report before it
// ends. It returns the step's number, or an error when
// the step was dropped (the fleet unreachable, or no answer within
// PublishTimeout); it never blocks longer than that.
func (c *Client) Publish(ctx context.Context, entries []session.Entry, events ...advisor.Event) (uint64, error) {
	seq := c.seq.Add(1) - 1
	st, err := NewStep(c.opts.Tenant, c.opts.Session, seq, redactEntries(c.opts.Redactor, entries), events...)
	if err != nil {
		c.dropped.Add(1)
		return seq, err
	}
	st.Published = time.Now()
	// Pending before it goes: its review may come back before the
	// publication's ack does.
	c.mu.Lock()
	c.pending = append(c.pending, seq)
	c.mu.Unlock()
	if err := c.publish(ctx, st); err != nil {
		c.dropped.Add(1)
		c.mu.Lock()
		if i := slices.Index(c.pending, seq); i >= 0 {
			c.pending = slices.Delete(c.pending, i, i+1)
		}
		c.mu.Unlock()
		return seq, err
	}
	return seq, nil
}

// publish sends a step, deduplicated by its message id.
func (c *Client) publish(ctx context.Context, st Step) error {
	if !c.nc.IsConnected() {
		return fmt.Errorf("fleet: step %d dropped: not connected (%s)", st.Seq, c.nc.Status())
	}
	data, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("fleet: step %d: %w", st.Seq, err)
	}
	ctx, cancel := context.WithTimeout(ctx, c.opts.PublishTimeout)
	defer cancel()
	if _, err := c.js.PublishMsg(ctx, &nats.Msg{Subject: StepSubject(st.Tenant, st.Session), Data: data}, jetstream.WithMsgID(st.MsgID())); err != nil {
		return fmt.Errorf("fleet: step %d dropped: %w", st.Seq, err)
	}
	return nil
}

// Reviewed counts the steps published whose reviews have ended.
func (c *Client) Reviewed() int64 { return c.reviewed.Load() }

// Dropped counts the steps that could not be published.
func (c *Client) Dropped() int64 { return c.dropped.Load() }

// Repeats counts the notes received again and not delivered.
func (c *Client) Repeats() int64 { return c.repeats.Load() }

// Close stops receiving notes.
func (c *Client) Close() {
	c.once.Do(func() {
		close(c.done)
		c.cc.Stop()
	})
}
