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

// serveRPC reads commands from stdin until it ends, runs them, and writes
// the agent's events and the replies to stdout as JSON lines. A prompt runs
// in the background so steer, follow_up and abort can reach it; at the end
// of input serveRPC waits for the running turn to finish.
func serveRPC(e *env, a *app) error {
	out := &jsonLines{w: e.stdout}
	a.subscribe(func(ev agent.Event) { out.write(ev) })

	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		running bool
	)
	startTurn := func(id, text string, run func(context.Context, string) error) error {
		mu.Lock()
		defer mu.Unlock()
		if running {
			return errors.New("a turn is running: use steer or follow_up, or abort it first")
		}
		running = true
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := run(ctx, text)
			mu.Lock()
			running = false
			mu.Unlock()
			if err != nil {
				out.write(rpcTurnError{Type: "prompt_error", ID: id, Error: err.Error()})
			}
		}()
		return nil
	}

	sc := bufio.NewScanner(e.stdin)
	sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
	for line := 1; sc.Scan(); line++ {
		raw := strings.TrimSpace(sc.Text())
		if raw == "" {
			continue
		}
		var c rpcCommand
		if err := json.Unmarshal([]byte(raw), &c); err != nil {
			out.write(rpcResponse{Type: "response", Command: "parse", Error: fmt.Sprintf("stdin line %d: not a JSON command: %v", line, err)})
			continue
		}
		resp := rpcResponse{Type: "response", ID: c.ID, Command: c.Type, Success: true}
		var err error
		switch c.Type {
		case "prompt":
			if c.Message == "" {
				err = errors.New("prompt needs a message")
			} else if strings.HasPrefix(c.Message, "/") {
				resp.Data, err = a.command(ctx, c.Message)
			} else {
				err = startTurn(c.ID, c.Message, func(ctx context.Context, s string) error { return a.agent().Prompt(ctx, s) })
			}
		case "resume":
			err = startTurn(c.ID, c.Message, func(ctx context.Context, s string) error { return a.agent().Resume(ctx, s) })
		case "steer":
			if c.Message == "" {
				err = errors.New("steer needs a message")
			} else {
				a.agent().Steer(c.Message, c.Interrupt)
			}
		case "follow_up":
			if c.Message == "" {
				err = errors.New("follow_up needs a message")
			} else {
				a.agent().FollowUp(c.Message)
			}
		case "abort":
			a.agent().Abort()
		case "command":
			cmd := c.Command
			if cmd == "" {
				cmd = c.Message
			}
			if !strings.HasPrefix(cmd, "/") {
				cmd = "/" + cmd
			}
			resp.Data, err = a.command(ctx, cmd)
		case "get_state":
			s := a.session()
			resp.Data = map[string]any{"state": a.agent().State(), "session_id": s.ID(), "session_file": s.File()}
		default:
			err = fmt.Errorf("stdin line %d: unknown command type %q (want prompt, steer, follow_up, abort, resume, command, get_state)", line, c.Type)
		}
		if err != nil {
			resp.Success, resp.Error, resp.Data = false, err.Error(), nil
		}
		out.write(resp)
	}
	wg.Wait()
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read rpc commands: %w", err)
	}
	return nil
}
