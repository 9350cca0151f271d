// Command fakellm serves a fakellm script on a local port, so that agents
// such as Claude Code, Codex or pi can talk to a scripted model.
//
//	fakellm --script FILE [--addr 127.0.0.1:0] [--log FILE|-]
//
// The first line of its output is "fakellm listening on URL". It serves
// until interrupted. See docs/fakellm.md for the script format.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/vigil-dev/vigil/internal/fakellm"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "fakellm:", err)
		}
		os.Exit(2)
	}
}

// run serves the script named in args until ctx is done. It writes the
// listening line to stdout, and the request log to stdout or a file when
// asked to.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	fs.SetOutput(stderr)
	scriptPath := fs.String("script", "", "script `file` (YAML or JSON), required")
	addr := fs.String("addr", "127.0.0.1:0", "`address` to listen on")
	logPath := fs.String("log", "", "write the JSON-lines request log to `file` (- for stdout)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *scriptPath == "" || fs.NArg() > 0 {
		fs.Usage()
		return errors.New("usage: fakellm --script FILE [--addr ADDR] [--log FILE|-]")
	}
	script, err := fakellm.LoadScript(*scriptPath)
	if err != nil {
		return err
	}

	out := &lockedWriter{w: stdout}
	opts := []fakellm.Option{fakellm.WithAddr(*addr)}
	switch *logPath {
	case "":
	case "-":
		opts = append(opts, fakellm.WithLog(out))
	default:
		f, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("open log: %w", err)
		}
		defer f.Close()
		opts = append(opts, fakellm.WithLog(f))
	}

	// Holding out's lock from Start until the listening line is written
	// keeps every log line after it.
	out.mu.Lock()
	srv, err := fakellm.Start(script, opts...)
	var writeErr error
	if err == nil {
		_, writeErr = fmt.Fprintf(stdout, "fakellm listening on %s\n", srv.URL())
	}
	out.mu.Unlock()
	if err != nil {
		return err
	}
	if writeErr != nil {
		return errors.Join(fmt.Errorf("write address: %w", writeErr), srv.Close())
	}
	<-ctx.Done()
	return srv.Close()
}

// lockedWriter serializes writes to stdout.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
