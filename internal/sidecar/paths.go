package sidecar

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/vigil-dev/vigil/internal/hookwire"
)

// Key names one watched session (the agent and its session id):
// [hookwire.Key], which the hook command names the session's files by.
type Key = hookwire.Key

// Dir is the per-user folder of live sidecars: their sockets, locks,
// logs and registry files. Only its owner may use it. Its paths are the
// ones [hookwire.Dir] gives the hook command.
type Dir string

// RuntimeDir returns the sidecars' folder, creating it with mode 0700:
// [hookwire.RuntimeDir] ($VIGIL_RUNTIME_DIR, else $XDG_RUNTIME_DIR/vigil,
// else <temp>/vigil-<uid>; refused when another user owns it or others
// may enter).
func RuntimeDir(lookupEnv func(string) (string, bool)) (Dir, error) {
	d, err := hookwire.RuntimeDir(lookupEnv)
	return Dir(d), err
}

// Socket is the path of k's unix socket.
func (d Dir) Socket(k Key) string { return hookwire.Dir(d).Socket(k) }

// Lock is the path of the file a sidecar holds locked while it runs, so
// that a second start finds the first.
func (d Dir) Lock(k Key) string { return filepath.Join(string(d), k.Name()+".lock") }

// Info is the path of k's registry file.
func (d Dir) Info(k Key) string { return hookwire.Dir(d).Info(k) }

// Log is the path of k's sidecar log.
func (d Dir) Log(k Key) string { return hookwire.Dir(d).Log(k) }

// HookLog is the path of the hook command's log, where it says why it
// failed open.
func (d Dir) HookLog() string { return hookwire.Dir(d).HookLog() }

// Info describes a live sidecar; the sidecar writes it when it starts
// serving and removes it when it stops.
type Info struct {
	Key
	PID        int       `json:"pid"`
	Transcript string    `json:"transcript"`
	Cwd        string    `json:"cwd"`
	Socket     string    `json:"socket"`
	Started    time.Time `json:"started"`
	// VigilSession is the session file vigil keeps for the watched
	// session (its artifacts folder holds __advisor.jsonl).
	VigilSession string `json:"vigil_session,omitempty"`
	// Reviewer says what reviews: a model reference, or "rules".
	Reviewer string `json:"reviewer,omitempty"`
	// Waits are the longest the sidecar may take to answer each event,
	// in milliseconds, from its settings (absent: no promise), so the
	// hook command gives up on a stuck sidecar after that, not after
	// its own generous default.
	Waits map[string]int64 `json:"waits_ms,omitempty"`
	// AgentPID and AgentStart name the agent's process the sidecar
	// watches (its start time in clock ticks since boot, 0 when
	// unknown): it stops once that has gone. Absent: it watches none.
	AgentPID   int    `json:"agent_pid,omitempty"`
	AgentStart uint64 `json:"agent_start,omitempty"`
}

// ReadInfo reads k's registry file; ok is false when there is none or it
// cannot be read (a hook does without it).
func (d Dir) ReadInfo(k Key) (in Info, ok bool) {
	b, err := os.ReadFile(d.Info(k))
	if err != nil || json.Unmarshal(b, &in) != nil {
		return Info{}, false
	}
	return in, true
}

// WriteInfo records a live sidecar, atomically.
func (d Dir) WriteInfo(in Info) error {
	b, err := json.MarshalIndent(in, "", "  ")
	if err != nil {
		return fmt.Errorf("sidecar info: %w", err)
	}
	path := d.Info(in.Key)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("sidecar info: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("sidecar info: %w", err)
	}
	return nil
}

// List returns the sidecars recorded in d whose process is still alive;
// the records of dead ones are removed. A record it cannot read is
// returned as an error next to the others.
func (d Dir) List() ([]Info, error) {
	names, err := filepath.Glob(filepath.Join(string(d), "*.json"))
	if err != nil {
		return nil, fmt.Errorf("list sidecars: %w", err)
	}
	var out []Info
	var errs []error
	for _, name := range names {
		b, err := os.ReadFile(name)
		if errors.Is(err, fs.ErrNotExist) {
			continue // it stopped while we listed
		}
		var in Info
		if err == nil {
			err = json.Unmarshal(b, &in)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("sidecar record %s: %w", name, err))
			continue
		}
		if !alive(in.PID) {
			os.Remove(name)
			continue
		}
		out = append(out, in)
	}
	return out, errors.Join(errs...)
}

// alive reports whether a process with that id exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
