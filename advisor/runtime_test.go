package advisor

import (
	"context"
	"encoding/json"
	"errors"
	"iter"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
)

// bound is the most any test waits for the runtime.
const bound = 10 * time.Second

// fakeHost serves appended entries and records deliveries.
type fakeHost struct {
	mu      sync.Mutex
	entries []session.Entry
	asides  []Advice
	steers  []Advice
	cards   []Advice
	resumes int
	// viewFrom is where the primary's view starts, as after a compaction
	// that kept entries[viewFrom:].
	viewFrom int
	// steerErr, if set, is what Steer returns.
	steerErr error
}

func (h *fakeHost) View(_ context.Context) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	from := max(0, min(h.viewFrom, len(h.entries)))
	return slicesClone(h.entries[from:]), len(h.entries), nil
}

func (h *fakeHost) Since(_ context.Context, cursor int) ([]session.Entry, int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	cursor = max(0, min(cursor, len(h.entries)))
	return slicesClone(h.entries[cursor:]), len(h.entries), nil
}

func slicesClone(e []session.Entry) []session.Entry { return append([]session.Entry(nil), e...) }

func (h *fakeHost) Aside(_ context.Context, n Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asides = append(h.asides, n)
	return nil
}

func (h *fakeHost) Steer(_ context.Context, n Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.steerErr != nil {
		return h.steerErr
	}
	h.steers = append(h.steers, n)
	return nil
}

func (h *fakeHost) Card(_ context.Context, n Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cards = append(h.cards, n)
	return nil
}

func (h *fakeHost) Resume(context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.resumes++
	return nil
}

// step appends one assistant message of the primary and returns the event
// that reports it.
func (h *fakeHost) step(text string) Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, session.Entry{
		ID: "e" + text,
		Body: &session.Message{
			Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(text)}},
			StopReason: llm.StopEndTurn,
		},
	})
	return Event{Kind: EventStepEnded, Cursor: len(h.entries)}
}

// harness runs a runtime and reports each time its drain loop goes idle.
type harness struct {
	t    testing.TB
	r    *Runtime
	host *fakeHost
	idle chan struct{}
	warn chan string
}

func startRuntime(t testing.TB, m llm.Model, mod func(*Options)) *harness {
	t.Helper()
	h := &harness{t: t, host: &fakeHost{}, idle: make(chan struct{}, 64), warn: make(chan string, 8)}
	opts := Options{Model: m, Host: h.host, OnWarning: func(s string) { h.warn <- s }, Logf: t.Logf}
	if mod != nil {
		mod(&opts)
	}
	r, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	r.afterDrain = func() {
		select {
		case h.idle <- struct{}{}:
		default:
		}
	}
	h.r = r
	r.Start(context.Background())
	t.Cleanup(r.Stop)
	return h
}

// waitFor waits, boundedly, until the runtime is idle with cond true.
func (h *harness) waitFor(what string, cond func(Status) bool) {
	h.t.Helper()
	deadline := time.NewTimer(bound)
	defer deadline.Stop()
	for {
		select {
		case <-h.idle:
			if s := h.r.Status(); cond(s) && !s.Pending {
				return
			}
		case <-deadline.C:
			h.t.Fatalf("timed out waiting for %s; status %+v", what, h.r.Status())
		}
	}
}

