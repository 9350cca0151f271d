package session_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/session"
)

// lockChildEnv, when set to a session file's path, makes the test binary
// act as the child of TestLockOfAGoneProcess instead of running tests.
const lockChildEnv = "VIGIL_SESSION_TEST_LOCK_CHILD"

// holdLock opens the session at path with its lock, appends an entry,
// says "held" on stdout, and holds the session until stdin ends: then it
// closes the session and says "closed". A kill ends it before that.
func holdLock(path string) {
	s, err := session.Open(path, session.Options{Lock: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if _, err := s.Append(user("from the child")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintln(os.Stdout, "held")
	io.Copy(io.Discard, os.Stdin)
	if err := s.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Fprintln(os.Stdout, "closed")
	os.Exit(0)
}

func skipWithoutLocks(t *testing.T) {
	t.Helper()
	if !session.LocksSupported {
		t.Skip("sessions are not locked on this system")
	}
}

func lockedOptions() session.Options {
	o := testOptions()
	o.Lock = true
	return o
}

// newLockedFile creates a session file with one entry and returns its
// path, closed.
func newLockedFile(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	s, err := session.Create(path, session.Header{ID: "s", Cwd: "/w"}, lockedOptions())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, user("first"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func wantLocked(t *testing.T, err error, path string, pid int) *session.LockedError {
	t.Helper()
	var locked *session.LockedError
	if !errors.As(err, &locked) {
		t.Fatalf("second open: %v, want a *LockedError", err)
	}
	if !errors.Is(err, session.ErrLocked) {
		t.Errorf("%v is not ErrLocked", err)
	}
	host, _ := os.Hostname()
	if locked.Path != path || locked.Lock != session.LockFile(path) || locked.PID != pid || locked.Host != host || locked.Since.IsZero() {
		t.Errorf("locked error %+v, want path %s, pid %d, host %s and a time", locked, path, pid, host)
	}
	for _, want := range []string{path, "process " + strconv.Itoa(pid), "on " + host} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
	return locked
}

func TestLockSecondWriterInProcess(t *testing.T) {
	skipWithoutLocks(t)
	path := newLockedFile(t)
	if _, err := os.Stat(session.LockFile(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock file after Close: %v, want none", err)
	}
	first, err := session.Open(path, lockedOptions())
	if err != nil {
		t.Fatal(err)
	}
	_, err = session.Open(path, lockedOptions())
	wantLocked(t, err, path, os.Getpid())
	// Readers neither take nor need the lock.
	if _, entries, err := session.ReadFile(path); err != nil || len(entries) != 1 {
		t.Errorf("read while locked: %d entries, %v", len(entries), err)
	}
	e := mustAppend(t, first, user("second"))
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(session.LockFile(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after Close: %v, want none", err)
	}
	again, err := session.Open(path, lockedOptions())
	if err != nil {
		t.Fatalf("open after the holder closed: %v", err)
	}
	defer again.Close()
	if again.Leaf() != e.ID {
		t.Errorf("leaf %s, want the holder's last entry %s", again.Leaf(), e.ID)
	}
}

func TestLockNotLeftByFailedOpen(t *testing.T) {
	skipWithoutLocks(t)
	path := filepath.Join(t.TempDir(), "bad.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"session","version":1,"id":"b"}`+"\nnot json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := session.Open(path, lockedOptions()); !errors.As(err, new(*session.LineError)) {
		t.Fatalf("open: %v, want a *LineError", err)
	}
	if _, err := os.Stat(session.LockFile(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after a failed open: %v, want none", err)
	}
	if _, err := session.Open(filepath.Join(t.TempDir(), "none.jsonl"), lockedOptions()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("open of a missing file: %v, want ErrNotExist", err)
	}
}

func TestLockOnlyWhenAsked(t *testing.T) {
	path := newLockedFile(t)
	a, err := session.Open(path, testOptions())
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := os.Stat(session.LockFile(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file of a session opened without Lock: %v, want none", err)
	}
}

// startHolder starts a child process that holds the session at path and
// returns once it said so.
func startHolder(t *testing.T, path string) (cmd *exec.Cmd, stdin io.WriteCloser, out *bufio.Reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a bound on a stuck child
	t.Cleanup(cancel)
	cmd = exec.CommandContext(ctx, os.Args[0])
	cmd.Env = append(os.Environ(), lockChildEnv+"="+path)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out = bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); line != "held\n" {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("child: %q, %v; stderr: %s", line, err, stderr.String())
	}
	return cmd, stdin, out
}

// TestLockOfAGoneProcess: a process that holds a session locks out
// another; killed, it leaves its lock file, which the next writer takes
// over without a word.
func TestLockOfAGoneProcess(t *testing.T) {
	skipWithoutLocks(t)
	path := newLockedFile(t)
	cmd, stdin, _ := startHolder(t, path)
	defer stdin.Close()
	_, err := session.Open(path, lockedOptions())
	wantLocked(t, err, path, cmd.Process.Pid)

	cmd.Process.Kill()
	cmd.Wait() // the kernel has dropped the child's lock once it is reaped
	stale, err := os.ReadFile(session.LockFile(path))
	if err != nil || !strings.Contains(string(stale), strconv.Itoa(cmd.Process.Pid)) {
		t.Fatalf("lock file of the killed holder: %q, %v; want it left, naming pid %d", stale, err, cmd.Process.Pid)
	}
	s, err := session.Open(path, lockedOptions())
	if err != nil {
		t.Fatalf("open after the holder was killed: %v", err)
	}
	_, err = session.Open(path, lockedOptions())
	wantLocked(t, err, path, os.Getpid()) // the record is ours now
	if got := len(s.Entries()); got != 2 {
		t.Errorf("%d entries, want the first and the child's", got)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(session.LockFile(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after Close: %v, want none", err)
	}
}

// TestLockOfAProcessThatClosed: a holder that closes releases the lock
// and removes its file.
func TestLockOfAProcessThatClosed(t *testing.T) {
	skipWithoutLocks(t)
	path := newLockedFile(t)
	cmd, stdin, out := startHolder(t, path)
	stdin.Close()
	if line, err := out.ReadString('\n'); line != "closed\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(session.LockFile(path)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file after the holder closed: %v, want none", err)
	}
	s, err := session.Open(path, lockedOptions())
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
}

// TestForkFileOfALockedSession: the way to go on from a session another
// writer holds is a copy, made by reading only, without the partial line
// of an append in progress.
func TestForkFileOfALockedSession(t *testing.T) {
	skipWithoutLocks(t)
	m := session.NewManager(filepath.Join(t.TempDir(), "sessions"), lockedOptions())
	src, err := m.New("/home/ana/src/vigil")
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	a := mustAppend(t, src, user("one"))
	b := mustAppend(t, src, assistant("two"))
	if err := src.BranchFrom(a.ID); err != nil {
		t.Fatal(err)
	}
	c := mustAppend(t, src, assistant("two again"))
	// The holder is in the middle of its next write.
	f, err := os.OpenFile(src.File(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"type":"message","id":"half`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, err := os.ReadFile(src.File())
	if err != nil {
		t.Fatal(err)
	}
	_, err = m.Resume(src.ID())
	wantLocked(t, err, src.File(), os.Getpid())

	fork, err := m.ForkFile(src.File(), "")
	if err != nil {
		t.Fatalf("fork of a locked session: %v", err)
	}
	defer fork.Close()
	if got := ids(fork.Entries()); strings.Join(got, " ") != a.ID+" "+c.ID {
		t.Errorf("fork holds %v, want the branch to the last entry: %s %s", got, a.ID, c.ID)
	}
	if p := fork.Header().Parent; p == nil || p.Kind != session.ParentFork || p.ID != src.ID() || p.Path != src.File() || p.EntryID != c.ID {
		t.Errorf("fork's parent %+v, want %s at %s", p, src.ID(), c.ID)
	}
	after, err := os.ReadFile(src.File())
	if err != nil || !bytes.Equal(before, after) {
		t.Errorf("the source changed under ForkFile (%v)", err)
	}
	// The fork is a writer of its own file.
	_, err = m.Open(fork.File())
	wantLocked(t, err, fork.File(), os.Getpid())

	// At an earlier entry, as Fork does.
	at, err := m.ForkFile(src.File(), b.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer at.Close()
	if got := ids(at.Entries()); strings.Join(got, " ") != a.ID+" "+b.ID {
		t.Errorf("fork at %s holds %v", b.ID, got)
	}
	if _, err := m.ForkFile(src.File(), "nope"); err == nil {
		t.Error("fork at a missing entry: no error")
	}
}

// TestLockAndTheManager: Continue and Resume meet the lock; lock files
// are not sessions; Attached, written by one sidecar that guards itself,
// takes no lock.
func TestLockAndTheManager(t *testing.T) {
	skipWithoutLocks(t)
	const cwd = "/home/ana/src/vigil"
	m := session.NewManager(filepath.Join(t.TempDir(), "sessions"), lockedOptions())
	s, err := m.New(cwd)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = m.Continue(cwd)
	wantLocked(t, err, s.File(), os.Getpid())
	if latest, err := m.Latest(cwd); err != nil || latest != s.File() {
		t.Errorf("latest: %s, %v; want %s", latest, err, s.File())
	}
	if infos, err := m.List(cwd); err != nil || len(infos) != 1 {
		t.Errorf("list while locked: %d sessions, %v; want 1", len(infos), err)
	}
	if path, err := m.Find(s.ID()); err != nil || path != s.File() {
		t.Errorf("find while locked: %s, %v", path, err)
	}

	one, err := m.Attached(cwd, "claude-code", "abc", "/t.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	two, err := m.Attached(cwd, "claude-code", "abc", "/t.jsonl")
	if err != nil {
		t.Fatalf("attached twice: %v", err)
	}
	two.Close()
	if _, err := os.Stat(session.LockFile(one.File())); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("lock file of an attached session: %v, want none", err)
	}
}
