package rpc

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/commands"
)

// App is what the server drives: the current agent and its session.
// Each call goes to the agent current at that moment (a slash command
// such as /new may replace it).
type App interface {
	// Prompt runs a turn on message.
	Prompt(ctx context.Context, message string) error
	// Resume resumes a stopped run with message.
	Resume(ctx context.Context, message string) error
	// Steer queues message for the next step boundary; interrupt also
	// stops the step's tools.
	Steer(message string, interrupt bool)
	// FollowUp queues message for the end of the turn.
	FollowUp(message string)
	// Abort stops the running turn at once.
	Abort()
	// Compact summarises older history now (/compact, run as a turn).
	Compact(ctx context.Context, instructions string) error
	// Command runs any other slash command line, "/name args".
	Command(ctx context.Context, line string) (string, error)
	// State is the agent's state, for get_state.
	State() agent.State
	// Session is the current session's id and file.
	Session() (id, file string)
	// Subscribe calls fn with every agent event, across agent swaps.
	Subscribe(fn func(agent.Event))
	// Answer answers the approval request of a tool call (the approval
	// mode, --approval ask); it fails when that mode is off or the call
	// does not wait.
	Answer(callID string, ap agent.Approval) error
}

// request is one line of the protocol's input.
type request struct {
	ID        string `json:"id,omitempty"`
	Type      string `json:"type"`
	Message   string `json:"message,omitempty"`
	Interrupt bool   `json:"interrupt,omitempty"`
	Command   string `json:"command,omitempty"`
	// ToolCallID and Decision are an approve command's.
	ToolCallID string `json:"tool_call_id,omitempty"`
	Decision   string `json:"decision,omitempty"`
}

// response answers one command.
type response struct {
	Type    string `json:"type"` // always "response"
	ID      string `json:"id,omitempty"`
	Command string `json:"command"`
	Success bool   `json:"success"`
	Error   string `json:"error,omitempty"`
	Data    any    `json:"data,omitempty"`
}

// promptError reports a prompt whose turn failed after it was accepted.
type promptError struct {
	Type  string `json:"type"` // always "prompt_error"
	ID    string `json:"id,omitempty"`
	Error string `json:"error"`
}

// turn is a turn (or a compaction) running in the background.
type turn struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// Server runs the protocol for one App.
type Server struct {
	app App
	in  io.Reader
	out *LineWriter
	ctx context.Context
	wg  sync.WaitGroup

	mu       sync.Mutex
	turn     *turn // nil when idle
	idleSeen bool  // the running turn already emitted idle: it is finishing
	// asked are the tool calls waiting for approval; once inputDone, no
	// one can answer, and they are denied.
	asked     map[string]bool
	inputDone bool
}

// NewServer makes the server of app, reading commands from in and
// writing JSON lines to out.
func NewServer(app App, in io.Reader, out io.Writer) *Server {
	return &Server{app: app, in: in, out: NewLineWriter(out), ctx: context.Background()}
}

