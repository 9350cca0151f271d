//go:build unix

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBash(t *testing.T) {
	s, root := newSession(t, Options{Env: append(os.Environ(), "VIGIL_TEST_VAR=from-env")})
	tests := []struct {
		name     string
		command  string
		want     string
		wantCode int
	}{
		{name: "echo", command: "echo hello", want: "hello"},
		{name: "stdout and stderr interleave", command: "echo out; echo err >&2; echo out2", want: "out\nerr\nout2"},
		{name: "runs in the working folder", command: "pwd", want: root},
		{name: "no output", command: "true", want: "(no output)"},
		{name: "no final newline", command: "printf abc", want: "abc"},
		{name: "stdin is empty", command: "cat; echo done", want: "done"},
		{name: "environment from options", command: "echo $VIGIL_TEST_VAR", want: "from-env"},
		{name: "non-zero exit", command: "echo failing; exit 3", want: "failing\n[exit code 3]", wantCode: 3},
		{name: "failure without output", command: "false", want: "(no output)\n[exit code 1]", wantCode: 1},
		{name: "command not found", command: "definitely-not-a-command-xyz", want: "bash: line 1: definitely-not-a-command-xyz: command not found\n[exit code 127]", wantCode: 127},
		{name: "each call starts afresh", command: "echo ${SET_BY_EARLIER_CALL:-unset}", want: "unset"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustRun(t, s, "bash", map[string]any{"command": "export SET_BY_EARLIER_CALL=1; cd /"})
			res := mustRun(t, s, "bash", map[string]any{"command": tt.command})
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if res.Details.ExitCode == nil || *res.Details.ExitCode != tt.wantCode {
				t.Errorf("exit code %v, want %d", res.Details.ExitCode, tt.wantCode)
			}
			if res.IsError != (tt.wantCode != 0) {
				t.Errorf("IsError = %v for exit code %d", res.IsError, tt.wantCode)
			}
		})
	}
}

