package sidecar

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// SpawnReadyWait bounds how long [SpawnDetached] waits for the process
// it started to say it is ready.
const SpawnReadyWait = 3 * time.Second

// SpawnDetached starts this executable with args (and --ready-fd 3) in a
// session of its own (setsid), detached from the caller's streams (an
// agent waits for a hook's to close), its output appended to logPath,
// and waits until it writes its ready byte on descriptor 3, exits, or
// [SpawnReadyWait] passes. args[0] names the process in the errors. The
// started process is not waited for: a goroutine reaps it if it exits
// while the caller still runs.
func SpawnDetached(ctx context.Context, logPath, cwd string, args ...string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	logf, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer logf.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		return err
	}
	defer pr.Close()
	cmd := exec.Command(self, append(args, "--ready-fd", "3")...)
	cmd.Dir = cwd
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.ExtraFiles = []*os.File{pw}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return err
	}
	go cmd.Wait() // reap it if it exits while we still run
	ready := make(chan bool, 1)
	go func() {
		var b [1]byte
		n, _ := pr.Read(b[:]) // one byte when ready; EOF if it exits first
		ready <- n == 1
	}()
	t := time.NewTimer(SpawnReadyWait)
	defer t.Stop()
	select {
	case ok := <-ready:
		if !ok {
			return fmt.Errorf("vigil %s exited before it served (see %s)", args[0], logPath)
		}
		return nil
	case <-t.C:
		return fmt.Errorf("vigil %s did not get ready within %v (see %s)", args[0], SpawnReadyWait, logPath)
	case <-ctx.Done():
		return ctx.Err()
	}
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