// Serve reads commands until the input ends or ctx is cancelled, runs
// them, and writes the agent's events and the replies as JSON lines. At
// the end of input it waits for the running turn; when ctx is cancelled
// (SIGINT, SIGTERM) it aborts the turn first.
func (s *Server) Serve(ctx context.Context) error {
	s.ctx = ctx
	s.app.Subscribe(func(ev agent.Event) {
		switch ev.Type {
		case agent.EventIdle:
			s.mu.Lock()
			s.idleSeen = true
			s.mu.Unlock()
		}
		s.out.Encode(ev)
		s.trackApproval(ev)
	})

	// The reader goroutine ends when the input does; if the process is
	// told to stop while stdin stays open, it is left blocked in Read,
	// which the process's exit ends.
	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(s.in)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
		close(lines)
	}()

	for line := 1; ; line++ {
		select {
		case <-ctx.Done():
			s.abort()
			s.wg.Wait()
			return fmt.Errorf("rpc: %w", context.Cause(ctx))
		case raw, ok := <-lines:
			if !ok {
				s.endInput()
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

// Running reports whether a turn or compaction is in progress.
//
// A turn that already said idle is only finishing its bookkeeping: Running
// waits for it and reports false, so that a client that waited for idle
// and sends a command (/new) is never told a turn is running.
func (s *Server) Running() bool {
	s.mu.Lock()
	t, idle := s.turn, s.idleSeen
	s.mu.Unlock()
	if t == nil {
		return false
	}
	if !idle {
		return true
	}
	select {
	case <-t.done:
		return false
	case <-s.ctx.Done():
		return true
	}
}

func (s *Server) abort() {
	s.mu.Lock()
	t := s.turn
	s.mu.Unlock()
	if t != nil {
		t.cancel(agent.ErrAborted)
	}
	s.app.Abort()
}

// errBusy refuses a command that starts a run while one is going.
var errBusy = errors.New("a turn is running: use steer or follow_up, or abort it first")

// start runs fn in the background as the current turn, then finish with its
// error once the turn is over (so a reply written by finish is followed only
// by commands that see the server idle). A turn that already said idle is
// only finishing its bookkeeping: start waits for it instead of refusing.
func (s *Server) start(fn func(ctx context.Context) error, finish func(error)) error {
	s.mu.Lock()
	if t := s.turn; t != nil {
		if !s.idleSeen {
			s.mu.Unlock()
			return errBusy
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
	t := &turn{cancel: cancel, done: make(chan struct{})}
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
func (s *Server) turnError(id string) func(error) {
	return func(err error) {
		if err != nil {
			s.out.Encode(promptError{Type: "prompt_error", ID: id, Error: err.Error()})
		}
	}
}

// handle runs one command line and writes its reply.
func (s *Server) handle(line int, raw string) {
	if raw == "" {
		return
	}
	var c request
	if err := json.Unmarshal([]byte(raw), &c); err != nil {
		s.out.Encode(response{Type: "response", Command: "parse", Error: fmt.Sprintf("stdin line %d: not a JSON command: %v", line, err)})
		return
	}
	resp := response{Type: "response", ID: c.ID, Command: c.Type, Success: true}
	var err error
	switch c.Type {
	case "prompt":
		if c.Message == "" {
			err = errors.New("prompt needs a message")
		} else if strings.HasPrefix(c.Message, "/") {
			if s.command(resp, c.Message) {
				return
			}
			resp.Data, err = s.app.Command(s.ctx, c.Message)
		} else {
			err = s.start(func(ctx context.Context) error { return s.app.Prompt(ctx, c.Message) }, s.turnError(c.ID))
		}
	case "resume":
		err = s.start(func(ctx context.Context) error { return s.app.Resume(ctx, c.Message) }, s.turnError(c.ID))
	case "steer", "follow_up":
		if c.Message == "" {
			err = errors.New(c.Type + " needs a message")
			break
		}
		queue := func() {
			if c.Type == "steer" {
				s.app.Steer(c.Message, c.Interrupt)
			} else {
				s.app.FollowUp(c.Message)
			}
		}
		if s.app.State().Running {
			queue() // a run this server did not start (the advisor's resume)
			break
		}
		// While the run is stopped, a steer or follow-up resumes it: the
		// message opens the new run as the user's, as a prompt would
		// (the advice the advisor kept as a card re-enters with it).
		err = s.start(func(ctx context.Context) error {
			err := s.app.Prompt(ctx, c.Message)
			if errors.Is(err, agent.ErrBusy) {
				queue() // a run started meanwhile takes it
				return nil
			}
			return err
		}, s.turnError(c.ID))
		switch {
		case err == nil:
			resp.Data = map[string]any{"resumed": true}
		case errors.Is(err, errBusy):
			err = nil
			queue()
		}
	case "approve":
		err = s.approve(c)
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
		resp.Data, err = s.app.Command(s.ctx, cmd)
	case "get_state":
		id, file := s.app.Session()
		resp.Data = map[string]any{"state": s.app.State(), "session_id": id, "session_file": file}
	default:
		err = fmt.Errorf("stdin line %d: unknown command type %q (want prompt, steer, follow_up, approve, abort, resume, command, get_state)", line, c.Type)
	}
	if err != nil {
		resp.Success, resp.Error, resp.Data = false, err.Error(), nil
	}
	s.out.Encode(resp)
}

// command starts /compact in the background, like a turn, where abort can
// reach it; its reply is written when it is done. It reports whether it took
// the command; the other slash commands are quick and run at once.
func (s *Server) command(resp response, line string) bool {
	name, args := commands.Parse(line)
	if name != "compact" {
		return false
	}
	err := s.start(func(ctx context.Context) error { return s.app.Compact(ctx, args) }, func(err error) {
		if err != nil {
			resp.Success, resp.Error = false, err.Error()
		} else {
			resp.Data = "compacted"
		}
		s.out.Encode(resp)
	})
	if err != nil {
		resp.Success, resp.Error = false, "/compact: "+err.Error()
		s.out.Encode(resp)
	}
	return true
}
