package hookwire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestRunStdinNeverClosed: an event on a stdin that is never closed
// (`sleep 100 | vigil-hook claude-code`) is given up on after the
// bound, with ErrStdinOpen; nothing is forwarded and nothing printed.
// In a synctest bubble the pipe's read blocks durably, so without a
// bound the bubble deadlocks and the test fails instead of hanging.
func TestRunStdinNeverClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()                           // lets the abandoned read end with the bubble
		go pw.Write([]byte(`{"session_id":"s1",`)) // half an event, then silence
		var out bytes.Buffer
		forwarded := false
		start := time.Now()
		err := Run(context.Background(), Options{
			Agent:     AgentClaudeCode,
			Stdin:     pr,
			Stdout:    &out,
			Dir:       Dir(t.TempDir()),
			StdinWait: 3 * time.Second,
			Before:    func(context.Context, Input) error { forwarded = true; return nil },
		})
		if !errors.Is(err, ErrStdinOpen) {
			t.Fatalf("Run: %v, want ErrStdinOpen", err)
		}
		if took := time.Since(start); took != 3*time.Second {
			t.Errorf("gave up after %v, want the bound, 3s", took)
		}
		if !strings.Contains(err.Error(), "3s") {
			t.Errorf("error %q does not name the bound", err)
		}
		if forwarded || out.Len() > 0 {
			t.Errorf("forwarded %v, printed %q: want neither", forwarded, out.String())
		}
	})
}

// TestRunTooLargeStdinNeverClosed: an event larger than MaxEvent whose
// stdin then stays open is not drained forever either.
func TestRunTooLargeStdinNeverClosed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		go func() {
			chunk := bytes.Repeat([]byte{'x'}, 1<<20)
			for range MaxEvent>>20 + 2 {
				if _, err := pw.Write(chunk); err != nil {
					return
				}
			}
		}()
		err := Run(context.Background(), Options{Agent: AgentClaudeCode, Stdin: pr, Stdout: io.Discard, Dir: Dir(t.TempDir()), StdinWait: time.Second})
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Run: %v, want ErrTooLarge", err)
		}
	})
}

// TestCommandStdinNeverClosed: the whole hook command on a stdin never
// closed exits (it returns) after the default bound, below the agents'
// hook timeouts, says so on stderr and in hook.log, and prints nothing.
func TestCommandStdinNeverClosed(t *testing.T) {
	run := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		pr, pw := io.Pipe()
		defer pw.Close()
		env := func(k string) (string, bool) {
			if k == "VIGIL_RUNTIME_DIR" {
				return filepath.Join(run, "r"), true
			}
			return "", false
		}
		var out, errOut bytes.Buffer
		start := time.Now()
		Command(context.Background(), AgentClaudeCode, pr, &out, &errOut, env, "/nonexistent/vigil")
		if took := time.Since(start); took != StdinWait {
			t.Errorf("returned after %v, want StdinWait (%v)", took, StdinWait)
		}
		if StdinWait >= 10*time.Second {
			t.Errorf("StdinWait %v: not below the 10 s hook timeout vigil attach writes", StdinWait)
		}
		if out.Len() > 0 {
			t.Errorf("printed %q", out.String())
		}
		if !strings.Contains(errOut.String(), "stdin") || !strings.Contains(errOut.String(), "failed open") {
			t.Errorf("stderr %q: want it to say stdin stayed open and the hook failed open", errOut.String())
		}
		log, _ := os.ReadFile(filepath.Join(run, "r", "hook.log"))
		if !strings.Contains(string(log), "stdin") {
			t.Errorf("hook.log %q does not say why", log)
		}
	})
}
