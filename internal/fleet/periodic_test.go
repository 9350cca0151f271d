package fleet

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
)

// periodicFleet serves the forks of a periodic worker from fakellm with
// script, and returns the reviewer factory (a review every two tool
// calls) and the server.
func periodicFleet(t *testing.T, script string) (ReviewerFactory, *fakellm.Server) {
	t.Helper()
	return periodicFleetWith(t, script, true)
}

// periodicFleetWith is periodicFleet with allowPromptInjection allow.
func periodicFleetWith(t *testing.T, script string, allow bool) (ReviewerFactory, *fakellm.Server) {
	t.Helper()
	llmsrv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	m, err := anthropic.New(anthropic.Config{BaseURL: llmsrv.URL(), APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	f, err := PeriodicFactory(PeriodicConfig{
		Model:          m,
		Ref:            llm.Ref{Provider: "anthropic", Model: "m"},
		Render:         func(es []session.Entry) string { return history.Render(es, history.AdvisorOptions(nil)) },
		AllowInjection: allow,
		Options: func(info SessionInfo) advisor.PeriodicOptions {
			return advisor.PeriodicOptions{EveryToolCalls: 2, Logf: func(format string, args ...any) { t.Logf(info.Session+": "+format, args...) }}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	return f, llmsrv
}

// waitReviewed waits for the worker's review of step seq.
func waitReviewed(t *testing.T, reviewed <-chan Reviewed, seq uint64) Reviewed {
	t.Helper()
	for {
		select {
		case r := <-reviewed:
			if r.Seq == seq {
				return r
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("step %d not reviewed within 30s", seq)
		}
	}
}

// forked reports whether the i-th model request (a fork) holds text.
func forked(t *testing.T, llmsrv *fakellm.Server, i int, text string) bool {
	t.Helper()
	reqs := llmsrv.Requests()
	if len(reqs) <= i {
		t.Fatalf("%d model requests, want a fork #%d", len(reqs), i+1)
	}
	return bytes.Contains(reqs[i].Body, []byte(text))
}

// TestPeriodicReviewer runs the periodic advisor on a worker: every two
// tool calls it forks the worker's view of the session onto the
// worker's model; a NO_CHANGE delivers nothing, a CORRECTION reaches the
// agent's client once, as a steer note of the step whose call made the
// review due.
func TestPeriodicReviewer(t *testing.T) {
	f, llmsrv := periodicFleet(t, `
rules:
  - steps:
      - text: NO_CHANGE
      - text: "CORRECTION\nRun the tests before committing."
`)
	s := natstest.Start(t)
	reviewed := make(chan Reviewed, 16)
	runWorker(t, s, WorkerOptions{Tenant: "acme", Reviewer: f, OnReviewed: func(r Reviewed) { reviewed <- r }}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 3; i++ {
		publish(t, c, "s1", i)
		r := waitReviewed(t, reviewed, uint64(i))
		if i == 2 && (len(r.Models) != 1 || r.Models[0].Model != "anthropic/m" || r.Models[0].Usage.Output == 0) {
			t.Fatalf("step 2's review %+v, want the fork's usage", r)
		}
		if i != 2 && (r.Notes != 0 || len(r.Models) != 0) {
			t.Fatalf("step %d's review %+v, want no fork and no note", i, r)
		}
	}
	publish(t, c, "s1", 4)
	n := waitNote(t, c)
	if n.ID != "s1.4.0" || n.Kind != KindSteer || n.Advice.Note != "Run the tests before committing." || n.Advice.Severity != advisor.SeverityConcern {
		t.Fatalf("note %+v, want step 4's steer", n)
	}
	if r := waitReviewed(t, reviewed, 4); r.Notes != 1 {
		t.Fatalf("step 4's review %+v, want one note", r)
	}
	if got := len(llmsrv.Requests()); got != 2 {
		t.Fatalf("%d forks, want 2 (steps 2 and 4)", got)
	}
	if !forked(t, llmsrv, 1, "ls /dir3") || !forked(t, llmsrv, 1, "ls /dir1") || !forked(t, llmsrv, 1, "NO_CHANGE") {
		t.Error("the second fork lacks the session's steps or the review prompt")
	}
	// One more step: no fork is due, and nothing else reaches the agent.
	publish(t, c, "s1", 5)
	waitReviewed(t, reviewed, 5)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.WaitBacklogBelow(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-c.Notes():
		t.Errorf("extra note %+v", n)
	default:
	}
	if got := noteCount(t, nc, "acme", "s1"); got != 6 {
		t.Errorf("the notes stream holds %d messages, want 6 (5 reviews' ends and one steer)", got)
	}
	if c.Repeats() != 0 {
		t.Errorf("repeats %d", c.Repeats())
	}
}

// TestPeriodicTakeover kills the periodic worker after it published step
// 4's correction and before it acknowledged the step: the other worker
// takes the session over, primed with the steps reviewed; step 4 comes
// again (its counters start afresh, so no fork is due, and its closing
// message is deduplicated by the note's id), and the review step 5 makes
// due forks
// the primed view and steers its correction: each correction reaches
// the agent once.
func TestPeriodicTakeover(t *testing.T) {
	f, llmsrv := periodicFleet(t, `
rules:
  - steps:
      - text: NO_CHANGE
      - text: "CORRECTION\nFirst correction."
      - text: "CORRECTION\nSecond correction."
`)
	s := natstest.Start(t)
	hit := make(chan struct{})
	unblock := make(chan struct{})
	takenA := make(chan advisor.StartPoint, 2)
	takenB := make(chan advisor.StartPoint, 2)
	reviewedA := make(chan Reviewed, 16)
	reviewedB := make(chan Reviewed, 16)
	a := runWorker(t, s, WorkerOptions{
		Tenant: "acme", Reviewer: f,
		OnReviewed: func(r Reviewed) { reviewedA <- r },
		OnSession: func(_ string, owned bool, start advisor.StartPoint) {
			if owned {
				takenA <- start
			}
		},
	}, func(w *Worker) {
		w.beforeAck = func(st Step) {
			if st.Seq == 4 {
				close(hit)
				<-unblock
			}
		}
	})
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	for i := 1; i <= 3; i++ {
		publish(t, c, "s1", i)
		waitReviewed(t, reviewedA, uint64(i))
	}
	if start := <-takenA; start != advisor.StartAtBeginning {
		t.Fatalf("the first owner started at %v", start)
	}
	publish(t, c, "s1", 4)
	if n := waitNote(t, c); n.ID != "s1.4.0" || n.Kind != KindSteer || n.Advice.Note != "First correction." {
		t.Fatalf("note %+v, want step 4's steer", n)
	}
	<-hit // published, not acknowledged
	runWorker(t, s, WorkerOptions{
		Tenant: "acme", Reviewer: f,
		OnReviewed: func(r Reviewed) { reviewedB <- r },
		OnSession: func(_ string, owned bool, start advisor.StartPoint) {
			if owned {
				takenB <- start
			}
		},
	}, nil)
	a.kill()
	close(unblock)
	if start := <-takenB; start != advisor.StartPrimed {
		t.Fatalf("the session was taken over at %v, want primed", start)
	}
	if r := waitReviewed(t, reviewedB, 4); len(r.Models) != 0 {
		t.Fatalf("step 4 again: %+v, want no fork (the counters start afresh)", r)
	}
	publish(t, c, "s1", 5)
	if n := waitNote(t, c); n.ID != "s1.5.0" || n.Kind != KindSteer || n.Advice.Note != "Second correction." {
		t.Fatalf("note %+v, want step 5's steer (steps 4 and 5 made two calls)", n)
	}
	waitReviewed(t, reviewedB, 5)
	if got := len(llmsrv.Requests()); got != 3 {
		t.Fatalf("%d forks, want 3 (steps 2, 4, 5)", got)
	}
	if !forked(t, llmsrv, 2, "ls /dir1") || !forked(t, llmsrv, 2, "ls /dir5") {
		t.Error("the new owner's fork lacks the primed steps or its own")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.WaitBacklogBelow(ctx, 1); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-c.Notes():
		t.Errorf("extra note %+v", n)
	default:
	}
	if got := noteCount(t, nc, "acme", "s1"); got != 7 {
		t.Errorf("the notes stream holds %d messages, want 7 (5 reviews' ends, 2 steers; step 4's second end deduplicated)", got)
	}
	if c.Repeats() != 0 {
		t.Errorf("repeats %d", c.Repeats())
	}
}

// TestPeriodicWithheldAndRuns: with allowPromptInjection false the
// correction goes back withheld; a run's end, published as its own step,
// ends the run the worker made up, and the next step's calls count in a
// new one.
func TestPeriodicWithheldAndRuns(t *testing.T) {
	f, llmsrv := periodicFleetWith(t, `
rules:
  - steps:
      - text: "CORRECTION\nRun the tests before committing."
      - text: "CORRECTION\nAnd again."
`, false)
	s := natstest.Start(t)
	reviewed := make(chan Reviewed, 16)
	runWorker(t, s, WorkerOptions{Tenant: "acme", Reviewer: f, OnReviewed: func(r Reviewed) { reviewed <- r }}, nil)
	nc := connect(t, s)
	ensure(t, nc, "acme")
	c := newClient(t, nc, "acme", "s1")
	publish(t, c, "s1", 1)
	publish(t, c, "s1", 2)
	if n := waitNote(t, c); n.ID != "s1.2.0" || n.Kind != KindWithhold || n.Advice.Note != "Run the tests before committing." {
		t.Fatalf("note %+v, want step 2's correction withheld", n)
	}
	waitReviewed(t, reviewed, 2)
	// The run ends (a step of its own, no entries); step 4's call is the
	// first counted since step 2's review, step 5's the second: counted
	// only if a new run was started for them.
	if _, err := c.Publish(context.Background(), nil, advisor.Event{Kind: advisor.EventRunEnded}); err != nil {
		t.Fatal(err)
	}
	waitReviewed(t, reviewed, 3)
	if _, err := c.Publish(context.Background(), stepEntries("s1", 4, false)); err != nil {
		t.Fatal(err)
	}
	waitReviewed(t, reviewed, 4)
	if got := len(llmsrv.Requests()); got != 1 {
		t.Fatalf("%d forks after the new run's first call, want 1", got)
	}
	if _, err := c.Publish(context.Background(), stepEntries("s1", 5, false)); err != nil {
		t.Fatal(err)
	}
	if n := waitNote(t, c); n.ID != "s1.5.0" || n.Kind != KindWithhold || n.Advice.Note != "And again." {
		t.Fatalf("note %+v, want step 5's correction withheld", n)
	}
}
