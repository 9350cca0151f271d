package advisorhost_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// world is a real agent against fakellm, with a host over it and a fake
// notify func recording what the host forwards.
type world struct {
	srv  *fakellm.Server
	ag   *agent.Agent
	sess *session.Session
	host *advisorhost.Host

	mu     sync.Mutex
	events []advisor.Event
}

func newWorld(t testing.TB, script string) *world {
	t.Helper()
	dir := t.TempDir()
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ts, err := tools.NewSession(tools.Options{Cwd: dir, ArtifactsDir: sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	srv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	w := &world{srv: srv, sess: sess}
	var fwd hookRef
	w.ag, err = agent.New(agent.Options{Model: m, Session: sess, Tools: ts.Tools(), Hooks: []agent.Hook{&fwd}})
	if err != nil {
		t.Fatal(err)
	}
	w.host = advisorhost.New(w.ag, sess)
	fwd.h = w.host.Hook()
	w.host.Forward(func(ev advisor.Event) {
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.mu.Unlock()
	})
	t.Cleanup(w.host.Close)
	return w
}

// hookRef forwards to a hook set after the agent is built.
type hookRef struct{ h agent.Hook }

func (r *hookRef) Boundary(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
	return r.h.Boundary(ctx, b)
}

func (w *world) got() []advisor.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]advisor.Event(nil), w.events...)
}

func advisorEntries(s *session.Session) []*session.Custom {
	var out []*session.Custom
	for _, e := range s.Entries() {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == advisorhost.CustomType {
			out = append(out, c)
		}
	}
	return out
}

func TestEventsAsideAndSince(t *testing.T) {
	w := newWorld(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "true"}}]
      - text: "done"
`)
	ctx := context.Background()
	if err := w.host.Aside(ctx, advisor.Advice{Note: "ASIDE-one"}); err != nil {
		t.Fatal(err)
	}
	if err := w.host.Aside(ctx, advisor.Advice{Note: "ASIDE-two", Severity: advisor.SeverityNit}); err != nil {
		t.Fatal(err)
	}
	if err := w.ag.Prompt(ctx, "go"); err != nil {
		t.Fatal(err)
	}
	reqs := w.srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	if strings.Contains(string(reqs[0].Body), "ASIDE-one") {
		t.Error("the aside reached the model before a step boundary")
	}
	if b := string(reqs[1].Body); !strings.Contains(b, "ASIDE-one") || !strings.Contains(b, "ASIDE-two") {
		t.Error("the second request lacks the queued asides")
	}
	cs := advisorEntries(w.sess)
	if len(cs) != 1 || !cs[0].InContext || !cs[0].Display {
		t.Fatalf("advisor entries = %+v, want one aside batch, displayed and in context", cs)
	}

	evs := w.got()
	var kinds []advisor.EventKind
	for _, ev := range evs {
		kinds = append(kinds, ev.Kind)
	}
	want := []advisor.EventKind{advisor.EventUserResumed, advisor.EventStepEnded, advisor.EventStepEnded, advisor.EventRunEnded, advisor.EventRunEnded}
	if strings.Join(strs(kinds), ",") != strings.Join(strs(want), ",") {
		t.Fatalf("events = %v, want %v", kinds, want)
	}
	if last := evs[2].Cursor; last != w.sess.Len() {
		t.Errorf("last step_ended cursor = %d, want the session length %d", last, w.sess.Len())
	}
	if evs[1].Cursor <= 0 || evs[1].Cursor >= evs[2].Cursor {
		t.Errorf("step cursors %d, %d: want increasing", evs[1].Cursor, evs[2].Cursor)
	}
	entries, next, err := w.host.Since(ctx, evs[1].Cursor)
	if err != nil || next != w.sess.Len() || len(entries) != next-evs[1].Cursor {
		t.Errorf("Since(%d) = %d entries, %d, %v", evs[1].Cursor, len(entries), next, err)
	}
}

func TestCardSteerResume(t *testing.T) {
	w := newWorld(t, `
rules:
  - steps:
      - text: "acted on it"
`)
	ctx := context.Background()
	if err := w.host.Card(ctx, advisor.Advice{Note: "CARD-note", Severity: advisor.SeverityConcern}); err != nil {
		t.Fatal(err)
	}
	cs := advisorEntries(w.sess)
	if len(cs) != 1 || !cs[0].InContext || !cs[0].Display || !strings.Contains(cs[0].Content[0].Text, "CARD-note") {
		t.Fatalf("after Card: advisor entries = %+v, want one displayed card, in context for the next resume", cs)
	}
	if err := w.host.Steer(ctx, advisor.Advice{Note: "STEER-note", Severity: advisor.SeverityConcern}); err != nil {
		t.Fatal(err)
	}
	idle := make(chan struct{})
	var once sync.Once
	unsub := w.ag.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventIdle {
			once.Do(func() { close(idle) })
		}
	})
	defer unsub()
	if err := w.host.Resume(ctx); err != nil {
		t.Fatal(err)
	}
	<-idle
	w.host.Close() // waits for the resumed run's goroutine
	reqs := w.srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1 (the resumed run)", len(reqs))
	}
	body := string(reqs[0].Body)
	if !strings.Contains(body, "STEER-note") || !strings.Contains(body, "CARD-note") {
		t.Errorf("resumed request: want the steer and the card; body %s", body)
	}
	if !strings.Contains(body, "weigh it and continue") {
		t.Error("resumed request lacks the resume message")
	}
	for _, ev := range w.got() {
		if ev.Kind == advisor.EventUserResumed {
			t.Error("a run the advisor resumed was reported as a user resume")
		}
	}
}

func strs(ks []advisor.EventKind) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = string(k)
	}
	return out
}
