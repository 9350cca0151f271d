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
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Proc names a process: its id and its start time (field 22 of
// /proc/PID/stat, in clock ticks since boot; 0 where there is no /proc,
// when only the id is compared).
type Proc struct {
	PID   int
	Start uint64
}

// procStat reads a process's parent id, command name and start time
// from /proc/PID/stat.
func procStat(pid int) (ppid int, comm string, start uint64, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", 0, err
	}
	s := string(b)
	// The command name is in parentheses and may hold anything, ")"
	// too: the fields go on after the last one.
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return 0, "", 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	comm = s[open+1 : end]
	fields := strings.Fields(s[end+1:])
	// fields[0] is field 3 (state): the parent is field 4, the start
	// time field 22.
	if len(fields) < 20 {
		return 0, "", 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(fields)+2)
	}
	ppid, err = strconv.Atoi(fields[1])
	if err == nil {
		start, err = strconv.ParseUint(fields[19], 10, 64)
	}
	if err != nil {
		return 0, "", 0, fmt.Errorf("/proc/%d/stat: %w", pid, err)
	}
	return ppid, comm, start, nil
}

// ProcOf returns pid's process with its start time; without /proc, the
// id alone.
func ProcOf(pid int) Proc {
	if _, _, start, err := procStat(pid); err == nil {
		return Proc{PID: pid, Start: start}
	}
	return Proc{PID: pid}
}

// shells are the command names of shells an agent may run its hook
// commands under: such a parent ends with the hook, so the agent is
// further up.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "busybox": true}

// AgentOf returns the agent a hook command runs for, from the hook's
// parent process ppid: the parent itself, or, when that is a shell, the
// first process above it that is not. It returns the zero Proc (nothing
// to watch) when there is no parent to watch (init, or none).
func AgentOf(ppid int) Proc {
	pid := ppid
	for range 4 {
		if pid <= 1 {
			return Proc{}
		}
		up, comm, start, err := procStat(pid)
		if err != nil {
			// No /proc: the parent is all we can name.
			return Proc{PID: pid}
		}
		if !shells[comm] {
			return Proc{PID: pid, Start: start}
		}
		pid = up
	}
	return Proc{}
}

// Alive reports whether p still runs: a process with its id exists and,
// when p has a start time, started then (not another process that was
// given the id since).
func (p Proc) Alive() bool {
	if p.PID <= 0 {
		return false
	}
	if err := syscall.Kill(p.PID, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	if p.Start == 0 {
		return true
	}
	_, _, start, err := procStat(p.PID)
	if err != nil {
		return errors.Is(err, syscall.EACCES) // there, but hidden from us
	}
	return start == p.Start
}

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
