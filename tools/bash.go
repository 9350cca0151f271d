package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

//go:embed bash.md
var bashDescription string

const (
	// drainAfterExit bounds how long bash waits for the output pipe to close
	// after the shell exited: background processes may hold it open.
	drainAfterExit = time.Second
	// drainAfterKill is the same bound once the process group was killed.
	drainAfterKill = 50 * time.Millisecond
	// reapAfterKill bounds the wait for the shell to exit after SIGKILL.
	reapAfterKill = time.Second
)

// bashParams are the arguments bash takes.
func bashParams() []param {
	return []param{
		{name: "command", kind: kindString, required: true, desc: "The command line to run with bash -c in the working folder."},
		{name: "timeout", kind: kindInteger, min: intPtr(1), desc: "Seconds before the command is killed. Default {bash_timeout}."},
	}
}

type bashArgs struct {
	Command string `json:"command"`
	Timeout int    `json:"timeout"`
}

// bashTool runs a shell command.
type bashTool struct{ s *Session }

func (t *bashTool) Definition() llm.Tool {
	params := bashParams()
	for i := range params {
		params[i].desc = t.s.describe(params[i].desc)
	}
	return llm.Tool{Name: "bash", Description: t.s.describe(bashDescription), Schema: schema(params)}
}

func (t *bashTool) Run(ctx context.Context, call Call) (Result, error) {
	var args bashArgs
	if err := decodeArgs("bash", call.Arguments, bashParams(), &args); err != nil {
		return Result{}, err
	}
	if strings.TrimSpace(args.Command) == "" {
		return Result{}, errors.New("bash: command is empty")
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("bash: not started: %w", err)
	}
	timeout := t.s.opts.BashTimeout
	if args.Timeout > 0 {
		timeout = time.Duration(args.Timeout) * time.Second
	}

	pr, pw, err := os.Pipe()
	if err != nil {
		return Result{}, fmt.Errorf("bash: create output pipe: %w", err)
	}
	cmd := exec.Command(t.s.opts.Shell, "-c", args.Command)
	cmd.Dir = t.s.cwd
	cmd.Env = t.s.opts.Env
	if cmd.Env == nil {
		cmd.Env = os.Environ()
	}
	// One pipe for both streams keeps their interleaving; as an *os.File it
	// goes to the child directly, so Wait does not wait on copying.
	cmd.Stdout, cmd.Stderr = pw, pw
	startInGroup(cmd)
	if err := cmd.Start(); err != nil {
		pr.Close()
		pw.Close()
		return Result{}, fmt.Errorf("bash: start %s: %w", t.s.opts.Shell, err)
	}
	pw.Close()

	capture := &tailCapture{maxBytes: t.s.opts.MaxBytes, maxLines: t.s.opts.MaxLines, open: t.s.createArtifact}
	readDone := make(chan struct{})
	go func() { // owned by Run: ends at EOF, or when Run closes pr
		defer close(readDone)
		_, _ = io.Copy(capture, pr)
	}()
	waitDone := make(chan error, 1)
	go func() { // owned by Run: ends when the shell exits, which Run forces
		waitDone <- cmd.Wait()
	}()

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var waitErr error
	timedOut, aborted, exited := false, false, true
	select {
	case waitErr = <-waitDone:
	case <-timer.C:
		timedOut = true
		waitErr, exited = t.stop(cmd, waitDone)
	case <-ctx.Done():
		aborted = true
		waitErr, exited = t.stop(cmd, waitDone)
	}

	drain := drainAfterExit
	if timedOut || aborted {
		drain = drainAfterKill
	}
	drainTimer := time.NewTimer(drain)
	defer drainTimer.Stop()
	stillOpen := false
	select {
	case <-readDone:
	case <-drainTimer.C:
		// After a kill the group is dead and a slow close means nothing.
		stillOpen = !timedOut && !aborted
	case <-ctx.Done():
		stillOpen = !aborted
	}
	pr.Close() // ends the reader if something still holds the pipe open
	<-readDone
	capture.close()
	if p := capture.path(); p != "" {
		t.s.addArtifact(p)
	}

	text, truncated := capture.render()
	res := Result{Details: Details{Truncated: truncated, FullOutputPath: capture.path(), TimedOut: timedOut}}
	var sb strings.Builder
	sb.WriteString(text)
	if text != "" && !strings.HasSuffix(text, "\n") {
		sb.WriteByte('\n')
	}
	if text == "" {
		sb.WriteString("(no output)\n")
	}
	if stillOpen {
		sb.WriteString("[the output stream stayed open after the shell exited (a background process holds it?); output after that is lost: redirect background output to a file]\n")
	}
	switch {
	case aborted:
		// The one note of the interruption: the caller adds none
		// (Details.Aborted).
		fmt.Fprintf(&sb, "[%v; the command's process group was killed]", context.Cause(ctx))
		res.Details.Aborted = true
	case timedOut:
		fmt.Fprintf(&sb, "[timed out after %s; the command's process group was killed]", timeout)
		res.IsError = true
	default:
		code := exitCode(waitErr)
		res.Details.ExitCode = &code
		switch {
		case code == -1:
			fmt.Fprintf(&sb, "[the shell ended abnormally: %v]", waitErr)
			res.IsError = true
		case code != 0:
			fmt.Fprintf(&sb, "[exit code %d]", code)
			res.IsError = true
		}
	}
	if (timedOut || aborted) && !exited {
		sb.WriteString("\n[the shell did not exit even after SIGKILL]")
	}
	res.Content = []llm.Block{llm.Text(strings.TrimSuffix(sb.String(), "\n"))}
	if aborted {
		res.IsError = true
		return res, fmt.Errorf("bash: aborted: %w", context.Cause(ctx))
	}
	return res, nil
}

// stop ends the command's process group: SIGTERM, then SIGKILL once the
// shell exited or the grace period ran out, whichever is first. It reports
// the shell's wait result and whether the shell exited within the bounds.
func (t *bashTool) stop(cmd *exec.Cmd, waitDone <-chan error) (waitErr error, exited bool) {
	_ = terminateGroup(cmd)
	grace := time.NewTimer(t.s.opts.KillGrace)
	defer grace.Stop()
	select {
	case err := <-waitDone:
		// Whatever in the group ignored SIGTERM goes now.
		_ = killGroup(cmd)
		return err, true
	case <-grace.C:
	}
	_ = killGroup(cmd)
	reap := time.NewTimer(reapAfterKill)
	defer reap.Stop()
	select {
	case err := <-waitDone:
		return err, true
	case <-reap.C:
		return nil, false
	}
}

// exitCode returns the exit code a wait result carries: 0 for success, the
// code for an exit, -1 when the process was killed by a signal.
func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

// createArtifact creates the file a command's whole output spills to.
func (s *Session) createArtifact() (*os.File, error) {
	dir := s.opts.ArtifactsDir
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("create artifacts folder: %w", err)
		}
	}
	f, err := os.CreateTemp(dir, "bash-*.log")
	if err != nil {
		return nil, fmt.Errorf("create output file: %w", err)
	}
	return f, nil
}
