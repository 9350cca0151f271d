package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// exitError asks for a particular exit status. Its message may be empty,
// for a status that needs no words.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// Exit statuses beyond 0 (success) and 1 (the default for an error).
const (
	// exitFindings is `vigil review --fail-on`'s status when a finding at
	// or above the threshold was found.
	exitFindings = 1
	// exitUsage is the status of a command line vigil cannot use, and of
	// review and eval errors.
	exitUsage = 2
)

// ExitCode returns the exit status for an error [Run] returned: 0 for
// nil, the status the error asks for (`vigil review` uses 1 for findings
// at or above --fail-on and 2 for errors; a command line that cannot be
// parsed is 2; a command that SIGINT or SIGTERM stopped with an error is
// 130 or 143), and 1 for any other error.
func ExitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return 1
}

// stopGrace is how long a command has to stop after SIGINT or SIGTERM
// cancels its context before the process exits anyway: whatever it was
// blocked in (an open, a read, a child) must not keep it alive. A second
// signal ends it at once.
const stopGrace = 3 * time.Second

// signalStop is the cause of a context cancelled by a signal.
type signalStop struct{ sig os.Signal }

func (s signalStop) Error() string { return "interrupted (" + signalName(s.sig) + ")" }

// Is makes a signal's stop a cancellation, as signal.NotifyContext's is.
func (s signalStop) Is(target error) bool { return target == context.Canceled }

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// signalStatus is the exit status of a process ended by sig, as a shell
// reports it: 128 plus the signal's number (130 for SIGINT, 143 for
// SIGTERM).
func signalStatus(sig os.Signal) int {
	if n, ok := sig.(syscall.Signal); ok {
		return 128 + int(n)
	}
	return 1
}

// signalWatch is Run's handling of SIGINT and SIGTERM: the first cancels
// the command's context (with a signalStop cause) and starts the grace;
// a second signal, or the grace running out, exits the process with the
// signal's status.
type signalWatch struct {
	ch     chan os.Signal
	done   chan struct{}
	cancel context.CancelCauseFunc
	stderr io.Writer
	// grace starts the grace after the first signal; exit ends the
	// process (os.Exit, which does not return).
	grace func() <-chan time.Time
	exit  func(code int)
	// got is the first signal, once one came.
	mu  sync.Mutex
	got os.Signal
}

// watchSignals starts watching for SIGINT and SIGTERM while a command
// runs in the returned context; finish stops it.
func watchSignals(ctx context.Context, stderr io.Writer) (context.Context, *signalWatch) {
	var timer *time.Timer
	ctx, w := newSignalWatch(ctx, stderr, func() <-chan time.Time {
		timer = time.NewTimer(stopGrace)
		return timer.C
	}, os.Exit)
	signal.Notify(w.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		w.run()
		if timer != nil {
			timer.Stop()
		}
	}()
	return ctx, w
}

func newSignalWatch(ctx context.Context, stderr io.Writer, grace func() <-chan time.Time, exit func(int)) (context.Context, *signalWatch) {
	ctx, cancel := context.WithCancelCause(ctx)
	return ctx, &signalWatch{ch: make(chan os.Signal, 2), done: make(chan struct{}), cancel: cancel, stderr: stderr, grace: grace, exit: exit}
}

// run handles the signals until the command returns or the process is
// ended.
func (w *signalWatch) run() {
	var grace <-chan time.Time
	for {
		select {
		case <-w.done:
			return
		case sig := <-w.ch:
			w.mu.Lock()
			first := w.got
			if first == nil {
				w.got = sig
			}
			w.mu.Unlock()
			if first != nil {
				w.stop(sig, "a second signal")
				return
			}
			w.cancel(signalStop{sig})
			grace = w.grace()
		case <-grace:
			w.stop(w.signal(), fmt.Sprintf("still running %v after the signal", stopGrace))
			return
		}
	}
}

// stop ends the process, unless the command has returned meanwhile.
func (w *signalWatch) stop(sig os.Signal, why string) {
	select {
	case <-w.done:
		return
	default:
	}
	fmt.Fprintf(w.stderr, "vigil: %s: stopping now (%s)\n", signalName(sig), why)
	w.exit(signalStatus(sig))
}

func (w *signalWatch) signal() os.Signal {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.got
}

// finish stops watching and returns the command's error, with the
// signal's exit status when a signal stopped it.
func (w *signalWatch) finish(err error) error {
	signal.Stop(w.ch)
	close(w.done)
	w.cancel(nil)
	if sig := w.signal(); sig != nil && err != nil {
		return &exitError{code: signalStatus(sig), err: err}
	}
	return err
}
