package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/rules"
)

func newClient(t *testing.T, nc *nats.Conn, tenant, sess string) *Client {
	t.Helper()
	c, err := NewClient(context.Background(), nc, ClientOptions{Tenant: tenant, Session: sess})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func publish(t *testing.T, c *Client, sess string, i int) {
	t.Helper()
	seq, err := c.Publish(context.Background(), stepEntries(sess, i, false))
	if err != nil {
		t.Fatal(err)
	}
	if seq != uint64(i) {
		t.Fatalf("step %d published as %d", i, seq)
	}
}

// wantNote checks a note of the per-step detector.
func wantNote(t *testing.T, n Note, sess string, seq int) {
	t.Helper()
	if n.ID != noteID(sess, uint64(seq), 0) || n.Seq != uint64(seq) || n.Session != sess || n.Kind != KindAside {
		t.Fatalf("note %+v, want step %d's aside", n, seq)
	}
	if want := fmt.Sprintf("Reviewed entry a%s-%d carefully; consider checking its output", sess, seq); n.Advice.Note != want {
		t.Fatalf("note %q, want %q", n.Advice.Note, want)
	}
}

// noteCount is how many notes the tenant's stream holds for a session.
func noteCount(t *testing.T, nc *nats.Conn, tenant, sess string) uint64 {
	t.Helper()
	js, _ := jetstream.New(nc)
	st, err := js.Stream(context.Background(), NoteStream(tenant))
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background(), jetstream.WithSubjectFilter(NoteSubject(tenant, sess)))
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Subjects[NoteSubject(tenant, sess)]
}