func fakeServer(t testing.TB, script string) (*fakellm.Server, llm.Model) {
	t.Helper()
	srv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// requestMessages returns the messages of a request body, with cache
// markers removed.
func requestMessages(t *testing.T, body []byte) []any {
	t.Helper()
	var req struct {
		Messages []any `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	for _, m := range req.Messages {
		stripCache(m)
	}
	return req.Messages
}

func stripCache(v any) {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "cache_control")
		for _, x := range v {
			stripCache(x)
		}
	case []any:
		for _, x := range v {
			stripCache(x)
		}
	}
}

func TestRuntimeReviewsAStep(t *testing.T) {
	srv, m := fakeServer(t, `
rules:
  - steps:
      - text: Nothing to add.
`)
	h := startRuntime(t, m, nil)
	h.r.Notify(h.host.step("I ran go test ./pkg and it passed"))
	h.waitFor("one review", func(s Status) bool { return s.Reviews == 1 })

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	body := string(reqs[0].Body)
	for _, want := range []string{"### Session update", "I ran go test ./pkg and it passed", `"advise"`} {
		if !strings.Contains(body, want) {
			t.Errorf("request body lacks %q:\n%s", want, body)
		}
	}
	s := h.r.Status()
	if s.ContextMessages != 2 || s.Usage.Total() == 0 {
		t.Errorf("status %+v: want 2 context messages and some usage", s)
	}
}

func TestRuntimeDeliversAdvice(t *testing.T) {
	_, m := fakeServer(t, `
rules:
  - steps:
      - tool_calls:
          - name: advise
            arguments: {note: "Run the tests before committing.", severity: concern}
      - tool_calls:
          - name: advise
            arguments: {note: "Rename tmp to buffer for clarity.", severity: nit}
`)
	h := startRuntime(t, m, nil)
	h.r.Notify(h.host.step("committing now"))
	h.waitFor("first review", func(s Status) bool { return s.Reviews == 1 })
	h.r.Notify(h.host.step("renamed things"))
	h.waitFor("second review", func(s Status) bool { return s.Reviews == 2 })

	h.host.mu.Lock()
	defer h.host.mu.Unlock()
	if len(h.host.steers) != 1 || h.host.steers[0].Severity != SeverityConcern {
		t.Fatalf("steers %+v, want one concern", h.host.steers)
	}
	got := FormatAdvisories(h.host.steers)
	if !strings.HasPrefix(got, `<advisory severity="concern"`) || !strings.Contains(got, "Run the tests before committing.") {
		t.Errorf("steer renders as %q", got)
	}
	if len(h.host.asides) != 1 || h.host.asides[0].Severity != SeverityNit {
		t.Errorf("asides %+v, want one nit", h.host.asides)
	}
}

func TestRuntimeContextIsAppendOnly(t *testing.T) {
	srv, m := fakeServer(t, `
rules:
  - steps:
      - tool_calls:
          - name: advise
            arguments: {note: "Check the error returned by Close.", severity: nit}
      - text: Nothing to add.
`)
	h := startRuntime(t, m, nil)
	h.r.Notify(h.host.step("wrote file.go"))
	h.waitFor("first review", func(s Status) bool { return s.Reviews == 1 })
	h.r.Notify(h.host.step("second step text"))
	h.waitFor("second review", func(s Status) bool { return s.Reviews == 2 })

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2 (the first review ends with its advise call)", len(reqs))
	}
	prev := requestMessages(t, reqs[0].Body)
	for i := 1; i < len(reqs); i++ {
		cur := requestMessages(t, reqs[i].Body)
		if len(cur) <= len(prev) || !reflect.DeepEqual(cur[:len(prev)], prev) {
			t.Fatalf("request %d does not extend request %d:\n%s\nvs\n%s", i, i-1, reqs[i].Body, reqs[i-1].Body)
		}
		prev = cur
	}
	// request 1 = update 1, advise call, result, update 2.
	if len(prev) != 4 || !strings.Contains(string(reqs[1].Body), "second step text") {
		t.Errorf("last request has %d messages, want 4:\n%s", len(prev), reqs[1].Body)
	}
}

// TestRuntimeSecondAdviseIsHeld: a second distinct concern of one update
// is held, not dropped, and reaches the agent with the next update (issue
// 31); MaxNotesPerUpdate lets it through at once.
func TestRuntimeSecondAdviseIsHeld(t *testing.T) {
	const script = `
rules:
  - steps:
      - tool_calls:
          - name: advise
            arguments: {note: "Run the tests before committing.", severity: concern}
          - name: advise
            arguments: {note: "Also update the changelog entry.", severity: concern}
      - text: Nothing to add.
`
	// What reached the agent, steered or (in the interrupt cooldown the
	// first concern starts) as an aside.
	steered := func(h *harness) []string {
		h.host.mu.Lock()
		defer h.host.mu.Unlock()
		var notes []string
		for _, a := range append(slices.Clone(h.host.steers), h.host.asides...) {
			notes = append(notes, a.Note)
		}
		return notes
	}
	t.Run("one per update", func(t *testing.T) {
		srv, m := fakeServer(t, script)
		h := startRuntime(t, m, nil)
		h.r.Notify(h.host.step("committing"))
		h.waitFor("one review", func(s Status) bool { return s.Reviews == 1 })
		if got := steered(h); len(got) != 1 || got[0] != "Run the tests before committing." {
			t.Fatalf("after the first update the agent got %q, want the first concern only", got)
		}
		h.r.Notify(h.host.step("updated the docs"))
		h.waitFor("the second review", func(s Status) bool { return s.Reviews == 2 })
		// The first review ends with its advise calls: the advisor reads
		// their results in the next review's request.
		body := string(srv.Requests()[1].Body)
		if !strings.Contains(body, "Held for the next update") || !strings.Contains(body, "1 note was already delivered in this update") {
			t.Errorf("the advisor was not told its second note was held:\n%s", body)
		}
		if got := steered(h); len(got) != 2 || got[1] != "Also update the changelog entry." {
			t.Fatalf("after the second update the agent got %q, want the held concern too", got)
		}
	})
	t.Run("two per update", func(t *testing.T) {
		_, m := fakeServer(t, script)
		h := startRuntime(t, m, func(o *Options) { o.MaxNotesPerUpdate = 2 })
		h.r.Notify(h.host.step("committing"))
		h.waitFor("one review", func(s Status) bool { return s.Reviews == 1 })
		if got := steered(h); len(got) != 2 {
			t.Fatalf("with two per update the agent got %q, want both concerns", got)
		}
	})
}

func TestRuntimeStopWithStalledReview(t *testing.T) {
	srv, m := fakeServer(t, `
rules:
  - steps:
      - fault: {stall: true}
`)
	h := startRuntime(t, m, nil)
	h.r.Notify(h.host.step("a step"))
	// Wait until the request is at the server.
	deadline := time.Now().Add(bound)
	for len(srv.Requests()) == 0 && time.Now().Before(deadline) {
		runtime.Gosched()
	}
	done := make(chan struct{})
	go func() { h.r.Stop(); close(done) }()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatal("Stop did not return with a review stalled")
	}
}

// blockingModel is an in-package model: each Stream call is announced on
// calls and answered by what the test sends on replies.
type blockingModel struct {
	calls   chan llm.Request
	replies chan fakeReply
}

type fakeReply struct {
	text string
	err  error
	// advise, if set, makes the reply one advise call with this note at
	// concern severity.
	advise string
}

func newBlockingModel() *blockingModel {
	return &blockingModel{calls: make(chan llm.Request), replies: make(chan fakeReply)}
}

func (m *blockingModel) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	return func(yield func(llm.Event, error) bool) {
		select {
		case m.calls <- req:
		case <-ctx.Done():
			yield(llm.Event{}, ctx.Err())
			return
		}
		var rep fakeReply
		select {
		case rep = <-m.replies:
		case <-ctx.Done():
			yield(llm.Event{}, ctx.Err())
			return
		}
		if rep.err != nil {
			yield(llm.Event{}, rep.err)
			return
		}
		if rep.advise != "" {
			args, _ := json.Marshal(map[string]string{"note": rep.advise, "severity": "concern"})
			for _, ev := range []llm.Event{
				{Type: llm.EventToolCallStart, ToolCallID: "call-" + rep.advise, ToolName: adviseToolName},
				{Type: llm.EventToolCallEnd, Arguments: args},
				{Type: llm.EventStop, StopReason: llm.StopToolUse},
			} {
				if !yield(ev, nil) {
					return
				}
			}
			return
		}
		if !yield(llm.Event{Type: llm.EventTextDelta, Text: rep.text}, nil) {
			return
		}
		yield(llm.Event{Type: llm.EventUsage, Usage: llm.Usage{Input: 10, Output: 2}}, nil)
		yield(llm.Event{Type: llm.EventStop, StopReason: llm.StopEndTurn}, nil)
	}
}

func recv[T any](t *testing.T, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(bound):
		t.Fatal("timed out")
		panic("unreachable")
	}
}

func lastUserText(req llm.Request) string {
	return req.Messages[len(req.Messages)-1].Text()
}

func TestRuntimeCoalescesStepsDuringAReview(t *testing.T) {
	m := newBlockingModel()
	h := startRuntime(t, m, nil)
	h.r.Notify(h.host.step("step one"))
	first := recv(t, m.calls)
	if !strings.Contains(lastUserText(first), "step one") {
		t.Fatalf("first update %q", lastUserText(first))
	}
	h.r.Notify(h.host.step("step two"))
	h.r.Notify(h.host.step("step three"))
	m.replies <- fakeReply{text: "ok"}
	second := recv(t, m.calls)
	u := lastUserText(second)
	if strings.Count(u, "### Session update") != 1 || !strings.Contains(u, "step two") || !strings.Contains(u, "step three") || strings.Contains(u, "step one") {
		t.Errorf("second update is not the two coalesced steps:\n%s", u)
	}
	if len(second.Messages) != 3 {
		t.Errorf("second request has %d messages, want 3", len(second.Messages))
	}
	m.replies <- fakeReply{text: "ok"}
	h.waitFor("two reviews", func(s Status) bool { return s.Reviews == 2 })
}

func TestRuntimeRetriesAndDropsBacklog(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		m := newBlockingModel()
		host := &fakeHost{}
		warn := make(chan string, 1)
		r, err := New(Options{Model: m, Host: host, OnWarning: func(s string) { warn <- s }})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		r.Start(ctx)
		defer r.Stop()

		fail := errors.New("500 internal server error")
		r.Notify(host.step("step one"))
		start := time.Now()
		for i := range MaxConsecutiveFailures {
			req := <-m.calls
			if got := time.Since(start); got != time.Duration(i)*RetryDelay {
				t.Errorf("attempt %d after %v, want %v", i+1, got, time.Duration(i)*RetryDelay)
			}
			if len(req.Messages) != 1 || !strings.Contains(lastUserText(req), "step one") {
				t.Errorf("attempt %d: context not rolled back: %d messages", i+1, len(req.Messages))
			}
			m.replies <- fakeReply{err: fail}
		}
		w := <-warn
		if !strings.Contains(w, "dropping the backlog") {
			t.Errorf("warning %q", w)
		}
		synctest.Wait()
		if s := r.Status(); s.Failures != 3 || s.Dropped != 1 || s.Reviews != 0 || s.ContextMessages != 0 {
			t.Errorf("status %+v", s)
		}

		r.Notify(host.step("step two"))
		req := <-m.calls
		u := lastUserText(req)
		if len(req.Messages) != 1 || !strings.Contains(u, "step two") || strings.Contains(u, "step one") {
			t.Errorf("after the drop, the update is %q (%d messages)", u, len(req.Messages))
		}
		m.replies <- fakeReply{text: "ok"}
		synctest.Wait()
		if s := r.Status(); s.Reviews != 1 || s.ContextMessages != 2 {
			t.Errorf("status %+v", s)
		}
	})
}

func TestRuntimeRetrySucceeds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, m, host := startBlocking(t)
		defer r.Stop()
		r.Notify(host.step("step one"))
		<-m.calls
		m.replies <- fakeReply{err: errors.New("boom")}
		start := time.Now()
		req := <-m.calls
		if d := time.Since(start); d != RetryDelay {
			t.Errorf("retried after %v, want %v", d, RetryDelay)
		}
		if !strings.Contains(lastUserText(req), "step one") {
			t.Errorf("retry lost the step: %q", lastUserText(req))
		}
		m.replies <- fakeReply{text: "ok"}
		synctest.Wait()
		if s := r.Status(); s.Reviews != 1 || s.Failures != 1 {
			t.Errorf("status %+v", s)
		}
	})
}
