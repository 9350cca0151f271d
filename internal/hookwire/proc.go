package hookwire

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Proc names a process: its id and its start time (field 22 of
// /proc/PID/stat, in clock ticks since boot; 0 where there is no /proc,
// when only the id is compared). The sidecar watches its agent by it.
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

// ProcOf returns pid's process with its start time; without /proc, the
// id alone.
func ProcOf(pid int) Proc {
	if _, _, start, err := procStat(pid); err == nil {
		return Proc{PID: pid, Start: start}
	}
	return Proc{PID: pid}
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
