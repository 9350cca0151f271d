package hookwire

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Key names one watched session: the agent and the agent's session id.
// It has the fields of sidecar.Key.
type Key struct {
	Agent   string `json:"agent"`
	Session string `json:"session"`
}

// Name is the key's file name stem: a hash, short enough for a unix
// socket path and free of anything the session id could smuggle in.
func (k Key) Name() string {
	sum := sha256.Sum256([]byte(k.Agent + "\x00" + k.Session))
	return hex.EncodeToString(sum[:8])
}

// Dir is the per-user folder of live sidecars: their sockets, locks,
// logs and registry files. Only its owner may use it.
type Dir string

// RuntimeDir returns the sidecars' folder, creating it with mode 0700:
// $VIGIL_RUNTIME_DIR, else $XDG_RUNTIME_DIR/vigil, else
// <temp>/vigil-<uid>. It refuses a folder another user owns or that
// others may enter, since a socket there would let them talk to the
// sidecar.
func RuntimeDir(lookupEnv func(string) (string, bool)) (Dir, error) {
	var dir string
	if d, ok := lookupEnv("VIGIL_RUNTIME_DIR"); ok && d != "" {
		dir = d
	} else if d, ok := lookupEnv("XDG_RUNTIME_DIR"); ok && d != "" {
		dir = filepath.Join(d, "vigil")
	} else {
		dir = filepath.Join(os.TempDir(), "vigil-"+strconv.Itoa(os.Getuid()))
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("sidecar folder: %w", err)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", fmt.Errorf("sidecar folder: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("sidecar folder %s is not a folder", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return "", fmt.Errorf("sidecar folder %s belongs to user %d, not to you", dir, st.Uid)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", fmt.Errorf("sidecar folder %s is open to others (%v) and cannot be closed: %w", dir, fi.Mode().Perm(), err)
		}
	}
	return Dir(dir), nil
}

// Socket is the path of k's unix socket.
func (d Dir) Socket(k Key) string { return filepath.Join(string(d), k.Name()+".sock") }

// Info is the path of k's registry file.
func (d Dir) Info(k Key) string { return filepath.Join(string(d), k.Name()+".json") }

// Log is the path of k's sidecar log.
func (d Dir) Log(k Key) string { return filepath.Join(string(d), k.Name()+".log") }

// HookLog is the path of the hook command's log, where it says why it
// failed open.
func (d Dir) HookLog() string { return filepath.Join(string(d), "hook.log") }

// Wait returns how long k's live sidecar says, in its registry file, it
// may take to answer event; ok is false when it promises nothing (no
// sidecar, no record, or none for that event).
func (d Dir) Wait(k Key, event string) (time.Duration, bool) {
	b, err := os.ReadFile(d.Info(k))
	if err != nil {
		return 0, false
	}
	var info struct {
		Waits map[string]int64 `json:"waits_ms"`
	}
	if json.Unmarshal(b, &info) != nil {
		return 0, false
	}
	ms, ok := info.Waits[event]
	return time.Duration(ms) * time.Millisecond, ok && ms > 0
}
