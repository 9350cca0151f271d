package fleet

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/session"
)

// agentHost is the agent's side of a [Remote]: a transcript that grows,
// and what the remote delivered, by the way it went.
type agentHost struct {
	mu        sync.Mutex
	entries   []session.Entry
	delivered chan string // "kind: note"
}

func newAgentHost() *agentHost { return &agentHost{delivered: make(chan string, 64)} }

func (h *agentHost) add(es ...session.Entry) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, es...)
	return len(h.entries)
}

func (h *agentHost) Since(_ context.Context, cursor int) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if cursor > len(h.entries) {
		cursor = len(h.entries)
	}
	return append([]session.Entry(nil), h.entries[cursor:]...), len(h.entries), nil
}

func (h *agentHost) View(ctx context.Context) ([]session.Entry, int, error) { return h.Since(ctx, 0) }

func (h *agentHost) Aside(_ context.Context, a advisor.Advice) error {
	h.delivered <- "aside: " + a.Note
	return nil
}
func (h *agentHost) Steer(_ context.Context, a advisor.Advice) error {
	h.delivered <- "steer: " + a.Note
	return nil
}
func (h *agentHost) Card(_ context.Context, a advisor.Advice) error {
	h.delivered <- "card: " + a.Note
	return nil
}
func (h *agentHost) Withhold(_ context.Context, a advisor.Advice) error {
	h.delivered <- "withhold: " + a.Note
	return nil
}
func (h *agentHost) Resume(context.Context) error {
	h.delivered <- "resume"
	return nil
}

func (h *agentHost) next(t *testing.T) string {
	t.Helper()
	select {
	case d := <-h.delivered:
		return d
	case <-time.After(30 * time.Second):
		t.Fatal("nothing delivered within 30s")
		return ""
	}
}

