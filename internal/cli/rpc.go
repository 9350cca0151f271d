package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/agent"
)

// rpcCommand is one line of the RPC protocol's input (docs/rpc.md).
type rpcCommand struct {
	ID        string `json:"id,omitempty"`
	Type      string `json:"type"`
	Message   string `json:"message,omitempty"`
	Interrupt bool   `json:"interrupt,omitempty"`
	Command   string `json:"command,omitempty"`
}

// rpcResponse answers one command.
type rpcResponse struct {
	Type    string `json:"type"` // always "response"
	ID      string `json:"id,omitempty"`
	Command string `json:"command"`
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty"`
	Data    any    `json:"data,omitempty"`
}

// rpcTurnError reports a prompt whose turn failed after it was accepted.
type rpcTurnError struct {
	Type  string `json:"type"` // always "prompt_error"
	ID    string `json:"id,omitempty"`
	Error string `json:"error"`
}

// rpcTurn is a turn (or a compaction) running in the background.
type rpcTurn struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// rpcServer runs the RPC protocol for one app.
type rpcServer struct {
	e   *env
	a   *app
	out *jsonLines
	ctx context.Context
	wg  sync.WaitGroup

	mu       sync.Mutex
	turn     *rpcTurn // nil when idle
	idleSeen bool     // the running turn already emitted idle: it is finishing
}

// serveRPC reads commands from stdin until it ends or ctx is cancelled, runs
// them, and writes the agent's events and the replies to stdout as JSON
// lines. A prompt runs in the background so steer, follow_up and abort can
// reach it. At the end of input serveRPC waits for the running turn; when
// ctx is cancelled (SIGINT, SIGTERM) it aborts the turn first.
func serveRPC(e *env, a *app) error {
	s := &rpcServer{e: e, a: a, out: &jsonLines{w: e.stdout}, ctx: e.ctx}
	a.busy = s.running
	a.subscribe(func(ev agent.Event) {
		switch ev.Type {
		case agent.EventIdle:
			s.mu.Lock()
			s.idleSeen = true
			s.mu.Unlock()
		}
		s.out.write(ev)
	})

	// The reader goroutine ends when stdin does; if the process is told to
	// stop while stdin stays open, it is left blocked in Read, which the
	// process's exit ends.
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(e.stdin)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-e.ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()

	for line := 1; ; line++ {
		select {
		case <-e.ctx.Done():
			s.abort()
			s.wg.Wait()
			return fmt.Errorf("rpc: %w", context.Cause(e.ctx))
		case raw, ok := <-lines:
			if !ok {
				s.wg.Wait()
				if err := <-readErr; err != nil {
					return fmt.Errorf("read rpc commands: %w", err)
				}
				return nil
			}
			s.handle(line, strings.TrimSpace(raw))
		}
	}
}

// running reports whether a turn or compaction is in progress.
func (s *rpcServer) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.turn != nil
}

func (s *rpcServer) abort() {
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t != nil {
		t.cancel(agent.ErrAborted)
	}
	s.a.agent().Abort()
}

// start runs fn in the background as the current turn, then finish with its
// error once the turn is over (so a reply written by finish is followed only
// by commands that see the server idle). A turn that already said idle is
// only finishing its bookkeeping: start waits for it instead of refusing.
func (s *rpcServer) start(fn func(ctx context.Context) error, finish func(error)) error {
	s.mu.Lock()
	if t := s.turn; t != nil {
		if !s.idleSeen {
			s.mu.Unlock()
			return errors.New("a turn is running: use steer or follow_up, or abort it first")
		}
		s.mu.Unlock()
		select {
		case <-t.done:
		case <-s.ctx.Done():
			return context.Cause(s.ctx)
		}
		s.mu.Lock()
	}
	ctx, cancel := context.WithCancelCause(s.ctx)
	t := &rpcTurn{cancel: cancel, done: make(chan struct{})}
	s.turn, s.idleSeen = t, false
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		err := fn(ctx)
		cancel(nil)
		s.mu.Lock()
		if s.turn == t {
			s.turn = nil
		}
		s.mu.Unlock()
		close(t.done)
		finish(err)
	}()
	return nil
}

// turnError is the finish of a prompt: a failure after the prompt was
// accepted is reported as prompt_error.
func (s *rpcServer) turnError(id string) func(error) {
	return func(err error) {
		if err != nil {
			s.out.write(rpcTurnError{Type: "prompt_error", ID: id, Error: err.Error()})
		}
	}
}

// handle runs one command line and writes its reply.
func (s *rpcServer) handle(line int, raw string) {
	if raw == "" {
		return
	}
	var c rpcCommand
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		s.out.write(rpcResponse{Type: "response", Command: "parse", Error: fmt.Sprintf("stdin line %d: not a JSON command: %v", line, err)})
		return
	}
	resp := rpcResponse{Type: "response", ID: c.ID, Command: c.Type, Success: true}
	var err error
	switch c.Type {
	case "prompt":
		if c.Message == "" {
			err = errors.New("prompt needs a message")
		} else if strings.HasPrefix(c.Message, "/") {
			if s.command(resp, c.Message) {
				return
			}
			resp.Data, err = s.a.command(s.ctx, c.Message)
		} else {
			err = s.start(func(ctx context.Context) error { return s.a.agent().Prompt(ctx, c.Message) }, s.turnError(c.ID))
		}
	case "resume":
		err = s.start(func(ctx context.Context) error { return s.a.agent().Resume(ctx, c.Message) }, s.turnError(c.ID))
	case "steer":
		if c.Message == "" {
			err = errors.New("steer needs a message")
		} else {
			s.a.agent().Steer(c.Message, c.Interrupt)
		}
	case "follow_up":
		if c.Message == "" {
			err = errors.New("follow_up needs a message")
		} else {
			s.a.agent().FollowUp(c.Message)
		}
	case "abort":
		s.abort()
	case "command":
		cmd := c.Command
		if cmd == "" {
			cmd = c.Message
		}
		if !strings.HasPrefix(cmd, "/") {
			cmd = "/" + cmd
		}
		if s.command(resp, cmd) {
			return
		}
		resp.Data, err = s.a.command(s.ctx, cmd)
	case "get_state":
		sess := s.a.session()
		resp.Data = map[string]any{"state": s.a.agent().State(), "session_id": sess.ID(), "session_file": sess.File()}
	default:
		err = fmt.Errorf("stdin line %d: unknown command type %q (want prompt, steer, follow_up, abort, resume, command, get_state)", line, c.Type)
	}
	if err != nil {
		resp.Success, resp.Error, resp.Data = false, err.Error(), nil
	}
	s.out.write(resp)
}

// command starts /compact in the background, like a turn, where abort can
// reach it; its reply is written when it is done. It reports whether it took
// the command; the other slash commands are quick and run at once.
func (s *rpcServer) command(resp rpcResponse, line string) bool {
	name, args, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(line), "/"), " ")
	if name != "compact" {
		return false
	}
	err := s.start(func(ctx context.Context) error { return s.a.agent().Compact(ctx, strings.TrimSpace(args)) }, func(err error) {
		if err != nil {
			resp.Success, resp.Error = false, err.Error()
		} else {
			resp.Data = "compacted"
		}
		s.out.write(resp)
	})
	if err != nil {
		resp.Success, resp.Error = false, "/compact: "+err.Error()
		s.out.write(resp)
	}
	return true
}
