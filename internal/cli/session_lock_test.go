package cli_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/session"
)

// TestSessionLockTwoPrintModeProcesses runs vigil on a prompt whose bash
// call blocks on a FIFO, so the first process holds its session mid-run;
// a second vigil on that session is refused with the holder's pid and the
// --fork command, and succeeds with --fork, in a copy; the first then
// finishes, alone in its file.
func TestSessionLockTwoPrintModeProcesses(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: copy
    match: ["second prompt"]
    steps:
      - text: "answer in the copy"
  - name: held
    match: ["first prompt"]
    steps:
      - tool_calls: [{name: bash, arguments: {command: "cat ../gate.fifo"}}]
      - text: "first done"
`)
	gate := filepath.Join(filepath.Dir(work), "gate.fifo")
	if err := syscall.Mkfifo(gate, 0o600); err != nil {
		t.Fatal(err)
	}

	first := vigilCommand(agentDir, work, "-m", "fake/m", "--mode", "json", "-p", "first prompt")
	var firstErr bytes.Buffer
	first.Stderr = &firstErr
	stdout, err := first.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	events := make(chan map[string]any, 256)
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m map[string]any
			if json.Unmarshal(sc.Bytes(), &m) == nil {
				events <- m
			}
		}
		close(events)
		exited <- first.Wait()
	}()
	t.Cleanup(func() {
		first.Process.Kill()
		if t.Failed() {
			t.Logf("first vigil's stderr:\n%s", firstErr.String())
		}
	})
	waitEvent := func(what string, match func(map[string]any) bool) {
		t.Helper()
		timeout := time.After(waitBound)
		for {
			select {
			case m, ok := <-events:
				if !ok {
					t.Fatalf("the first vigil exited while waiting for %s", what)
				}
				if match(m) {
					return
				}
			case <-timeout:
				t.Fatalf("no %s from the first vigil within %s", what, waitBound)
			}
		}
	}
	// Once its bash call starts, the first vigil is mid-run: it opened its
	// session before the prompt and holds it until it exits.
	waitEvent("bash tool_start", func(m map[string]any) bool { return m["type"] == "tool_start" && m["tool"] == "bash" })

	files, err := filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	if err != nil || len(files) != 1 {
		t.Fatalf("session files %v, %v; want the first vigil's one", files, err)
	}
	file := files[0]
	id := strings.TrimSuffix(filepath.Base(file)[strings.Index(filepath.Base(file), "_")+1:], ".jsonl")
	pid := strconv.Itoa(first.Process.Pid)

	second := func(args ...string) (string, string, error) {
		cmd := vigilCommand(agentDir, work, append([]string{"-m", "fake/m"}, args...)...)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	for _, tc := range []struct {
		args []string
		hint string
	}{
		{[]string{"--resume", id}, "vigil --resume " + id + " --fork"},
		{[]string{"--continue"}, "vigil --continue --fork"},
	} {
		out, errOut, err := second(append(tc.args, "-p", "second prompt")...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("second vigil %v: %v, want it refused; stdout %q, stderr %q", tc.args, err, out, errOut)
		}
		t.Logf("second vigil %v: %s", tc.args, errOut)
		for _, want := range []string{file, "process " + pid, tc.hint} {
			if !strings.Contains(errOut, want) {
				t.Errorf("second vigil %v: stderr %q does not say %q", tc.args, errOut, want)
			}
		}
	}

	out, errOut, err := second("--resume", id, "--fork", "-p", "second prompt")
	if err != nil || strings.TrimSpace(out) != "answer in the copy" {
		t.Fatalf("second vigil with --fork: %v, stdout %q, stderr %q", err, out, errOut)
	}

	// Release the first vigil's bash call and let it finish.
	released := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(gate, os.O_WRONLY, 0) // waits for cat to open it
		if err == nil {
			_, err = f.WriteString("released\n")
			err = errors.Join(err, f.Close())
		}
		released <- err
	}()
	select {
	case err := <-released:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(waitBound):
		t.Fatalf("the first vigil's bash call never opened the gate")
	}
	waitEvent("the first answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "first done")
	})
	for range events {
	}
	if err := <-exited; err != nil {
		t.Fatalf("first vigil: %v", err)
	}
	if _, err := os.Stat(session.LockFile(file)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after the first vigil exited: %v, want none", err)
	}

	// The first session holds the first run only; the copy names it as
	// its source and holds the second prompt.
	orig := checkTree(t, file)
	raw, _ := os.ReadFile(file)
	if strings.Contains(string(raw), "second prompt") || !strings.Contains(string(raw), "first done") || len(orig) != 4 {
		t.Errorf("the first session has %d entries, with the second prompt %t, want the first run's 4 only",
			len(orig), strings.Contains(string(raw), "second prompt"))
	}
	files, _ = filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	var copies []string
	for _, f := range files {
		if f != file {
			copies = append(copies, f)
		}
	}
	if len(copies) != 1 {
		t.Fatalf("session files %v: want the first and one copy", files)
	}
	h, copied, err := session.ReadFile(copies[0])
	if err != nil {
		t.Fatal(err)
	}
	if h.Parent == nil || h.Parent.Kind != session.ParentFork || h.Parent.ID != id {
		t.Errorf("the copy's parent is %+v, want a fork of %s", h.Parent, id)
	}
	if len(copied) < 2 || copied[0].ID != orig[0].ID || copied[1].ID != orig[1].ID {
		t.Errorf("the copy does not start with the first run's prompt and call")
	}
	checkTree(t, copies[0])
}

// TestSessionLockForkNeedsASource: --fork alone has nothing to copy.
func TestSessionLockForkNeedsASource(t *testing.T) {
	_, agentDir, work := fakeSetup(t, "rules: [{steps: [{text: unused}]}]\n")
	out, err := vigilCommand(agentDir, work, "-m", "fake/m", "--fork", "-p", "hi").CombinedOutput()
	if err == nil || !strings.Contains(string(out), "--fork needs the session to copy") {
		t.Errorf("vigil --fork alone: %v, %q", err, out)
	}
}
