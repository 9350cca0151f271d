package fleet

// The per-session half of a worker: reviewing one owned session's steps
// in order, from its durable consumer.

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// serve reviews the session's steps in order from the first one not
// acknowledged, until ctx ends or the session is idle.
func (w *Worker) serve(ctx context.Context, sess string) error {
	name := sessionConsumerPrefix + sess
	subject := StepSubject(w.opts.Tenant, sess)
	// The session's consumer is made once and never replaced, so its ack
	// floor (the steps reviewed) survives every worker: a new owner binds
	// to it, and a step a dead worker was given comes back after AckWait.
	// It outlives the session's steps (MaxAge) by an hour, so a session
	// with steps and no consumer has never been taken.
	cons, err := w.steps.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{
		Durable:           name,
		Description:       "vigil fleet: the steps of session " + sess + ", reviewed in order",
		FilterSubject:     subject,
		AckPolicy:         jetstream.AckExplicitPolicy,
		AckWait:           w.opts.AckWait,
		MaxAckPending:     1,
		InactiveThreshold: w.opts.Limits.MaxAge + time.Hour,
	})
	if err != nil {
		return fmt.Errorf("consumer: %w", err)
	}
	h := &host{}
	info := SessionInfo{Tenant: w.opts.Tenant, Session: sess, Start: advisor.StartAtBeginning}
	if floor := cons.CachedInfo().AckFloor.Stream; floor > 0 {
		tail, err := w.tail(ctx, subject, floor+1)
		if err != nil {
			return err
		}
		if len(tail) > 0 {
			h.Prime(tail)
			info.Start = advisor.StartPrimed
		}
	}
	rt, err := w.opts.Reviewer(info, h)
	if err != nil {
		return fmt.Errorf("advisor: %w", err)
	}
	rt.Start(ctx)
	defer rt.Stop()
	stopConsults, err := w.answerConsults(ctx, sess, rt)
	if err != nil {
		return err
	}
	defer stopConsults()
	msgs := make(chan jetstream.Msg)
	// A step handed to the session as it is let go (idle, lost, the
	// worker stopping) is given back, not kept until AckWait: see halt.
	var (
		heldMu   sync.Mutex
		held     []jetstream.Msg
		released bool
	)
	halted := make(chan struct{})
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-halted:
			heldMu.Lock()
			if !released {
				held = append(held, m)
				m = nil
			}
			heldMu.Unlock()
			if m != nil {
				_ = m.Nak()
			}
		}
	})
	if err != nil {
		return fmt.Errorf("consuming: %w", err)
	}
	// halt stops consuming before the session is said to be let go, and
	// gives back every step handed to it meanwhile, so that the next
	// owner has them at once. It drains the subscription rather than
	// stopping it: a stopped one drops the steps already on their way
	// to it, unacknowledged, and the server gives them to nobody until
	// AckWait (meanwhile the session was taken and let go again and
	// again, every take going idle before its step came). And it gives
	// them back (a nak) only once the subscription is gone, or the
	// server would hand each straight back to it.
	halt := sync.OnceFunc(func() {
		close(halted)
		cc.Drain()
		drained := time.NewTimer(w.opts.AckWait)
		select {
		case <-cc.Closed():
		case <-drained.C:
			// The server gives the steps back itself by now.
		}
		drained.Stop()
		heldMu.Lock()
		released = true
		back := held
		held = nil
		heldMu.Unlock()
		for _, m := range back {
			_ = m.Nak()
		}
	})
	defer halt()
	w.taken.Add(1)
	if info.Start == advisor.StartPrimed {
		w.takenOver.Add(1)
	}
	if w.opts.OnSession != nil {
		w.opts.OnSession(sess, true, info.Start)
		defer w.opts.OnSession(sess, false, info.Start)
	}
	idle := time.NewTimer(w.opts.IdleTimeout)
	defer idle.Stop()
	for {
		select {
		case <-ctx.Done():
			halt()
			return nil
		case <-idle.C:
			if w.stepsWait(ctx, cons) {
				// Not idle: a step is on its way (a take is slow to get
				// its first one under load, or the step was handed to
				// the last owner and comes back after AckWait). Letting
				// the session go now would only have it taken again.
				idle.Reset(w.opts.IdleTimeout)
				continue
			}
			halt()
			return nil
		case m := <-msgs:
			if err := w.review(ctx, sess, rt, h, m); err != nil {
				halt()
				return err
			}
			idle.Reset(w.opts.IdleTimeout)
		}
	}
}

