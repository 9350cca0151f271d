package sidecar

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"syscall"
	"time"
)

// MaxEvent bounds a hook event the sidecar reads; tool output can be
// large, and vigil needs only a few small fields of it.
const MaxEvent = 16 << 20

// DeadlineHeader carries, in milliseconds, how long the hook command
// will wait for the answer; the sidecar bounds its waits by it.
const DeadlineHeader = "Vigil-Deadline-Ms"

// ProblemHeader, in an answer, says why the sidecar cannot do its work
// (its transcript cannot be read, its settings are broken): once per
// condition, for the hook's log. The answer is still the answer.
const ProblemHeader = "Vigil-Problem"

// Handler serves the hook events: POST /hook with the event JSON as the
// body answers with the hook's JSON output (204 when there is nothing to
// say); POST /consult with a [ConsultRequest] answers with a
// [ConsultReply] (consult.go); GET /status answers with [Stats].
func (s *Sidecar) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hook", s.serveHook)
	mux.HandleFunc("POST /consult", s.serveConsult)
	mux.HandleFunc("GET /status", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(s.Stats())
	})
	return mux
}

func (s *Sidecar) serveHook(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, MaxEvent+1))
	if err != nil {
		http.Error(w, "read event: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > MaxEvent {
		http.Error(w, fmt.Sprintf("event larger than %d bytes", MaxEvent), http.StatusRequestEntityTooLarge)
		return
	}
	in, err := ParseInput(body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if in.SessionID != s.o.Key.Session {
		http.Error(w, fmt.Sprintf("this sidecar watches session %s, not %s", s.o.Key.Session, in.SessionID), http.StatusConflict)
		return
	}
	ctx := r.Context()
	if ms, err := strconv.Atoi(r.Header.Get(DeadlineHeader)); err == nil && ms > 0 {
		// Answer a little before the hook gives up on us.
		margin := min(time.Duration(ms)*time.Millisecond/10, 200*time.Millisecond)
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond-margin)
		defer cancel()
	}
	// An error is the transcript's, which the sidecar logged (once per
	// condition); the answer still goes out: a transcript problem must
	// not cost the agent the notes that are due.
	out, _ := s.Handle(ctx, in)
	if msg := s.takeUntold(); msg != "" {
		w.Header().Set(ProblemHeader, LogText(msg))
	}
	if out == nil {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// ServeOptions configure [Serve].
type ServeOptions struct {
	Dir  Dir
	Info Info
	// Ready, if set, is written one byte and closed once the socket
	// accepts connections (or when another sidecar already serves the
	// session), so the hook that started the sidecar can go on.
	Ready io.WriteCloser
	// IdleTimeout stops the sidecar after this long without a hook; 0
	// never does.
	IdleTimeout time.Duration
	// PollInterval reads the transcript this often between hooks, so a
	// step that ends with no hook after it is reviewed in time; 0 reads
	// only when a hook fires.
	PollInterval time.Duration
	// Agent, when its Proc is set, stops the sidecar once the agent's
	// process has gone and the transcript is quiet (agentproc.go).
	Agent AgentWatch
	// Lock is the session's lock, taken with [Dir.TakeLock] before the
	// session's files were made; nil: Serve takes it (and returns
	// ErrRunning when it cannot). The caller closes it.
	Lock *SessionLock
}

// ErrRunning is returned by [Serve] when another sidecar already serves
// the session.
var ErrRunning = errors.New("a sidecar already serves this session")

// Serve runs the sidecar on its unix socket until the session ends, it
// has been idle for IdleTimeout, or ctx is done. It holds the session's
// lock while it runs (o.Lock, or one it takes), so a second Serve of the
// same session returns ErrRunning at once.
func Serve(ctx context.Context, s *Sidecar, o ServeOptions) error {
	key := o.Info.Key
	ready := func() {
		if o.Ready != nil {
			o.Ready.Write([]byte{1})
			o.Ready.Close()
			o.Ready = nil
		}
	}
	defer ready()
	if o.Lock == nil {
		lock, err := o.Dir.TakeLock(key)
		if err != nil {
			return err
		}
		defer lock.Close()
	}
	sock := o.Dir.Socket(key)
	os.Remove(sock) // a stale socket of a sidecar that died; we hold the lock
	old := syscall.Umask(0o177)
	ln, err := net.Listen("unix", sock)
	syscall.Umask(old)
	if err != nil {
		return fmt.Errorf("sidecar socket: %w", err)
	}
	defer os.Remove(sock)
	if err := os.Chmod(sock, 0o600); err != nil {
		ln.Close()
		return fmt.Errorf("sidecar socket: %w", err)
	}
	o.Info.PID = os.Getpid()
	o.Info.Socket = sock
	o.Info.Waits = s.Waits()
	o.Info.AgentPID, o.Info.AgentStart = o.Agent.Proc.PID, o.Agent.Proc.Start
	if o.Info.Started.IsZero() {
		o.Info.Started = time.Now().UTC()
	}
	if err := o.Dir.WriteInfo(o.Info); err != nil {
		ln.Close()
		return err
	}
	defer os.Remove(o.Dir.Info(key))

	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 5 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ready()

	var tick <-chan time.Time
	if o.PollInterval > 0 {
		t := time.NewTicker(o.PollInterval)
		defer t.Stop()
		tick = t.C
	}
	agentTick := o.Agent.Tick
	if o.Agent.Proc.PID > 0 {
		o.Agent.defaults()
		if agentTick == nil {
			t := time.NewTicker(o.Agent.Poll)
			defer t.Stop()
			agentTick = t.C
		}
	}
	var idle <-chan time.Time
	var idleTimer *time.Timer
	if o.IdleTimeout > 0 {
		idleTimer = time.NewTimer(o.IdleTimeout)
		defer idleTimer.Stop()
		idle = idleTimer.C
	}
	var why error
loop:
	for {
		select {
		case <-ctx.Done():
			why = ctx.Err()
			break loop
		case <-s.Ended():
			break loop
		case err := <-served:
			why = fmt.Errorf("sidecar server: %w", err)
			break loop
		case <-idle:
			s.o.Logf("no hook for %v: stopping", o.IdleTimeout)
			break loop
		case <-s.Activity():
			if idleTimer != nil {
				idleTimer.Reset(o.IdleTimeout)
			}
		case <-tick:
			s.Sync()
		case <-agentTick:
			if s.checkAgent(ctx, o.Agent) {
				break loop
			}
		}
	}
	// Let the hook in flight (SessionEnd) get its answer.
	sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	srv.Shutdown(sctx)
	if errors.Is(why, context.Canceled) {
		return nil
	}
	return why
}
