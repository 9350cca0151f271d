package session_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/session"
)

// killChildEnv, when set to a session file's path, makes the test binary
// act as the child of TestKillDuringAppends instead of running tests.
const killChildEnv = "VIGIL_SESSION_TEST_KILL_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(killChildEnv); path != "" {
		appendUntilKilled(path)
		return
	}
	if path := os.Getenv(lockChildEnv); path != "" {
		holdLock(path)
		return
	}
	os.Exit(m.Run())
}

// appendUntilKilled appends entries to the session at path and prints
// each id on stdout once Append has returned. Every fourth entry spans
// many pages, so a kill can land inside its write. It stops on its own
// after a bound.
func appendUntilKilled(path string) {
	s, err := session.Open(path, session.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	for i := range 20000 {
		text := fmt.Sprint("entry ", i)
		if i%4 == 3 {
			text += strings.Repeat("x", 64<<10)
		}
		e, err := s.Append(user(text))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		// os.Stdout is unbuffered: the id leaves in one write(2).
		fmt.Fprintln(os.Stdout, e.ID)
	}
	os.Exit(0)
}

// TestKillDuringAppends runs children that append in a loop and kills
// each with SIGKILL after it reported some entries: every id a child
// printed must be in the file, which must open (repairing a partial last
// line if the kill cut a write) and stay appendable.
func TestKillDuringAppends(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns processes")
	}
	const runs = 50
	for run := range runs {
		t.Run(fmt.Sprint(run), func(t *testing.T) {
			t.Parallel()
			killRun(t, 1+run%7)
		})
	}
}

func killRun(t *testing.T, killAfter int) {
	path := filepath.Join(t.TempDir(), "kill.jsonl")
	s, err := session.Create(path, session.Header{ID: "kill", Cwd: "/w"}, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound on a stuck child
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), killChildEnv+"="+path)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var reported []string
	r := bufio.NewReader(stdout)
	for {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break // a piece without its newline was never fully reported
		}
		if err != nil {
			t.Fatal(err)
		}
		reported = append(reported, strings.TrimSuffix(line, "\n"))
		if len(reported) == killAfter {
			cmd.Process.Kill() // SIGKILL on Unix
		}
	}
	werr := cmd.Wait()
	if len(reported) < killAfter {
		t.Fatalf("child stopped after %d entries (%v): %s", len(reported), werr, stderr.String())
	}

	s, err = session.Open(path, session.Options{})
	if err != nil {
		t.Fatalf("open after kill: %v", err)
	}
	defer s.Close()
	for _, id := range reported {
		if _, ok := s.Get(id); !ok {
			t.Errorf("entry %s was reported written but is not in the file", id)
		}
	}
	checkTree(t, s.Entries())
	if rec := s.Recovered(); rec != nil {
		t.Logf("repaired: %v", rec)
	}
	e := mustAppend(t, s, user("after the kill"))
	if _, read, err := session.ReadFile(path); err != nil || read[len(read)-1].ID != e.ID {
		t.Errorf("file after kill and append: %v", err)
	}
}