// stepsWait reports whether the session's consumer holds steps not yet
// reviewed: pending, or handed out and not acknowledged. It says no
// when it cannot tell, and the session is let go.
func (w *Worker) stepsWait(ctx context.Context, cons jetstream.Consumer) bool {
	info, err := cons.Info(ctx)
	if err != nil {
		return false
	}
	return info.NumPending+uint64(info.NumAckPending) > 0
}

// tailInactive is how long the server keeps the consumer [Worker.tail]
// reads with if the worker dies before deleting it.
const tailInactive = 30 * time.Second

// tail reads the entries of the last PrimeSteps steps of the session
// before stream sequence start.
//
// It reads with a consumer of its own, deleted once read: a stream holds
// at most a server's max_consumers (1,000 by default) and every session
// keeps its durable one, so a consumer left behind at each takeover (an
// ordered consumer lingers five minutes) fills the stream up after a few
// kills, and no session can be taken over or started until they expire.
func (w *Worker) tail(ctx context.Context, subject string, start uint64) ([]session.Entry, error) {
	oc, err := w.steps.CreateConsumer(ctx, jetstream.ConsumerConfig{
		Description:       "vigil fleet: the reviewed steps of " + subject + ", read once",
		FilterSubject:     subject,
		DeliverPolicy:     jetstream.DeliverAllPolicy,
		AckPolicy:         jetstream.AckNonePolicy,
		InactiveThreshold: tailInactive,
		MemoryStorage:     true,
		Replicas:          1,
	})
	if err != nil {
		return nil, fmt.Errorf("reading the reviewed steps: %w", err)
	}
	defer func() {
		// Not cancelled with the session: the consumer goes in any case.
		dctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := w.steps.DeleteConsumer(dctx, oc.CachedInfo().Name); err != nil && !w.nc.IsClosed() {
			w.logf("fleet: deleting the consumer that read %s: %v", subject, err)
		}
	}()
	var ring [][]session.Entry
	for done := false; !done; {
		// What the stream holds now: no wait for steps to come.
		batch, err := oc.FetchNoWait(256)
		if err != nil {
			return nil, fmt.Errorf("reading the reviewed steps: %w", err)
		}
		n := 0
		for m := range batch.Messages() {
			n++
			meta, err := m.Metadata()
			if err != nil || meta.Sequence.Stream >= start {
				done = true
				continue
			}
			var st Step
			if json.Unmarshal(m.Data(), &st) == nil {
				if entries, err := st.Decode(); err == nil {
					ring = append(ring, entries)
					if len(ring) > w.opts.PrimeSteps {
						ring = ring[1:]
					}
				}
			}
			if meta.NumPending == 0 {
				done = true
			}
		}
		if batch.Error() != nil || n == 0 {
			break
		}
	}
	var out []session.Entry
	for _, es := range ring {
		out = append(out, es...)
	}
	return out, nil
}

