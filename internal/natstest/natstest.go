// Package natstest runs a real nats-server in process for tests: the
// fleet's tests and the CLI's fleet scenarios share it, so that every
// one of them starts the server the same way (loopback, a free port,
// JetStream on a temporary folder, no log, no signal handlers) and
// bounds its shutdown.
package natstest

import (
	"runtime"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ReadyBound bounds the wait for a started server to take connections.
const ReadyBound = 30 * time.Second

// ShutdownBound bounds a test's cleanup wait for the server's shutdown:
// past it the test fails with every goroutine's stack instead of hanging
// until the test binary's timeout.
const ShutdownBound = time.Minute

// Options are the options [Start] uses: loopback, a free port (-1),
// JetStream in a temporary folder of tb's, no log, no signal handlers.
// Change them and pass them to [StartWith] or [Run].
func Options(tb testing.TB) *server.Options {
	tb.Helper()
	return &server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: tb.TempDir(), NoLog: true, NoSigs: true}
}

// Start runs a nats-server with [Options] until the test ends.
func Start(tb testing.TB) *server.Server {
	tb.Helper()
	return StartWith(tb, Options(tb))
}

// StartWith runs a nats-server with opts until the test ends.
func StartWith(tb testing.TB, opts *server.Options) *server.Server {
	tb.Helper()
	s := Run(tb, opts)
	tb.Cleanup(func() { Shutdown(tb, s) })
	return s
}

// Run starts a nats-server with opts and returns it once it takes
// connections; the caller shuts it down ([Shutdown]), as a test that
// restarts the server on the same port does.
func Run(tb testing.TB, opts *server.Options) *server.Server {
	tb.Helper()
	s, err := server.NewServer(opts)
	if err != nil {
		tb.Fatalf("nats-server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(ReadyBound) {
		s.Shutdown()
		tb.Fatalf("nats-server did not take connections within %s", ReadyBound)
	}
	return s
}

// Shutdown shuts s down and waits for it, at most [ShutdownBound]; past
// that it fails tb with every goroutine's stack.
func Shutdown(tb testing.TB, s *server.Server) {
	tb.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Shutdown()
		s.WaitForShutdown()
	}()
	select {
	case <-done:
	case <-time.After(ShutdownBound):
		buf := make([]byte, 1<<20)
		tb.Errorf("the nats-server's shutdown did not end within %s; the goroutines:\n%s", ShutdownBound, buf[:runtime.Stack(buf, true)])
	}
}
