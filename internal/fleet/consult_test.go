package fleet

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm/anthropic"
)

// consultingAgent is session s1's agent side of tenant acme on s: its
// host and a Remote started over it, stopped when the test ends.
func consultingAgent(t *testing.T, s *server.Server) (*Remote, *agentHost) {
	t.Helper()
	nc := connect(t, s)
	ensure(t, nc, "acme")
	h := newAgentHost()
	r := NewRemote(newAckClient(t, nc, "acme", "s1"), h, RemoteOptions{})
	r.Start(context.Background())
	t.Cleanup(r.Stop)
	return r, h
}

// TestConsultThroughTheFleet: the agent's question reaches the worker
// that owns its session once the step before it was reviewed; the
// advisor answers with the session in its context, and the answer comes
// back escaped.
func TestConsultThroughTheFleet(t *testing.T) {
	llmsrv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - name: consult
    match: ["### Consult"]
    steps:
      - text: "Staging first & keep the <backup>."
  - name: review
    repeat: true
    steps:
      - text: Nothing to add.
`))
	m, err := anthropic.New(anthropic.Config{BaseURL: llmsrv.URL(), APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	factory := func(info SessionInfo, h advisor.Host) (*advisor.Runtime, error) {
		return advisor.New(advisor.Options{Model: m, ModelName: "anthropic/m", Host: h, Start: info.Start, ConsultMaxPerRun: 1})
	}
	s := natstest.Start(t)
	runWorker(t, s, WorkerOptions{Tenant: "acme", Factory: factory}, nil)
	r, h := consultingAgent(t, s)
	r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.add(stepEntries("s1", 1, false)...)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	answer, err := r.Consult(ctx, "Prod or staging?")
	if err != nil || answer != "Staging first &amp; keep the &lt;backup&gt;." {
		t.Fatalf("Consult = %q, %v", answer, err)
	}
	var review, consult string
	for _, req := range llmsrv.Requests() {
		switch req.Rule {
		case "review":
			review = string(req.Body)
		case "consult":
			consult = string(req.Body)
		}
	}
	if review == "" || consult == "" {
		t.Fatalf("requests: review %t, consult %t; want both", review != "", consult != "")
	}
	step, q := strings.Index(consult, "ls /dir1"), strings.Index(consult, "Prod or staging?")
	if step < 0 || q < step {
		t.Errorf("the consult holds the step at %d and the question at %d; want the step first", step, q)
	}
	// The worker's advisor.consult.maxPerRun is 1: its refusal comes back
	// as the advisor's, worded by ask_advisor.
	_, err = r.Consult(ctx, "And now?")
	if !errors.Is(err, advisor.ErrConsultLimit) || !strings.Contains(advisor.ConsultError(err), "maxPerRun is 1") {
		t.Errorf("second question: %v (%s)", err, advisor.ConsultError(err))
	}
}

// TestConsultUnavailable: with no worker holding the session the
// question fails at once as unavailable; a worker with no advisor model
// (the rules reviewer) says it is unavailable too.
func TestConsultUnavailable(t *testing.T) {
	s := natstest.Start(t)
	r, h := consultingAgent(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := r.Consult(ctx, "Anyone?")
	if !errors.Is(err, ErrNoWorker) || !strings.Contains(advisor.ConsultError(err), "unavailable") {
		t.Errorf("no worker: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("no worker took %v to say so", d)
	}

	reviewed := make(chan Reviewed, 1)
	runWorker(t, s, WorkerOptions{Tenant: "acme", OnReviewed: func(rv Reviewed) { reviewed <- rv }}, nil)
	r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.add(stepEntries("s1", 1, false)...)})
	<-reviewed // the worker holds the session now
	_, err = r.Consult(ctx, "Anyone?")
	if !errors.Is(err, advisor.ErrNoConsultModel) || !strings.Contains(advisor.ConsultError(err), "unavailable") {
		t.Errorf("a rules worker: %v", err)
	}
}

// TestConsultPeriodicWorker: a periodic worker answers a question with a
// fork of its view of the session, like a review.
func TestConsultPeriodicWorker(t *testing.T) {
	f, llmsrv := periodicFleet(t, `
rules:
  - name: consult
    match: ["Prod or staging?"]
    steps:
      - text: "Staging first."
  - name: review
    repeat: true
    steps:
      - text: NO_CHANGE
`)
	s := natstest.Start(t)
	runWorker(t, s, WorkerOptions{Tenant: "acme", Reviewer: f}, nil)
	r, h := consultingAgent(t, s)
	r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: h.add(stepEntries("s1", 1, false)...)})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	answer, err := r.Consult(ctx, "Prod or staging?")
	if err != nil || answer != "Staging first." {
		t.Fatalf("Consult = %q, %v", answer, err)
	}
	reqs := llmsrv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if reqs[len(reqs)-1].Rule != "consult" || !strings.Contains(last, "ls /dir1") || !strings.Contains(last, "Prod or staging?") {
		t.Errorf("the consult fork (rule %q) lacks the session's step or the question", reqs[len(reqs)-1].Rule)
	}
}
