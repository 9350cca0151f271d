package sidecar

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"
)

// SessionLock is a watched session's lock ([Dir.Lock]), held by the one
// sidecar that serves the session, from before it creates anything of
// the session's (vigil's session file, the advisor's transcript) until
// it stops. The kernel drops it when the process ends, however it ends.
type SessionLock struct{ f *os.File }

// TakeLock takes k's lock without waiting; [ErrRunning] when another
// sidecar holds it. Several hooks of a new session can start a sidecar
// each at once (parallel tool calls): only the one that gets the lock
// may go on to create the session's files.
func (d Dir) TakeLock(k Key) (*SessionLock, error) {
	f, err := os.OpenFile(d.Lock(k), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("sidecar lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrRunning
		}
		return nil, fmt.Errorf("sidecar lock %s: %w", d.Lock(k), err)
	}
	return &SessionLock{f: f}, nil
}

// Close releases the lock.
func (l *SessionLock) Close() error { return l.f.Close() }

// AwaitServing waits until k's socket accepts a connection, ctx is done
// or within passes, and reports whether it does. A sidecar that lost the
// race for the lock waits so before it tells the hook that started it to
// go on: the hook's event then reaches the sidecar that won, which may
// still be loading its settings.
func (d Dir) AwaitServing(ctx context.Context, k Key, within time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	var dialer net.Dialer
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, err := dialer.DialContext(ctx, "unix", d.Socket(k)); err == nil {
			c.Close()
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-tick.C:
		}
	}
}