// newAckClient is a client whose reader acknowledges its notes, as a
// Remote's does.
func newAckClient(t *testing.T, nc *nats.Conn, tenant, sess string) *Client {
	t.Helper()
	c, err := NewClient(context.Background(), nc, ClientOptions{Tenant: tenant, Session: sess, AckNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// TestReviewEndsAfterItsNotes: with AckNotes, a review's marker that
// arrives while a note before it is still with the reader does not end
// the review; the note's Handled does. (A Remote's boundary wait could
// otherwise end before the note reached the agent's host.)
func TestReviewEndsAfterItsNotes(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newAckClient(t, nc, "acme", "s1")
	seq, err := c.Publish(context.Background(), stepEntries("s1", 1, false))
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []Note{
		{ID: noteID("s1", seq, 0), Kind: KindSteer, Advice: advisor.Advice{Note: "first"}},
		{ID: noteID("s1", seq, 1), Kind: KindReviewed},
		{ID: noteID("s1", seq+1, 0), Kind: KindAside, Advice: advisor.Advice{Note: "later"}},
	} {
		n.Tenant, n.Session, n.Seq = "acme", "s1", seq
		data, err := json.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := js.Publish(context.Background(), NoteSubject("acme", "s1"), data, jetstream.WithMsgID(n.ID)); err != nil {
			t.Fatal(err)
		}
	}
	if n := <-c.Notes(); n.Advice.Note != "first" {
		t.Fatalf("first note %+v", n)
	}
	// The client reads in order: with the later note here, the marker
	// between them was read.
	if n := <-c.Notes(); n.Advice.Note != "later" {
		t.Fatalf("second note %+v", n)
	}
	if b := c.Backlog(); b != 1 {
		t.Fatalf("backlog %d before the note was handled, want 1", b)
	}
	c.Handled()
	if b, r := c.Backlog(), c.Reviewed(); b != 0 || r != 1 {
		t.Fatalf("after the note was handled: backlog %d, reviewed %d; want 0, 1", b, r)
	}
	c.Handled() // the later note holds no review back
	if err := c.WaitBacklogBelow(context.Background(), 1); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteDeliversTheFleetsNotes: the agent's steps, reported as a
// local runtime gets them, reach a worker through a Remote, and the
// worker's notes come back to the agent's host in the way the advisor
// chose; the backlog empties as the reviews end.
func TestRemoteDeliversTheFleetsNotes(t *testing.T) {
	s := natstest.Start(t)
	runWorker(t, s, WorkerOptions{Tenant: "acme"}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	h := newAgentHost()
	r := NewRemote(newAckClient(t, nc, "acme", "s1"), h, RemoteOptions{Logf: t.Logf})
	r.Start(context.Background())
	defer r.Stop()
	for i := 1; i <= 2; i++ {
		cursor := h.add(stepEntries("s1", i, false)...)
		r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: cursor})
		got := h.next(t)
		if want := "aside: Reviewed entry as1-" + strconv.Itoa(i) + " carefully; consider checking its output"; got != want {
			t.Fatalf("step %d: delivered %q, want %q", i, got, want)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.WaitBacklogBelow(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if st := r.Status(); st.Published != 2 || st.Dropped != 0 || st.Backlog != 0 || st.Notes[KindAside] != 2 {
		t.Fatalf("status %+v", st)
	}
}

// TestRemoteWithholds: with the agent's advisor.allowPromptInjection
// false, the fleet's notes are shown, never given to the agent.
func TestRemoteWithholds(t *testing.T) {
	s := natstest.Start(t)
	runWorker(t, s, WorkerOptions{Tenant: "acme"}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	h := newAgentHost()
	r := NewRemote(newAckClient(t, nc, "acme", "s1"), h, RemoteOptions{Withhold: true})
	r.Start(context.Background())
	defer r.Stop()
	r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.add(stepEntries("s1", 1, false)...)})
	if got := h.next(t); got[:9] != "withhold:" {
		t.Fatalf("delivered %q, want it withheld", got)
	}
}

// TestRemoteFailsOpen: with the fleet gone, Notify never blocks, the
// steps are dropped and counted, the trouble is told once, and the
// backlog wait ends.
func TestRemoteFailsOpen(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c, err := NewClient(context.Background(), nc, ClientOptions{Tenant: "acme", Session: "s1", PublishTimeout: 200 * time.Millisecond, AckNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	troubles := make(chan bool, 4)
	h := newAgentHost()
	r := NewRemote(c, h, RemoteOptions{OnTrouble: func(ok bool, _ error) { troubles <- ok }})
	r.Start(context.Background())
	defer r.Stop()
	s.Shutdown()
	s.WaitForShutdown()
	for i := 1; i <= 3; i++ {
		r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.add(stepEntries("s1", i, false)...)})
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := r.WaitBacklogBelow(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if ok := <-troubles; ok {
		t.Fatal("want the trouble told first")
	}
	if st := r.Status(); st.Dropped != 3 || st.Published != 0 || st.Backlog != 0 {
		t.Fatalf("status %+v, want 3 dropped", st)
	}
	select {
	case ok := <-troubles:
		t.Fatalf("trouble told again (%v)", ok)
	default:
	}
}

// TestProvisionKeepsWhatExists: an agent's Provision makes the streams a
// worker will find, and leaves a worker's own limits alone.
func TestProvisionKeepsWhatExists(t *testing.T) {
	s := natstest.Start(t)
	nc := connect(t, s)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := Provision(ctx, js, "acme", Limits{MaxSteps: 5, Memory: true}); err != nil {
		t.Fatal(err)
	}
	st, err := js.Stream(ctx, StepStream("acme"))
	if err != nil || st.CachedInfo().Config.MaxMsgs != 5 {
		t.Fatalf("stream %v, %v; want one of 5 steps", st, err)
	}
	ensureWith(t, nc, "acme", Limits{MaxSteps: 9, LeaseTTL: time.Second, Memory: true})
	if err := Provision(ctx, js, "acme", Limits{MaxSteps: 5, Memory: true}); err != nil {
		t.Fatal(err)
	}
	if st, _ = js.Stream(ctx, StepStream("acme")); st.CachedInfo().Config.MaxMsgs != 9 {
		t.Fatalf("Provision changed the workers' limit to %d", st.CachedInfo().Config.MaxMsgs)
	}
}

// TestRemoteGoesOnInANewProcess: a session that goes on in a new process
// (a restarted sidecar, a resumed agent) numbers its steps from the
// clock, after every number an earlier process used, so none is dropped
// as a repeat; primed, the fleet's advisor first gets what the agent's
// model sees.
func TestRemoteGoesOnInANewProcess(t *testing.T) {
	s := natstest.Start(t)
	reviewed := make(chan Reviewed, 16)
	runWorker(t, s, WorkerOptions{Tenant: "acme", OnReviewed: func(r Reviewed) { reviewed <- r }}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	ctx := context.Background()
	first := ClockSeq()
	c, err := NewClient(ctx, nc, ClientOptions{Tenant: "acme", Session: "s1", NextSeq: first})
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 2; i++ {
		if _, err := c.Publish(ctx, stepEntries("s1", i, false)); err != nil {
			t.Fatal(err)
		}
		<-reviewed
	}
	c.Close()
	next := ClockSeq()
	if next <= first+1 {
		t.Fatalf("ClockSeq %d after %d and %d", next, first, first+1)
	}
	c2, err := NewClient(ctx, nc, ClientOptions{Tenant: "acme", Session: "s1", NextSeq: next, AckNotes: true})
	if err != nil {
		t.Fatal(err)
	}
	h := newAgentHost()
	h.add(stepEntries("s1", 1, false)...)
	h.add(stepEntries("s1", 2, false)...)
	r := NewRemote(c2, h, RemoteOptions{Start: advisor.StartPrimed})
	r.Start(ctx)
	defer r.Stop()
	if got := <-reviewed; got.Seq != next || got.Notes != 0 {
		t.Fatalf("the primed view was reviewed as %+v; want step %d with no note (context only)", got, next)
	}
	r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.add(stepEntries("s1", 3, false)...)})
	if got := <-reviewed; got.Seq != next+1 || got.Notes != 1 {
		t.Fatalf("the new step was reviewed as %+v; want step %d with its note", got, next+1)
	}
	if d := h.next(t); d != "aside: Reviewed entry as1-3 carefully; consider checking its output" {
		t.Fatalf("delivered %q", d)
	}
}

// TestRemoteRewrittenHistory: after the agent's history is rewritten
// (a compaction, a branch switch), the worker's view is what the agent's
// model sees now, not the old history with the new one after it.
func TestRemoteRewrittenHistory(t *testing.T) {
	h := &host{}
	h.Append(stepEntries("s1", 1, false)...)
	h.RestartView()
	h.Append(stepEntries("s1", 9, false)...)
	view, _, _ := h.View(context.Background())
	if len(view) != 2 || view[0].ID != "as1-9" {
		t.Fatalf("view after a rewrite: %d entries, first %q; want step 9's two", len(view), view[0].ID)
	}
}