// inProgress tells the server every third of AckWait that m is being
// reviewed, until the returned func is called.
func (w *Worker) inProgress(m jetstream.Msg) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(w.opts.AckWait / 3)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				_ = m.InProgress()
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// review gives one step to the session's advisor, waits for its review,
// publishes its notes and acknowledges the step. An error ends the
// session, the step given back (a nak) for the next owner unless the
// error is its ack's.
func (w *Worker) review(ctx context.Context, sess string, rt Reviewer, h *host, m jetstream.Msg) error {
	w.nsteps.Add(1)
	var st Step
	if err := json.Unmarshal(m.Data(), &st); err != nil || st.Tenant != w.opts.Tenant || st.Session != sess {
		w.logf("fleet: session %s: dropping a malformed step (%v)", sess, err)
		_ = m.Term()
		return nil
	}
	entries, err := st.Decode()
	if err != nil {
		w.logf("fleet: session %s: dropping step %d: %v", sess, st.Seq, err)
		_ = m.Term()
		return nil
	}
	// The host holds the step before the advisor hears of it: a rewrite
	// makes it prime from the host's view, which must be the step's
	// (fleet.Remote publishes the agent's view after the rewrite), not
	// the empty one before it, or the view would be reviewed as a step.
	for _, ev := range st.Events {
		if ev.Kind == advisor.EventHistoryRewritten {
			h.RestartView()
		}
	}
	cursor := h.Append(entries...)
	for _, ev := range st.Events {
		if ev.Kind != advisor.EventStepEnded {
			rt.Notify(ev)
		}
	}
	spent := rt.Usage()
	stopProgress := w.inProgress(m)
	err = rt.Review(ctx, StepEnd{Seq: st.Seq, Entries: entries, Cursor: cursor})
	stopProgress()
	if err != nil {
		_ = m.Nak()
		return fmt.Errorf("step %d: waiting for its review: %w", st.Seq, err)
	}
	notes := h.take()
	// The last message of each review says it is done, so that the agent
	// knows its backlog (advisor.syncBacklog, the Stop hook's wait).
	notes = append(notes, Note{Kind: KindReviewed})
	for i := range notes {
		n := &notes[i]
		n.ID, n.Tenant, n.Session, n.Seq, n.StepPublished = noteID(sess, st.Seq, i), st.Tenant, sess, st.Seq, st.Published
		n.Advice.Note = w.opts.Redactor.Redact(n.Advice.Note)
		data, err := json.Marshal(n)
		if err != nil {
			_ = m.Nak()
			return fmt.Errorf("step %d: note: %w", st.Seq, err)
		}
		if _, err := w.js.PublishMsg(ctx, &nats.Msg{Subject: NoteSubject(w.opts.Tenant, sess), Data: data}, jetstream.WithMsgID(n.ID)); err != nil {
			_ = m.Nak()
			return fmt.Errorf("step %d: publishing note %s: %w", st.Seq, n.ID, err)
		}
		if n.Kind != KindReviewed {
			w.notes.Add(1)
		}
	}
	if w.beforeAck != nil {
		w.beforeAck(st)
	}
	// The notes are out: the ack must not be cut by the session's end
	// (its lease lost, the worker stopping), or a step the server took as
	// acknowledged would go uncounted here and reviewed by nobody else.
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ackTimeout)
	err = m.DoubleAck(actx)
	cancel()
	if err != nil {
		return fmt.Errorf("step %d: ack: %w", st.Seq, err)
	}
	w.reviews.Add(1)
	if w.opts.OnReviewed != nil {
		var delivered uint64
		if meta, err := m.Metadata(); err == nil {
			delivered = meta.NumDelivered
		}
		w.opts.OnReviewed(Reviewed{Tenant: st.Tenant, Session: sess, Seq: st.Seq, Notes: len(notes) - 1, Latency: time.Since(st.Published), Delivered: delivered, Models: spentSince(spent, rt.Usage())})
	}
	return nil
}

// ackTimeout bounds a review's acknowledgement.
const ackTimeout = 5 * time.Second

// spentSince returns what after holds beyond before: the usage of the
// calls made between two of a runtime's [advisor.Status.Models].
func spentSince(before, after []advisor.ModelUsage) []advisor.ModelUsage {
	var out []advisor.ModelUsage
	for _, a := range after {
		u := a.Usage
		for _, b := range before {
			if b.Model == a.Model {
				u.Input, u.Output, u.CacheRead, u.CacheWrite = u.Input-b.Usage.Input, u.Output-b.Usage.Output, u.CacheRead-b.Usage.CacheRead, u.CacheWrite-b.Usage.CacheWrite
			}
		}
		if u != (llm.Usage{}) {
			out = append(out, advisor.ModelUsage{Model: a.Model, Usage: u})
		}
	}
	return out
}