func TestStepsGetNotes(t *testing.T) {
	s := natstest.Start(t)
	runWorker(t, s, WorkerOptions{Tenant: "acme"}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 3; i++ {
		publish(t, c, "s1", i)
		wantNote(t, waitNote(t, c), "s1", i)
	}
	if c.Dropped() != 0 || c.Repeats() != 0 {
		t.Errorf("dropped %d, repeats %d", c.Dropped(), c.Repeats())
	}
}

func TestRulesReviewer(t *testing.T) {
	s := natstest.Start(t)
	runWorker(t, s, WorkerOptions{Tenant: "acme", Factory: RulesFactory(rules.DefaultSettings())}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 8; i++ {
		if _, err := c.Publish(context.Background(), stepEntries("s1", i, true)); err != nil {
			t.Fatal(err)
		}
	}
	n := waitNote(t, c)
	if n.Advice.Note == "" || n.Session != "s1" || n.Seq == 0 {
		t.Fatalf("rules note %+v", n)
	}
}

func TestBacklogReviewedWhenAWorkerStarts(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 3; i++ {
		publish(t, c, "s1", i)
	}
	runWorker(t, s, WorkerOptions{Tenant: "acme"}, nil)
	for i := 1; i <= 3; i++ {
		wantNote(t, waitNote(t, c), "s1", i)
	}
}

// TestTakeover kills the worker that owns a session after it published
// step 4's note and before it acknowledged the step: the other worker
// takes the session over, reviews step 4 again (its note deduplicated by
// the stream), and goes on.
func TestTakeover(t *testing.T) {
	s := natstest.Start(t)
	var blocked atomic.Bool
	hit := make(chan *Worker, 1)
	unblock := make(chan struct{})
	taken := make(chan advisor.StartPoint, 4)
	reviewed := make(chan Reviewed, 16)
	opts := WorkerOptions{
		Tenant: "acme",
		OnSession: func(_ string, owned bool, start advisor.StartPoint) {
			if owned {
				taken <- start
			}
		},
		OnReviewed: func(r Reviewed) { reviewed <- r },
	}
	var workers []*running
	for range 2 {
		var me *Worker
		r := runWorker(t, s, opts, func(w *Worker) {
			me = w
			w.beforeAck = func(st Step) {
				if st.Seq == 4 && blocked.CompareAndSwap(false, true) {
					hit <- me
					<-unblock
				}
			}
		})
		workers = append(workers, r)
	}
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 3; i++ {
		publish(t, c, "s1", i)
		wantNote(t, waitNote(t, c), "s1", i)
	}
	if start := <-taken; start != advisor.StartAtBeginning {
		t.Fatalf("first owner started at %v", start)
	}
	publish(t, c, "s1", 4)
	wantNote(t, waitNote(t, c), "s1", 4) // published, not yet acknowledged
	owner := <-hit
	var other *running
	for _, r := range workers {
		if r.w == owner {
			r.kill()
		} else {
			other = r
		}
	}
	close(unblock)
	if start := <-taken; start != advisor.StartPrimed {
		t.Fatalf("the session was taken over at %v, want primed", start)
	}
	for i := 5; i <= 6; i++ {
		publish(t, c, "s1", i)
		wantNote(t, waitNote(t, c), "s1", i)
	}
	var again []uint64
	for len(again) < 6 {
		r := <-reviewed
		if r.Seq >= 4 {
			again = append(again, r.Seq)
		}
		if r.Seq == 6 {
			break
		}
	}
	if !slices.Equal(again, []uint64{4, 5, 6}) {
		t.Errorf("the new owner reviewed steps %v, want [4 5 6]", again)
	}
	if n := noteCount(t, nc, "acme", "s1"); n != 12 {
		t.Errorf("the notes stream holds %d messages, want 12 (each step's note and its review's end, step 4's once)", n)
	}
	if c.Repeats() != 0 {
		t.Errorf("the client dropped %d repeated notes, want none reaching it", c.Repeats())
	}
	if st := other.w.Stats(); st.TakenOver != 1 || st.Reviews != 3 {
		t.Errorf("the other worker's stats %+v", st)
	}
	select {
	case n := <-c.Notes():
		t.Errorf("extra note %+v", n)
	default:
	}
}

// TestClientDeliversANoteOnce publishes a note twice past the stream's
// deduplication (no message id): the client delivers it once.
func TestClientDeliversANoteOnce(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	js, _ := jetstream.New(nc)
	for _, id := range []string{"s1.1.0", "s1.1.0", "s1.2.0"} {
		data, _ := json.Marshal(Note{ID: id, Tenant: "acme", Session: "s1", Kind: KindAside, Advice: advisor.Advice{Note: id}})
		if _, err := js.Publish(context.Background(), NoteSubject("acme", "s1"), data); err != nil {
			t.Fatal(err)
		}
	}
	if n := waitNote(t, c); n.ID != "s1.1.0" {
		t.Fatalf("first note %s", n.ID)
	}
	if n := waitNote(t, c); n.ID != "s1.2.0" {
		t.Fatalf("second note %s, want s1.2.0 (s1.1.0 once)", n.ID)
	}
	if c.Repeats() != 1 {
		t.Errorf("repeats %d, want 1", c.Repeats())
	}
}

// TestRetriedStepReviewedOnce publishes step 1 twice with its message id
// (a retry after a lost ack): one review, one note.
func TestRetriedStepReviewedOnce(t *testing.T) {
	s := natstest.Start(t)
	reviewed := make(chan Reviewed, 8)
	runWorker(t, s, WorkerOptions{Tenant: "acme", OnReviewed: func(r Reviewed) { reviewed <- r }}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	st, err := NewStep("acme", "s1", 1, stepEntries("s1", 1, false))
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := c.publish(context.Background(), st); err != nil {
			t.Fatal(err)
		}
	}
	c.seq.Store(2)
	publish(t, c, "s1", 2)
	wantNote(t, waitNote(t, c), "s1", 1)
	wantNote(t, waitNote(t, c), "s1", 2)
	if r := <-reviewed; r.Seq != 1 {
		t.Fatalf("first review %+v", r)
	}
	if r := <-reviewed; r.Seq != 2 {
		t.Fatalf("second review %+v, want step 2 (step 1 once)", r)
	}
}

func TestTenantIsolation(t *testing.T) {
	s := natstest.Start(t)
	reviewed := map[string]chan Reviewed{}
	for _, tenant := range []string{"acme", "globex"} {
		ch := make(chan Reviewed, 16)
		reviewed[tenant] = ch
		runWorker(t, s, WorkerOptions{Tenant: tenant, OnReviewed: func(r Reviewed) { ch <- r }}, nil)
	}
	nc := connect(t, s)
	ensure(t, nc, "acme")
	ensure(t, nc, "globex")
	g := newClient(t, nc, "globex", "s1")
	a := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 3; i++ {
		publish(t, g, "s1", i)
	}
	for i := 1; i <= 3; i++ {
		publish(t, a, "s1", i)
	}
	for i := 1; i <= 3; i++ {
		if n := waitNote(t, a); n.Tenant != "acme" || n.Seq != uint64(i) {
			t.Fatalf("acme got %+v", n)
		}
		if n := waitNote(t, g); n.Tenant != "globex" || n.Seq != uint64(i) {
			t.Fatalf("globex got %+v", n)
		}
	}
	for tenant, ch := range reviewed {
		for i := 1; i <= 3; i++ {
			if r := <-ch; r.Tenant != tenant || r.Seq != uint64(i) {
				t.Errorf("worker of %s reviewed %+v, want its step %d", tenant, r, i)
			}
		}
	}
	// Each worker's steps were its own and only three: one more step of
	// acme's reaches acme's worker next, not a fourth of globex's.
	publish(t, a, "s1", 4)
	if r := <-reviewed["acme"]; r.Tenant != "acme" || r.Seq != 4 {
		t.Errorf("acme's worker then reviewed %+v", r)
	}
	select {
	case r := <-reviewed["globex"]:
		t.Errorf("globex's worker reviewed %+v", r)
	default:
	}
}

func TestClientFailsOpen(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	if _, err := NewClient(context.Background(), nc, ClientOptions{Tenant: "acme", Session: "s1", PublishTimeout: time.Second}); err == nil {
		t.Fatal("a client subscribed to a tenant whose streams do not exist")
	}
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	nc.Close()
	start := time.Now()
	if _, err := c.Publish(context.Background(), stepEntries("s1", 1, false)); err == nil {
		t.Fatal("a step published over a closed connection")
	}
	if c.Dropped() != 1 {
		t.Errorf("dropped %d, want 1", c.Dropped())
	}
	if d := time.Since(start); d > DefaultPublishTimeout {
		t.Errorf("a dropped step took %v", d)
	}
	if _, err := NewClient(context.Background(), nc, ClientOptions{Tenant: "a.b", Session: "s1"}); err == nil || errors.Is(err, nats.ErrConnectionClosed) {
		t.Errorf("a tenant with a dot: %v", err)
	}
}

func TestStepRoundTrip(t *testing.T) {
	st, err := NewStep("acme", "s1", 7, stepEntries("s1", 7, true), advisor.Event{Kind: advisor.EventUserResumed})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := json.Marshal(st)
	var back Step
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	entries, err := back.Decode()
	if err != nil {
		t.Fatal(err)
	}
	want := stepEntries("s1", 7, true)
	if len(entries) != 2 || entries[0].ID != want[0].ID || entries[1].ParentID != want[0].ID || back.MsgID() != "s1.7" || back.Events[0].Kind != advisor.EventUserResumed {
		t.Fatalf("round trip: %+v %+v", back, entries)
	}
	if ValidName("a.b") || ValidName("") || ValidName("a*") || !ValidName("team-1_x") {
		t.Error("ValidName")
	}
}

// TestIdleSessionLetGoAndTakenAgain: a worker lets an idle session go
// (its lease deleted); the session's next step is reviewed all the same.
// OnSession never blocks the workers (it once filled a channel of 8
// with the takes of a session taken and let go again and again, and
// the worker blocked on it never reviewed the step).
func TestIdleSessionLetGoAndTakenAgain(t *testing.T) {
	s := natstest.Start(t)
	log := newSessionLog()
	opts := WorkerOptions{Tenant: "acme", IdleTimeout: 50 * time.Millisecond, OnSession: log.OnSession}
	runWorker(t, s, opts, nil)
	runWorker(t, s, opts, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	publish(t, c, "s1", 1)
	wantNote(t, waitNote(t, c), "s1", 1)
	events := log.waitFor(t, "the session let go", func(events []sessionEvent) bool { return len(events) >= 2 })
	if !events[0].owned || events[1].owned {
		t.Fatalf("events %+v, want the session taken, then let go", events)
	}
	publish(t, c, "s1", 2)
	wantNote(t, waitNote(t, c), "s1", 2)
	log.waitFor(t, "the session taken again", func(events []sessionEvent) bool {
		return slices.ContainsFunc(events[2:], func(e sessionEvent) bool { return e.owned })
	})
}

// TestRetriedAsksAgainAfterALostAnswer: Ensure's requests are asked
// again when one attempt's bound runs out, and not for other errors or
// once the caller's context has ended.
func TestRetriedAsksAgainAfterALostAnswer(t *testing.T) {
	calls := 0
	v, err := retried(context.Background(), func(ctx context.Context) (int, error) {
		if calls++; calls < 3 {
			return 0, fmt.Errorf("request: %w", context.DeadlineExceeded)
		}
		return 7, nil
	})
	if v != 7 || err != nil || calls != 3 {
		t.Fatalf("got %d, %v after %d calls; want 7 after 3", v, err, calls)
	}
	calls = 0
	boom := errors.New("boom")
	if _, err := retried(context.Background(), func(context.Context) (int, error) { calls++; return 0, boom }); !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("got %v after %d calls; want boom after 1", err, calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	calls = 0
	if _, err := retried(ctx, func(ctx context.Context) (int, error) { calls++; return 0, ctx.Err() }); err == nil || calls != 1 {
		t.Fatalf("got %v after %d calls; want an error after 1", err, calls)
	}
}

// TestClientBacklog: the steps a client published count as its backlog
// until their reviews end (the review's closing message), notes or none;
// steps published while no worker runs wait for one.
func TestClientBacklog(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 3; i++ {
		publish(t, c, "s1", i)
	}
	if b := c.Backlog(); b != 3 {
		t.Fatalf("backlog %d before any worker, want 3", b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := c.WaitBacklogBelow(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("wait with no worker: %v, want the deadline", err)
	}
	runWorker(t, s, WorkerOptions{Tenant: "acme"}, nil)
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if err := c.WaitBacklogBelow(wctx, 1); err != nil {
		t.Fatalf("wait with a worker: %v", err)
	}
	if b := c.Backlog(); b != 0 {
		t.Fatalf("backlog %d after the reviews, want 0", b)
	}
	for i := 1; i <= 3; i++ {
		if n := waitNote(t, c); n.Kind == KindReviewed {
			t.Fatalf("a review's end reached Notes: %+v", n)
		}
	}
}

// TestTakeoversLeaveNoConsumers takes one session over (primed, its
// reviewed steps read) again and again on a server that holds at most
// four consumers per stream: the dispatch consumer and the session's
// durable one stay, and reading the reviewed steps leaves none behind,
// so every takeover still finds room. (The full-scale fault run stalled
// when each takeover left a consumer behind for five minutes and the
// stream reached the server's default of 1,000.)
//
// It waits on events, each bounded, and fails with every goroutine's
// stack past the bound; OnSession never blocks the worker. It once hung
// for the whole test timeout, the worker blocked on a full channel of
// events, and what filled it outlived that fix: a step handed to the
// session as a take let it go (idle) was dropped with the take's
// subscription, unacknowledged, until AckWait, and meanwhile the
// session was taken and let go again and again (16 to 18 takes for one
// step under load). A take let go now gives back what was handed to
// it, none is let go while steps wait, and more than a few takes for
// one step fail the test.
func TestTakeoversLeaveNoConsumers(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	log := newSessionLog()
	// What the review of each step found, as it published its notes:
	// the start of the take reviewing it, and the steps stream's
	// consumers. No other take of the session runs then.
	type review struct {
		start     advisor.StartPoint
		consumers int
		err       error
	}
	reviews := map[uint64]review{}
	lim := Limits{LeaseTTL: time.Second, Memory: true, MaxConsumers: 4}
	opts := WorkerOptions{Tenant: "acme", Limits: lim, IdleTimeout: 50 * time.Millisecond, OnSession: log.OnSession}
	runWorker(t, s, opts, func(w *Worker) {
		w.beforeAck = func(st Step) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			info, err := js.Stream(ctx, StepStream("acme"))
			cancel()
			r := review{err: err}
			if err == nil {
				r.consumers = info.CachedInfo().State.Consumers
			}
			log.do(func(events []sessionEvent) {
				for _, e := range slices.Backward(events) {
					if e.owned {
						r.start = e.start
						break
					}
				}
				reviews[st.Seq] = r
			})
		}
	})
	ensureWith(t, nc, "acme", lim)
	c := newClient(t, nc, "acme", "s1")
	seen := 0 // the session's events before this step
	for i := 1; i <= 6; i++ {
		publish(t, c, "s1", i)
		wantNote(t, waitNote(t, c), "s1", i)
		// Reviewed, and the session let go since: the next step is a
		// takeover.
		events := log.waitFor(t, fmt.Sprintf("step %d: the session let go", i), func(events []sessionEvent) bool {
			_, ok := reviews[uint64(i)]
			taken, letGo := owners(events)
			return ok && taken == letGo
		})
		log.mu.Lock()
		r := reviews[uint64(i)]
		log.mu.Unlock()
		want := advisor.StartPrimed
		if i == 1 {
			want = advisor.StartAtBeginning
		}
		if r.start != want {
			t.Fatalf("step %d was reviewed by a take started at %v, want %v", i, r.start, want)
		}
		if r.err != nil {
			t.Fatalf("step %d: the steps stream: %v", i, r.err)
		}
		if r.consumers != 2 {
			t.Fatalf("step %d was reviewed with %d consumers on the steps stream, want 2 (the dispatch one and the session's)", i, r.consumers)
		}
		// A session taken and let go in a loop, its step not coming,
		// is a defect (not only a slow test): a step's own take, and
		// the odd take of a claim that was under way as it was let go.
		if taken, _ := owners(events[seen:]); taken > 3 {
			t.Fatalf("step %d: the session was taken %d times, want once (a few at most): taken and let go in a loop", i, taken)
		}
		seen = len(events)
	}
}
