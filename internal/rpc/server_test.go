package rpc

import (
	"bufio"
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/agent"
)

// fakeApp is an App whose prompts run until release is closed (or they
// are aborted), then emit idle.
type fakeApp struct {
	release chan struct{}
	mu      sync.Mutex
	subs    []func(agent.Event)
	calls   []string
}

func (f *fakeApp) record(s string) {
	f.mu.Lock()
	f.calls = append(f.calls, s)
	f.mu.Unlock()
}

func (f *fakeApp) emit(ev agent.Event) {
	f.mu.Lock()
	subs := f.subs
	f.mu.Unlock()
	for _, fn := range subs {
		fn(ev)
	}
}

func (f *fakeApp) Prompt(ctx context.Context, m string) error {
	f.record("prompt " + m)
	defer f.emit(agent.Event{Type: agent.EventIdle})
	select {
	case <-f.release:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
func (f *fakeApp) Resume(ctx context.Context, m string) error { return f.Prompt(ctx, m) }
func (f *fakeApp) Steer(m string, interrupt bool)             { f.record("steer " + m) }
func (f *fakeApp) FollowUp(m string)                          { f.record("follow_up " + m) }
func (f *fakeApp) Abort()                                     { f.record("abort") }
func (f *fakeApp) Compact(_ context.Context, in string) error {
	f.record("compact " + in)
	return nil
}
func (f *fakeApp) Command(_ context.Context, line string) (string, error) {
	if line == "/fail" {
		return "", errors.New("it failed")
	}
	return "ran " + line, nil
}
func (f *fakeApp) State() agent.State        { return agent.State{} }
func (f *fakeApp) Session() (string, string) { return "s1", "/s1.jsonl" }
func (f *fakeApp) Answer(string, agent.Approval) error {
	return errors.New("the approval mode is off")
}
func (f *fakeApp) Subscribe(fn func(agent.Event)) {
	f.mu.Lock()
	f.subs = append(f.subs, fn)
	f.mu.Unlock()
}

// session drives a server over pipes: send writes a command line, next
// reads the next output line.
type session struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Scanner
	done chan error
}

func serve(t *testing.T, app App) *session {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &session{t: t, in: inW, out: bufio.NewScanner(outR), done: make(chan error, 1)}
	srv := NewServer(app, inR, outW)
	go func() { s.done <- srv.Serve(context.Background()); outW.Close() }()
	return s
}

func (s *session) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *session) next(want string) {
	s.t.Helper()
	if !s.out.Scan() {
		s.t.Fatalf("output ended; want %s", want)
	}
	if got := s.out.Text(); got != want {
		s.t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// nextAll reads len(want) lines and checks they are want, in any order.
func (s *session) nextAll(want ...string) {
	s.t.Helper()
	var got []string
	for range want {
		if !s.out.Scan() {
			s.t.Fatalf("output ended after %q; want %q", got, want)
		}
		got = append(got, s.out.Text())
	}
	slices.Sort(got)
	sorted := slices.Sorted(slices.Values(want))
	if !slices.Equal(got, sorted) {
		s.t.Fatalf("got  %q\nwant %q", got, sorted)
	}
}

// TestServerLines: the replies, byte for byte as docs/rpc.md has them;
// a second prompt is refused while one runs, and accepted once it is
// over; at the end of input Serve returns nil.
func TestServerLines(t *testing.T) {
	app := &fakeApp{release: make(chan struct{})}
	s := serve(t, app)
	s.send(`not json`)
	s.next(`{"type":"response","command":"parse","success":false,"error":"stdin line 1: not a JSON command: invalid character 'o' in literal null (expecting 'u')"}`)
	s.send(`{"type":"dance","id":"x"}`)
	s.next(`{"type":"response","id":"x","command":"dance","success":false,"error":"stdin line 2: unknown command type \"dance\" (want prompt, steer, follow_up, approve, abort, resume, command, get_state)"}`)
	s.send(`{"type":"prompt","id":"1","message":"hello"}`)
	s.next(`{"type":"response","id":"1","command":"prompt","success":true}`)
	s.send(`{"type":"prompt","id":"2","message":"again"}`)
	s.next(`{"type":"response","id":"2","command":"prompt","success":false,"error":"a turn is running: use steer or follow_up, or abort it first"}`)
	s.send(`{"type":"steer","id":"3","message":"look","interrupt":true}`)
	s.next(`{"type":"response","id":"3","command":"steer","success":true}`)
	s.send(`{"type":"steer","id":"4"}`)
	s.next(`{"type":"response","id":"4","command":"steer","success":false,"error":"steer needs a message"}`)
	s.send(`{"type":"command","id":"5","command":"session"}`)
	s.next(`{"type":"response","id":"5","command":"command","success":true,"data":"ran /session"}`)
	s.send(`{"type":"prompt","id":"6","message":"/fail"}`)
	s.next(`{"type":"response","id":"6","command":"prompt","success":false,"error":"it failed"}`)
	s.send(`{"type":"command","id":"7","command":"/compact now"}`)
	s.next(`{"type":"response","id":"7","command":"command","success":false,"error":"/compact: a turn is running: use steer or follow_up, or abort it first"}`)
	close(app.release)
	s.next(`{"type":"idle"}`)
	// Once idle was seen, a new turn waits for the old one to finish.
	s.send(`{"type":"command","id":"8","command":"/compact now"}`)
	s.next(`{"type":"response","id":"8","command":"command","success":true,"data":"compacted"}`)
	s.send(`{"type":"get_state","id":"9"}`)
	if !s.out.Scan() || !strings.HasPrefix(s.out.Text(), `{"type":"response","id":"9","command":"get_state","success":true,"data":{"session_file":"/s1.jsonl","session_id":"s1","state":{`) {
		t.Fatalf("get_state: %s", s.out.Text())
	}
	s.in.Close()
	if err := <-s.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	// The prompt's goroutine and the steer may record in either order.
	slices.Sort(app.calls)
	want := "compact now; prompt hello; steer look"
	if got := strings.Join(app.calls, "; "); got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}
}

// TestServerAbort: abort cancels the running turn, which is reported as
// prompt_error with the agent's abort error.
func TestServerAbort(t *testing.T) {
	app := &fakeApp{release: make(chan struct{})}
	s := serve(t, app)
	s.send(`{"type":"prompt","id":"1","message":"hello"}`)
	s.next(`{"type":"response","id":"1","command":"prompt","success":true}`)
	s.send(`{"type":"abort","id":"2"}`)
	// The reply and the turn's end race; read both lines.
	got := map[string]bool{}
	for range 3 {
		if !s.out.Scan() {
			t.Fatal("output ended")
		}
		got[s.out.Text()] = true
	}
	for _, want := range []string{
		`{"type":"response","id":"2","command":"abort","success":true}`,
		`{"type":"idle"}`,
		`{"type":"prompt_error","id":"1","error":"` + agent.ErrAborted.Error() + `"}`,
	} {
		if !got[want] {
			t.Errorf("missing %s in %v", want, got)
		}
	}
	s.in.Close()
	if err := <-s.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

// TestServerResumeSemantics: while the run is stopped, a steer or a
// follow-up starts a run opened by its message (the reply says resumed),
// and resume with no message continues; while a run is going they queue.
func TestServerResumeSemantics(t *testing.T) {
	app := &fakeApp{release: make(chan struct{})}
	close(app.release) // every run ends at once
	s := serve(t, app)
	// Each run ends at once, so its idle and the reply race: read both.
	s.send(`{"type":"steer","id":"1","message":"use the other API"}`)
	s.nextAll(`{"type":"response","id":"1","command":"steer","success":true,"data":{"resumed":true}}`, `{"type":"idle"}`)
	s.send(`{"type":"follow_up","id":"2","message":"and add a test"}`)
	s.nextAll(`{"type":"response","id":"2","command":"follow_up","success":true,"data":{"resumed":true}}`, `{"type":"idle"}`)
	s.send(`{"type":"resume","id":"3"}`)
	s.nextAll(`{"type":"response","id":"3","command":"resume","success":true}`, `{"type":"idle"}`)
	s.send(`{"type":"follow_up","id":"4"}`)
	s.next(`{"type":"response","id":"4","command":"follow_up","success":false,"error":"follow_up needs a message"}`)
	s.in.Close()
	if err := <-s.done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	want := "prompt use the other API; prompt and add a test; prompt "
	if got := strings.Join(app.calls, "; "); got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}
}
