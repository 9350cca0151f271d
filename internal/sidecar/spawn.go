package sidecar

import (
	"context"
	"os"
	"sync"

	"github.com/vigil-dev/vigil/internal/hookwire"
)

// SpawnReadyWait bounds how long [SpawnDetached] waits for the process
// it started to say it is ready: [hookwire.SpawnReadyWait].
const SpawnReadyWait = hookwire.SpawnReadyWait

// SpawnDetached starts this executable with args (and --ready-fd 3) in a
// session of its own, detached from the caller's streams, its output
// appended to logPath, and waits until it is ready, exits, or
// [SpawnReadyWait] passes: [hookwire.SpawnDetached] on this executable.
func SpawnDetached(ctx context.Context, logPath, cwd string, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	return hookwire.SpawnDetached(ctx, self, logPath, cwd, args...)
}

// ReadyPipe is the pipe a background vigil (the sidecar, hookd) that
// [SpawnDetached] started writes one byte to once it serves, so the hook
// that started it can go on. Close closes it once; with no descriptor
// passed, it does nothing.
type ReadyPipe struct {
	f    *os.File
	once sync.Once
}

// NewReadyPipe wraps descriptor fd, the --ready-fd a process was given
// (no pipe when fd is not above 2: 0 means none was passed).
func NewReadyPipe(fd int) *ReadyPipe {
	r := &ReadyPipe{}
	if fd > 2 {
		r.f = os.NewFile(uintptr(fd), "ready")
	}
	return r
}

// Write writes b to the pipe, or does nothing without one.
func (r *ReadyPipe) Write(b []byte) (int, error) {
	if r.f == nil {
		return len(b), nil
	}
	return r.f.Write(b)
}

// Close closes the pipe the first time it is called.
func (r *ReadyPipe) Close() error {
	r.once.Do(func() {
		if r.f != nil {
			r.f.Close()
		}
	})
	return nil
}
