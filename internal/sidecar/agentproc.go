package sidecar

// Sidecars that end with their agent. Codex has no SessionEnd hook, so
// a sidecar would otherwise wait out its idle timeout after every
// `codex exec`. The hook command is started by the agent (or by a shell
// the agent started), so the hook finds the agent's process from its
// parent and passes it to the sidecar it starts; the sidecar looks now
// and then whether that process still runs, and once it has gone and
// the transcript has been quiet a while, it waits (bounded) for the
// advisor's backlog, logs the notes no hook can take any more, and
// stops. A process is known by its id and its start time, so an id the
// system gave to another process since is taken for the agent gone.

import (
	"context"
	"fmt"
	"time"

	"github.com/vigil-dev/vigil/internal/hookwire"
)

// Proc names a process by its id and start time: [hookwire.Proc], which
// the hook command finds the agent's with.
type Proc = hookwire.Proc

// ProcOf returns pid's process with its start time: [hookwire.ProcOf].
func ProcOf(pid int) Proc { return hookwire.ProcOf(pid) }

// AgentOf returns the agent a hook command runs for, from the hook's
// parent process: [hookwire.AgentOf].
func AgentOf(ppid int) Proc { return hookwire.AgentOf(ppid) }

// Defaults of an [AgentWatch].
const (
	// DefaultAgentPoll is how often a sidecar looks whether its agent
	// still runs.
	DefaultAgentPoll = 500 * time.Millisecond
	// DefaultQuiet is how long the transcript must have been quiet (no
	// entry read, no hook) after the agent has gone.
	DefaultQuiet = 2 * time.Second
	// DefaultDrainWait bounds the wait for the advisor's backlog before
	// a sidecar whose agent has gone stops.
	DefaultDrainWait = 10 * time.Second
)

// AgentWatch makes [Serve] stop the sidecar once the agent it watches
// has gone.
type AgentWatch struct {
	// Proc is the agent's process; the zero Proc watches nothing.
	Proc Proc
	// Alive says whether a process still runs; nil is [Proc.Alive].
	Alive func(Proc) bool
	// Tick, when set, says when to look (for tests); else a ticker of
	// Poll (0: DefaultAgentPoll).
	Tick <-chan time.Time
	Poll time.Duration
	// Quiet and DrainWait: 0 means DefaultQuiet, DefaultDrainWait.
	Quiet     time.Duration
	DrainWait time.Duration
}

func (w *AgentWatch) defaults() {
	if w.Alive == nil {
		w.Alive = Proc.Alive
	}
	if w.Poll <= 0 {
		w.Poll = DefaultAgentPoll
	}
	if w.Quiet <= 0 {
		w.Quiet = DefaultQuiet
	}
	if w.DrainWait <= 0 {
		w.DrainWait = DefaultDrainWait
	}
}

// touch notes activity of the agent (a hook, an entry read). The caller
// holds mu.
func (s *Sidecar) touchLocked() { s.lastActive = time.Now() }

// checkAgent reads the transcript, and when the watched agent has gone
// and the transcript has been quiet w.Quiet, drains what is pending and
// ends the sidecar; it reports whether it did.
func (s *Sidecar) checkAgent(ctx context.Context, w AgentWatch) bool {
	if w.Proc.PID <= 0 || w.Alive(w.Proc) {
		return false
	}
	s.Sync()
	s.mu.Lock()
	quiet := time.Since(s.lastActive)
	s.mu.Unlock()
	if quiet < w.Quiet {
		return false
	}
	s.drain(ctx, w.DrainWait)
	s.end(fmt.Sprintf("the agent (process %d) has gone", w.Proc.PID))
	return true
}

// drain waits, at most d, for the advisor to review the steps read, and
// logs the notes that no hook can take any more (the advisor recorded
// them in the session's __advisor.jsonl).
func (s *Sidecar) drain(ctx context.Context, d time.Duration) {
	if s.o.Disabled != "" {
		s.o.Logf("the agent has gone: stopping")
		return
	}
	start := time.Now()
	s.wait(ctx, d, 1)
	steers, asides, cards := s.o.Host.Pending()
	s.o.Logf("the agent has gone and its transcript is quiet: stopping after %v of review; %d notes undelivered (%d interrupting, %d asides, %d for the next prompt)",
		time.Since(start).Round(time.Millisecond), steers+asides+cards, steers, asides, cards)
}
