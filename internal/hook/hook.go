// Package hook is `vigil hook AGENT`: the command Claude Code and Codex
// run for every hook event. It reads the event JSON on stdin, hands it to
// the session's sidecar (package internal/sidecar) over its unix socket,
// starting the sidecar when there is none, and prints the answer.
//
// It fails open: when the sidecar is absent and cannot be started, slow,
// or broken, or the event is not what it expects, it prints nothing and
// exits 0, so the agent goes on as if vigil were not there; it logs why
// to the sidecars' folder (hook.log).
package hook

import (
	"bytes"
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

	"github.com/vigil-dev/vigil/internal/sidecar"
)

// Spawner starts the sidecar of a session and returns once it serves
// (or has given up); args are the sidecar command's arguments.
type Spawner func(ctx context.Context, key sidecar.Key, in sidecar.Input) error

// Options configure [Run].
type Options struct {
	// Agent is the dialect: sidecar.AgentClaudeCode or sidecar.AgentCodex.
	Agent  string
	Stdin  io.Reader
	Stdout io.Writer
	// Dir is the sidecars' folder.
	Dir sidecar.Dir
	// Spawn starts a sidecar; nil never starts one.
	Spawn Spawner
	// Timeout is how long to wait for the sidecar's answer to an event;
	// nil uses [DefaultTimeout].
	Timeout func(event string) time.Duration
	// Before, if set, is called with each event before it is forwarded;
	// its error is logged with the rest and the event still goes.
	Before func(ctx context.Context, in sidecar.Input) error
}

// DefaultTimeout is the wait for an answer: long enough for the tool
// boundary and Stop waits (the sidecar bounds those by its settings and
// answers before this), short for every other event. The hook entries
// vigil attach writes give the agent's own timeout a margin over these.
func DefaultTimeout(event string) time.Duration {
	switch event {
	case sidecar.EventStop, sidecar.EventPostToolUse, sidecar.EventPostToolUseFailure:
		return 40 * time.Second
	}
	return 5 * time.Second
}

var errTooLarge = fmt.Errorf("event larger than %d bytes: ignored", sidecar.MaxEvent)

// ErrNoSidecar is returned (and logged) when no sidecar serves the
// session and none was started.
var ErrNoSidecar = errors.New("no sidecar serves this session")

// Run handles one hook event. It writes the hook's reply to o.Stdout
// only when the sidecar gave one; any error is for the log: the caller
// still exits 0.
func Run(ctx context.Context, o Options) error {
	body, err := io.ReadAll(io.LimitReader(o.Stdin, sidecar.MaxEvent+1))
	if err != nil {
		return fmt.Errorf("read the event: %w", err)
	}
	if len(body) > sidecar.MaxEvent {
		io.Copy(io.Discard, o.Stdin) // the agent must not block on a full pipe
		return errTooLarge
	}
	in, err := sidecar.ParseInput(body)
	if err != nil {
		return err
	}
	var before error
	if o.Before != nil {
		before = o.Before(ctx, in)
	}
	timeout := DefaultTimeout
	if o.Timeout != nil {
		timeout = o.Timeout
	}
	out, err := Forward(ctx, o.Dir, o.Agent, in, o.Spawn, timeout(in.HookEventName))
	if len(out) > 0 {
		if _, werr := o.Stdout.Write(out); werr != nil {
			return errors.Join(before, err, fmt.Errorf("%s: write the reply: %w", in.HookEventName, werr))
		}
	}
	return errors.Join(before, err)
}

// Forward hands one event to its session's sidecar, starting one with
// spawn when none listens (never for SessionEnd), and returns the
// sidecar's reply: a JSON object, or nothing. It gives up after d. What
// goes is in as JSON, the fields vigil reads: not the tool's input and
// output, which may be megabytes the sidecar would read only to skip. The error is for the log; it comes with
// the reply when the sidecar answered but said it cannot do its work
// (its transcript cannot be read, its settings are broken: once per
// condition, [sidecar.ProblemHeader]).
//
// A live sidecar says in its registry file how long it may take to
// answer each event; d shrinks to that, so a stuck sidecar costs the
// agent no more than a healthy one could.
func Forward(ctx context.Context, dir sidecar.Dir, agent string, in sidecar.Input, spawn Spawner, d time.Duration) ([]byte, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.HookEventName, err)
	}
	key := sidecar.Key{Agent: agent, Session: in.SessionID}
	if info, ok := dir.ReadInfo(key); ok {
		if ms, ok := info.Waits[in.HookEventName]; ok && ms > 0 {
			d = min(d, time.Duration(ms)*time.Millisecond)
		}
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	out, problem, err := post(ctx, dir.Socket(key), body, d)
	if isAbsent(err) && in.HookEventName != sidecar.EventSessionEnd && spawn != nil {
		if serr := spawn(ctx, key, in); serr != nil {
			return nil, fmt.Errorf("%s: start the sidecar: %w", in.HookEventName, serr)
		}
		out, problem, err = post(ctx, dir.Socket(key), body, d)
	}
	if isAbsent(err) {
		return nil, fmt.Errorf("%s: %w", in.HookEventName, ErrNoSidecar)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.HookEventName, err)
	}
	if problem != "" {
		return out, fmt.Errorf("%s: the sidecar says: %s", in.HookEventName, problem)
	}
	return out, nil
}

// post sends the event to the sidecar's socket and returns its reply
// body (empty for "nothing to say") and the problem it reported, if any.
func post(ctx context.Context, sock string, body []byte, d time.Duration) (reply []byte, problem string, err error) {
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, "unix", sock)
		},
		DisableKeepAlives: true,
	}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://sidecar/hook", bytes.NewReader(body))
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(sidecar.DeadlineHeader, strconv.FormatInt(d.Milliseconds(), 10))
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	problem = sidecar.LogText(resp.Header.Get(sidecar.ProblemHeader))
	reply, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, problem, fmt.Errorf("read the sidecar's reply: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusNoContent:
		return nil, problem, nil
	case resp.StatusCode != http.StatusOK:
		return nil, problem, fmt.Errorf("sidecar answered %s: %s", resp.Status, sidecar.LogText(string(bytes.TrimSpace(reply))))
	case !bytes.HasPrefix(bytes.TrimSpace(reply), []byte("{")):
		return nil, problem, fmt.Errorf("sidecar answered something that is not a JSON object: %.80q", reply)
	}
	return reply, problem, nil
}

// isAbsent reports whether err says nothing listens on the socket.
func isAbsent(err error) bool {
	return errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.ECONNREFUSED)
}

// Log appends one line to the hook log, keeping it under 1 MiB (the
// older half moves to hook.log.old).
func Log(dir sidecar.Dir, agent string, err error) {
	path := dir.HookLog()
	if fi, serr := os.Stat(path); serr == nil && fi.Size() > 1<<20 {
		os.Rename(path, path+".old")
	}
	f, ferr := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if ferr != nil {
		return
	}
	defer f.Close()
	// One line each, whatever the event held: its ids and paths are in
	// the message.
	fmt.Fprintf(f, "%s vigil hook %s: %s (failed open: the agent goes on)\n", time.Now().UTC().Format(time.RFC3339Nano), sidecar.LogText(agent), sidecar.LogText(err.Error()))
}
