package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// cleanupBound bounds what a test's cleanup waits for (a worker's Run
// returning, a server's shutdown): past it the test fails with every
// goroutine's stack instead of hanging until the test binary's timeout.
const cleanupBound = time.Minute

// bounded runs f and reports whether it returned within cleanupBound;
// if not, it fails t with every goroutine's stack (f goes on in the
// background, and must not use t).
func bounded(t testing.TB, what string, f func()) bool {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(cleanupBound):
		t.Errorf("%s did not end within %s; the goroutines:\n%s", what, cleanupBound, goroutines())
		return false
	}
}

// stallBound bounds a test's wait for what the fleet must do (a note, a
// session let go): far past what it takes, so that reaching it is a
// stall, and the test fails with every goroutine's stack.
const stallBound = 30 * time.Second

// goroutines is every goroutine's stack, to say where a test stalled.
func goroutines() string {
	buf := make([]byte, 4<<20)
	return string(buf[:runtime.Stack(buf, true)])
}

// sessionLog records what workers' OnSession tell (log.OnSession), and
// what a test adds with do, never blocking a worker, and wakes the
// test's waits on it (waitFor) at each change.
type sessionLog struct {
	mu      sync.Mutex
	events  []sessionEvent
	changed chan struct{} // a token once something changed
}

// sessionEvent is one call of OnSession.
type sessionEvent struct {
	owned bool
	start advisor.StartPoint
}

func newSessionLog() *sessionLog { return &sessionLog{changed: make(chan struct{}, 1)} }

// OnSession is a WorkerOptions.OnSession.
func (l *sessionLog) OnSession(_ string, owned bool, start advisor.StartPoint) {
	l.do(func([]sessionEvent) { l.events = append(l.events, sessionEvent{owned, start}) })
}

// do runs f with the events so far, under the log's lock, and wakes the
// waits: what f changes is what they wait for.
func (l *sessionLog) do(f func(events []sessionEvent)) {
	l.mu.Lock()
	f(l.events)
	l.mu.Unlock()
	select {
	case l.changed <- struct{}{}:
	default: // a token is there already: the waiter looks again
	}
}

// waitFor waits until cond, called under the log's lock with the events
// so far, holds, and returns those events; past stallBound it fails t
// with every goroutine's stack.
func (l *sessionLog) waitFor(t testing.TB, what string, cond func(events []sessionEvent) bool) []sessionEvent {
	t.Helper()
	stall := time.NewTimer(stallBound)
	defer stall.Stop()
	for {
		l.mu.Lock()
		events := slices.Clone(l.events)
		ok := cond(events)
		l.mu.Unlock()
		if ok {
			return events
		}
		select {
		case <-l.changed:
		case <-stall.C:
			t.Fatalf("%s: not within %s (the session's events: %+v); the goroutines:\n%s", what, stallBound, events, goroutines())
		}
	}
}

// owners counts the takes and the lets-go in events.
func owners(events []sessionEvent) (taken, letGo int) {
	for _, e := range events {
		if e.owned {
			taken++
		} else {
			letGo++
		}
	}
	return taken, letGo
}

func connect(t testing.TB, s *server.Server) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// stepEntries is one assistant call of `ls DIR` and its result, with ids
// made from the step number (so that a step's note names it).
func stepEntries(sess string, i int, fail bool) []session.Entry {
	id := fmt.Sprintf("%s-%d", sess, i)
	cmd := fmt.Sprintf("ls /dir%d", i)
	result := "a\nb\n"
	if fail {
		cmd = "ls /missing"
		result = "ls: cannot access '/missing': No such file or directory\n[exit code 2]"
	}
	args, _ := json.Marshal(map[string]string{"command": cmd})
	return []session.Entry{
		{ID: "a" + id, Time: time.Unix(1, 0).UTC(), Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: "c" + id, Name: "bash", Arguments: args}}}}},
		{ID: "r" + id, ParentID: "a" + id, Time: time.Unix(1, 0).UTC(), Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult("c"+id, fail, llm.Text(result))}}}},
	}
}

// perStep is a detector that writes one note for each assistant entry it
// sees, naming the entry: every step reviewed yields exactly one note.
type perStep struct{}

func (perStep) Observe(entries []session.Entry) []advisor.Advice {
	var out []advisor.Advice
	for _, e := range entries {
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			out = append(out, advisor.Advice{Note: "Reviewed entry " + e.ID + " carefully; consider checking its output", Severity: advisor.SeverityNit})
		}
	}
	return out
}

func (perStep) Reset() {}

func perStepFactory(info SessionInfo, h advisor.Host) (*advisor.Runtime, error) {
	return advisor.New(advisor.Options{Detector: perStep{}, Host: h, Start: info.Start})
}

// running is a worker running until the test ends or stop is called.
type running struct {
	w      *Worker
	nc     *nats.Conn
	cancel context.CancelFunc
	stop   func() error
}

// runWorker runs a worker on its own connection; the test fails if Run
// returns an error, unless the worker was killed.
func runWorker(t testing.TB, s *server.Server, opts WorkerOptions, hook func(*Worker)) *running {
	t.Helper()
	if opts.Factory == nil {
		opts.Factory = perStepFactory
	}
	if opts.Limits == (Limits{}) {
		opts.Limits = Limits{LeaseTTL: time.Second, Memory: true}
	}
	if opts.Logf == nil {
		opts.Logf = t.Logf
	}
	nc := connect(t, s)
	w, err := NewWorker(nc, opts)
	if err != nil {
		t.Fatal(err)
	}
	if hook != nil {
		hook(w)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	var once sync.Once
	var runErr error
	r := &running{w: w, nc: nc, cancel: cancel, stop: func() error {
		once.Do(func() {
			cancel()
			runErr = <-done
		})
		return runErr
	}}
	t.Cleanup(func() {
		var err error
		if bounded(t, "worker "+w.ID()+"'s Run, stopped,", func() { err = r.stop() }) && err != nil && !nc.IsClosed() {
			t.Errorf("worker %s: %v", w.ID(), err)
		}
	})
	return r
}

// kill makes the worker die as a crashed process would: its connection
// goes, its leases are not let go. It does not wait for Run to return.
func (r *running) kill() {
	r.nc.Close()
	r.cancel()
}

// ensure sets a tenant's streams up, as a worker would, so that clients
// can subscribe before any worker runs.
func ensure(t testing.TB, nc *nats.Conn, tenant string) {
	t.Helper()
	ensureWith(t, nc, tenant, Limits{LeaseTTL: time.Second, Memory: true})
}

// ensureWith sets a tenant's streams up with the workers' limits.
func ensureWith(t testing.TB, nc *nats.Conn, tenant string, l Limits) {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	// A bound past the API's default 5 s: under -race on a loaded machine
	// the in-process server can be slow to create streams.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := Ensure(ctx, js, tenant, l); err != nil {
		t.Fatal(err)
	}
}

// waitNote waits for the next note, failing after a generous bound (a
// hang, not a timing assumption).
func waitNote(t testing.TB, c *Client) Note {
	t.Helper()
	stall := time.NewTimer(stallBound)
	defer stall.Stop()
	select {
	case n := <-c.Notes():
		return n
	case <-stall.C:
		t.Fatalf("no note within %s; the goroutines:\n%s", stallBound, goroutines())
	}
	return Note{}
}
