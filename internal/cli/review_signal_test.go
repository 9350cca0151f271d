package cli

import (
	"bytes"
	"context"
	"errors"
	"syscall"
	"testing"
	"time"
)

// fakeWatch is a signalWatch whose grace and exit the test controls.
type fakeWatch struct {
	ctx   context.Context
	w     *signalWatch
	grace chan time.Time
	exits chan int
	out   *bytes.Buffer
	ran   chan struct{}
}

func newFakeWatch() *fakeWatch {
	f := &fakeWatch{grace: make(chan time.Time), exits: make(chan int, 1), out: &bytes.Buffer{}, ran: make(chan struct{})}
	f.ctx, f.w = newSignalWatch(context.Background(), f.out, func() <-chan time.Time { return f.grace }, func(code int) { f.exits <- code })
	go func() {
		defer close(f.ran)
		f.w.run()
	}()
	return f
}

func TestSignalCancelsThenGraceExits(t *testing.T) {
	f := newFakeWatch()
	f.w.ch <- syscall.SIGTERM
	<-f.ctx.Done()
	if cause := context.Cause(f.ctx); cause.Error() != "interrupted (SIGTERM)" || !errors.Is(cause, context.Canceled) {
		t.Errorf("cause %v", cause)
	}
	f.grace <- time.Now() // the command is still running
	if code := <-f.exits; code != 143 {
		t.Errorf("exit %d, want 143", code)
	}
	<-f.ran
	if got := f.out.String(); got != "vigil: SIGTERM: stopping now (still running 3s after the signal)\n" {
		t.Errorf("stderr %q", got)
	}
}

func TestSecondSignalExits(t *testing.T) {
	f := newFakeWatch()
	f.w.ch <- syscall.SIGINT
	<-f.ctx.Done()
	f.w.ch <- syscall.SIGINT
	if code := <-f.exits; code != 130 {
		t.Errorf("exit %d, want 130", code)
	}
	<-f.ran
}

func TestCommandReturnsAfterSignal(t *testing.T) {
	f := newFakeWatch()
	f.w.ch <- syscall.SIGINT
	<-f.ctx.Done()
	err := f.w.finish(errors.New("review: interrupted (SIGINT)"))
	<-f.ran
	if ExitCode(err) != 130 || err.Error() != "review: interrupted (SIGINT)" {
		t.Errorf("got %v, status %d", err, ExitCode(err))
	}
	select {
	case code := <-f.exits:
		t.Errorf("exited with %d after the command returned", code)
	default:
	}
	// Without a signal, the error is the command's own.
	g := newFakeWatch()
	if err := g.w.finish(&exitError{code: exitFindings}); ExitCode(err) != exitFindings {
		t.Errorf("status %d", ExitCode(err))
	}
	<-g.ran
	if err := g.ctx.Err(); err == nil {
		t.Error("the context outlives the command")
	}
}
