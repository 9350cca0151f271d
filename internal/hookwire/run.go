package hookwire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// Spawner starts the sidecar of a session and returns once it serves
// (or has given up).
type Spawner func(ctx context.Context, key Key, in Input) error

// Options configure [Run].
type Options struct {
	// Agent is the dialect: AgentClaudeCode or AgentCodex.
	Agent  string
	Stdin  io.Reader
	Stdout io.Writer
	// Dir is the sidecars' folder.
	Dir Dir
	// Spawn starts a sidecar; nil never starts one.
	Spawn Spawner
	// Timeout is how long to wait for the sidecar's answer to an event;
	// nil uses [DefaultTimeout].
	Timeout func(event string) time.Duration
	// Before, if set, is called with each event before it is forwarded;
	// its error is logged with the rest and the event still goes.
	Before func(ctx context.Context, in Input) error
	// StdinWait bounds the wait for the event on Stdin to end; 0 uses
	// [StdinWait].
	StdinWait time.Duration
}

// StdinWait is how long the hook waits for its event on stdin to end
// (the agent writes it and closes the pipe at once): below the shortest
// hook timeout vigil attach writes (10 s), so a stdin left open costs the
// agent a bounded wait and the hook still fails open before the agent
// kills it.
const StdinWait = 5 * time.Second

// ErrStdinOpen is returned (and logged) when stdin did not end within
// the wait: nothing was forwarded.
var ErrStdinOpen = errors.New("stdin still open")

// DefaultTimeout is the wait for an answer: long enough for the tool
// boundary and Stop waits (the sidecar bounds those by its settings and
// answers before this), short for every other event. The hook entries
// vigil attach writes give the agent's own timeout a margin over these.
func DefaultTimeout(event string) time.Duration {
	switch event {
	case EventStop, EventPostToolUse, EventPostToolUseFailure:
		return 40 * time.Second
	}
	return 5 * time.Second
}

// ErrTooLarge is returned (and logged) for an event larger than
// [MaxEvent].
var ErrTooLarge = fmt.Errorf("event larger than %d bytes: ignored", MaxEvent)

// ErrNoSidecar is returned (and logged) when no sidecar serves the
// session and none was started.
var ErrNoSidecar = errors.New("no sidecar serves this session")

// Run handles one hook event. It writes the hook's reply to o.Stdout
// only when the sidecar gave one; any error is for the log: the caller
// still exits 0.
func Run(ctx context.Context, o Options) error {
	wait := o.StdinWait
	if wait <= 0 {
		wait = StdinWait
	}
	// One bound for reading the event and draining what is too large:
	// the timer starts once.
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	body, err := readBounded(deadline.C, wait, func() ([]byte, error) { return io.ReadAll(io.LimitReader(o.Stdin, MaxEvent+1)) })
	if err != nil {
		return fmt.Errorf("read the event: %w", err)
	}
	if len(body) > MaxEvent {
		// The agent must not block on a full pipe.
		if _, err := readBounded(deadline.C, wait, func() ([]byte, error) { _, err := io.Copy(io.Discard, o.Stdin); return nil, err }); err != nil {
			return errors.Join(ErrTooLarge, fmt.Errorf("drain the event: %w", err))
		}
		return ErrTooLarge
	}
	in, err := ParseInput(body)
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

// readBounded runs read, returning its result, or ErrStdinOpen once
// expired fires (wait is the bound, for the message). A read given up
// on goes on in its goroutine until the stream ends or the process
// exits: a hook is about to.
func readBounded(expired <-chan time.Time, wait time.Duration, read func() ([]byte, error)) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := read()
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-expired:
		return nil, fmt.Errorf("%w: the event did not end within %v, so it was not forwarded", ErrStdinOpen, wait)
	}
}

