// Package hook is `vigil hook AGENT`: the command Claude Code and Codex
// run for every hook event. It reads the event JSON on stdin, hands it to
// the session's sidecar (package internal/sidecar) over its unix socket,
// starting the sidecar when there is none, and prints the answer.
//
// The work is internal/hookwire's, which the small vigil-hook binary
// runs too; this package gives it the sidecar's types, for the callers
// that hold those, and serves Claude Code's HTTP hooks ([Router]).
//
// It fails open: when the sidecar is absent and cannot be started, slow,
// or broken, or the event is not what it expects, it prints nothing and
// exits 0, so the agent goes on as if vigil were not there; it logs why
// to the sidecars' folder (hook.log).
package hook

import (
	"context"
	"io"
	"time"

	"github.com/vigil-dev/vigil/internal/hookwire"
	"github.com/vigil-dev/vigil/internal/sidecar"
)

// Spawner starts the sidecar of a session and returns once it serves
// (or has given up).
type Spawner func(ctx context.Context, key sidecar.Key, in sidecar.Input) error

// wire is s as the hookwire Spawner it is.
func (s Spawner) wire() hookwire.Spawner {
	if s == nil {
		return nil
	}
	return func(ctx context.Context, key hookwire.Key, in hookwire.Input) error {
		return s(ctx, sidecar.Key(key), sidecar.Input(in))
	}
}

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
func DefaultTimeout(event string) time.Duration { return hookwire.DefaultTimeout(event) }

// ErrNoSidecar is returned (and logged) when no sidecar serves the
// session and none was started.
var ErrNoSidecar = hookwire.ErrNoSidecar

// Run handles one hook event. It writes the hook's reply to o.Stdout
// only when the sidecar gave one; any error is for the log: the caller
// still exits 0.
func Run(ctx context.Context, o Options) error {
	w := hookwire.Options{Agent: o.Agent, Stdin: o.Stdin, Stdout: o.Stdout, Dir: hookwire.Dir(o.Dir), Spawn: o.Spawn.wire(), Timeout: o.Timeout}
	if o.Before != nil {
		w.Before = func(ctx context.Context, in hookwire.Input) error { return o.Before(ctx, sidecar.Input(in)) }
	}
	return hookwire.Run(ctx, w)
}

// Forward hands one event to its session's sidecar, starting one with
// spawn when none listens (never for SessionEnd), and returns the
// sidecar's reply: a JSON object, or nothing; see [hookwire.Forward].
func Forward(ctx context.Context, dir sidecar.Dir, agent string, in sidecar.Input, spawn Spawner, d time.Duration) ([]byte, error) {
	return hookwire.Forward(ctx, hookwire.Dir(dir), agent, hookwire.Input(in), spawn.wire(), d)
}

// Log appends one line to the hook log, keeping it under 1 MiB (the
// older half moves to hook.log.old).
func Log(dir sidecar.Dir, agent string, err error) { hookwire.Log(hookwire.Dir(dir), agent, err) }