func TestBashErrors(t *testing.T) {
	s, _ := newSession(t, Options{})
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "missing command", args: `{}`, want: `bash: missing required argument "command" (string)`},
		{name: "empty command", args: `{"command":"  "}`, want: "bash: command is empty"},
		{name: "timeout as a string", args: `{"command":"true","timeout":"10"}`, want: `bash: argument "timeout" must be an integer, got string "10"`},
		{name: "timeout zero", args: `{"command":"true","timeout":0}`, want: `bash: argument "timeout" must be at least 1, got 0`},
		{name: "unknown argument", args: `{"command":"true","cwd":"/"}`, want: `bash: unknown argument "cwd" (bash takes: command, timeout)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, s, "bash", tt.args)
			wantErr(t, err, tt.want)
		})
	}
	t.Run("shell missing", func(t *testing.T) {
		s, _ := newSession(t, Options{Shell: "/nonexistent/shell"})
		_, err := run(t, s, "bash", `{"command":"true"}`)
		wantErr(t, err, "bash: start /nonexistent/shell:")
	})
	t.Run("context already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := runCtx(ctx, t, s, "bash", `{"command":"true"}`)
		wantErr(t, err, "bash: not started: context canceled")
	})
}

// pidFromOutput returns the number on the first line of a result.
func pidFromOutput(t *testing.T, res Result) int {
	t.Helper()
	first, _, _ := strings.Cut(res.Text(), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(first))
	if err != nil {
		t.Fatalf("no pid in output %q", res.Text())
	}
	return pid
}

func TestBashTimeout(t *testing.T) {
	s, _ := newSession(t, Options{})
	res := mustRun(t, s, "bash", map[string]any{"command": "echo $$; echo started; sleep 30 & sleep 30", "timeout": 1})
	pid := pidFromOutput(t, res)
	wantText(t, res, "started\n[timed out after 1s; the command's process group was killed]")
	if !res.IsError || !res.Details.TimedOut || res.Details.ExitCode != nil {
		t.Errorf("IsError %v, TimedOut %v, ExitCode %v; want true, true, nil", res.IsError, res.Details.TimedOut, res.Details.ExitCode)
	}
	if groupAlive(pid) {
		t.Errorf("process group %d still has live processes after the timeout", pid)
	}
}

func TestBashTimeoutKillsStubbornProcesses(t *testing.T) {
	s, _ := newSession(t, Options{BashTimeout: 50 * time.Millisecond, KillGrace: 50 * time.Millisecond})
	// The shell ignores SIGTERM, so only SIGKILL after the grace ends it.
	res := mustRun(t, s, "bash", map[string]any{"command": "trap '' TERM; echo $$; while :; do :; done"})
	pid := pidFromOutput(t, res)
	wantText(t, res, "[timed out after 50ms; the command's process group was killed]")
	if groupAlive(pid) {
		t.Errorf("process group %d survived SIGKILL", pid)
	}
}

// TestBashAbort starts sleep 3600, cancels the call's context once the
// command is known to be running, and checks that Run returns and that the
// command's process group is gone.
func TestBashAbort(t *testing.T) {
	s, _ := newSession(t, Options{})
	fifo := filepath.Join(t.TempDir(), "started")
	if err := mkfifo(fifo); err != nil {
		t.Fatalf("mkfifo: %v", err)
	}
	bash := toolNamed(t, s.Tools(), "bash")
	args, _ := json.Marshal(map[string]any{"command": fmt.Sprintf("echo $$ > %q; sleep 3600", fifo)})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := bash.Run(ctx, Call{ID: "1", Name: "bash", Arguments: args})
		done <- outcome{res, err}
	}()
	// Opening the FIFO for reading blocks until the shell opens it to write
	// its pid: the event that says the command is running.
	started := make(chan string, 1)
	go func() {
		b, _ := os.ReadFile(fifo)
		started <- string(b)
	}()
	var pid int
	select {
	case s := <-started:
		var err error
		if pid, err = strconv.Atoi(strings.TrimSpace(s)); err != nil {
			t.Fatalf("pid %q: %v", s, err)
		}
	case o := <-done:
		t.Fatalf("bash returned before the command started: %v %v", o.res, o.err)
	case <-time.After(10 * time.Second):
		t.Fatal("the command did not start within 10s")
	}

	cancelled := time.Now()
	cancel()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not return within 5s of the abort")
	}
	// sleep 3600 outlives the 5 s wait above: Run returning at all is the
	// abort's doing (a 100 ms bound here was a wall-clock race).
	t.Logf("Run returned %v after the abort", time.Since(cancelled))
	if !errors.Is(o.err, context.Canceled) {
		t.Errorf("error %v, want one wrapping context.Canceled", o.err)
	}
	if !o.res.IsError {
		t.Error("IsError not set on an aborted result")
	}
	wantText(t, o.res, "[context canceled; the command's process group was killed]")
	if groupAlive(pid) {
		t.Errorf("process group %d still has live processes after the abort", pid)
	}
}

func TestBashHugeOutputKeepsTail(t *testing.T) {
	s, root := newSession(t, Options{MaxLines: 50, MaxBytes: 1000})
	t.Run("many lines", func(t *testing.T) {
		res := mustRun(t, s, "bash", map[string]any{"command": "seq 1 100000"})
		text := res.Text()
		if !strings.HasSuffix(text, "\n99999\n100000") {
			t.Errorf("tail not kept: ...%q", text[max(len(text)-40, 0):])
		}
		if strings.Contains(text, "\n1\n") {
			t.Error("head kept")
		}
		if got := strings.Count(text, "\n"); got != 50 {
			t.Errorf("%d lines shown (marker included), want 50", got)
		}
		path := res.Details.FullOutputPath
		if !res.Details.Truncated || path == "" {
			t.Fatalf("Truncated %v, FullOutputPath %q", res.Details.Truncated, path)
		}
		marker, _, _ := strings.Cut(text, "\n")
		wantMarker := "[... 574.8 KiB (99950 lines) of output dropped; showing the last 50 lines; full output: " + path + " (use read or grep on it)]"
		if marker != wantMarker {
			t.Errorf("marker:\n%s\nwant:\n%s", marker, wantMarker)
		}
		var want strings.Builder
		for i := 1; i <= 100000; i++ {
			fmt.Fprintf(&want, "%d\n", i)
		}
		if got := readFile(t, path); got != want.String() {
			t.Errorf("the full output file holds %d bytes, want %d", len(got), want.Len())
		}
		if filepath.Dir(path) != s.opts.ArtifactsDir {
			t.Errorf("artifact %s is not in %s", path, s.opts.ArtifactsDir)
		}
		if within(path, root) {
			t.Fatal("test setup: the artifacts folder should be outside the root")
		}
		// The session may read its own artifact although it is outside the root.
		res = mustRun(t, s, "read", map[string]any{"path": path, "offset": 99999})
		if diff := cmp.Diff(" 99999\t99999\n100000\t100000\n", res.Text()); diff != "" {
			t.Errorf("reading the artifact (-want +got):\n%s", diff)
		}
	})
	t.Run("one long line", func(t *testing.T) {
		res := mustRun(t, s, "bash", map[string]any{"command": "head -c 5000 /dev/zero | tr '\\0' x; echo; echo end"})
		marker, body, _ := strings.Cut(res.Text(), "\n")
		if !strings.HasPrefix(marker, "[... 3.9 KiB (1 line) of output dropped; showing the last 2 lines; full output: ") || body != "…"+strings.Repeat("x", 995)+"\nend" {
			t.Errorf("marker %q, body %d bytes: %.60q", marker, len(body), body)
		}
	})
	t.Run("small output is not saved", func(t *testing.T) {
		res := mustRun(t, s, "bash", map[string]any{"command": "seq 1 50"})
		if res.Details.Truncated || res.Details.FullOutputPath != "" {
			t.Errorf("Truncated %v, FullOutputPath %q for output within the limits", res.Details.Truncated, res.Details.FullOutputPath)
		}
	})
}

// TestBashBackgroundProcessDoesNotHold checks that a background process
// holding the output pipe delays the call by a bounded time only.
func TestBashBackgroundProcessDoesNotHold(t *testing.T) {
	s, _ := newSession(t, Options{})
	start := time.Now()
	res := mustRun(t, s, "bash", map[string]any{"command": "echo $$; sleep 30 & echo bg"})
	pid := pidFromOutput(t, res)
	defer syscall.Kill(-pid, syscall.SIGKILL)
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("took %v", elapsed)
	}
	wantText(t, res, "bg\n", "[the output stream stayed open after the shell exited")
	if res.IsError {
		t.Error("IsError set for a successful command")
	}
}