// Discard reads stdin to its end, as a hook that fails open before it
// reads the event does (the agent must not block on a full pipe), for
// at most [StdinWait].
func Discard(stdin io.Reader) {
	t := time.NewTimer(StdinWait)
	defer t.Stop()
	readBounded(t.C, StdinWait, func() ([]byte, error) { _, err := io.Copy(io.Discard, stdin); return nil, err })
}

// Forward hands one event to its session's sidecar, starting one with
// spawn when none listens (never for SessionEnd), and returns the
// sidecar's reply: a JSON object, or nothing. It gives up after d. What
// goes is in as JSON, the fields vigil reads: not the tool's input and
// output, which may be megabytes the sidecar would read only to skip.
// The error is for the log; it comes with the reply when the sidecar
// answered but said it cannot do its work (its transcript cannot be
// read, its settings are broken: once per condition, [ProblemHeader]).
//
// A live sidecar says in its registry file how long it may take to
// answer each event; d shrinks to that, so a stuck sidecar costs the
// agent no more than a healthy one could.
func Forward(ctx context.Context, dir Dir, agent string, in Input, spawn Spawner, d time.Duration) ([]byte, error) {
	body, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", in.HookEventName, err)
	}
	key := Key{Agent: agent, Session: in.SessionID}
	if w, ok := dir.Wait(key, in.HookEventName); ok {
		d = min(d, w)
	}
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	out, problem, err := post(ctx, dir.Socket(key), body, d)
	if isAbsent(err) && in.HookEventName != EventSessionEnd && spawn != nil {
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

// Log appends one line to the hook log, keeping it under 1 MiB (the
// older half moves to hook.log.old).
func Log(dir Dir, agent string, err error) {
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
	fmt.Fprintf(f, "%s vigil hook %s: %s (failed open: the agent goes on)\n", time.Now().UTC().Format(time.RFC3339Nano), LogText(agent), LogText(err.Error()))
}

// Command is the whole hook command for agent, as `vigil hook AGENT`
// and `vigil-hook AGENT` run it: the event on stdin goes to its
// session's sidecar, started with the vigil binary when none answers
// (watching the agent, the hook's parent or the process above its
// shell), and the reply goes to stdout. The SessionStart and
// UserPromptSubmit events also start `vigil hookd` when
// `vigil attach --http` configured it and it is not running. It always
// succeeds: every problem goes to hook.log, or nowhere when there is
// no sidecars' folder; a stdin that stays open past [StdinWait] is
// said on stderr too.
func Command(ctx context.Context, agent string, stdin io.Reader, stdout, stderr io.Writer, lookupEnv func(string) (string, bool), vigil string) {
	dir, err := RuntimeDir(lookupEnv)
	if err != nil {
		Discard(stdin)
		return // nowhere to log: fail open silently
	}
	err = Run(ctx, Options{
		Agent:  agent,
		Stdin:  stdin,
		Stdout: stdout,
		Dir:    dir,
		// The agent started this hook (perhaps through a shell): the
		// sidecar it starts stops once that process has gone.
		Spawn: SidecarSpawner(vigil, dir, agent, func() Proc { return AgentOf(os.Getppid()) }),
		// The HTTP hooks (vigil attach --http) need vigil hookd: the
		// command hooks at the start of a session and of each prompt
		// make sure it runs.
		Before: func(ctx context.Context, in Input) error {
			if in.HookEventName != EventSessionStart && in.HookEventName != EventUserPromptSubmit {
				return nil
			}
			agentDir, err := AgentDir(lookupEnv)
			if err == nil {
				err = EnsureHookd(ctx, vigil, dir, agentDir)
			}
			if err != nil {
				return fmt.Errorf("start vigil hookd: %w", err)
			}
			return nil
		},
	})
	if err != nil {
		Log(dir, agent, err)
		if errors.Is(err, ErrStdinOpen) {
			// Not the agent's doing as a rule but a wrapper's or a
			// person's: say it where they look.
			fmt.Fprintf(stderr, "vigil hook %s: %s (failed open: the agent goes on)\n", LogText(agent), LogText(err.Error()))
		}
	}
}
