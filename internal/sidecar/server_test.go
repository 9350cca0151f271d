package sidecar

import (
	"context"
	"errors"
	"net"
	"os"
	"testing"
)

// readyPipe is a Ready writer the test can wait on.
type readyPipe struct{ c chan byte }

func (r *readyPipe) Write(b []byte) (int, error) {
	for _, x := range b {
		r.c <- x
	}
	return len(b), nil
}
func (r *readyPipe) Close() error { close(r.c); return nil }

func shortDir(t *testing.T) Dir {
	t.Helper()
	// Unix socket paths are limited to about 108 bytes.
	d, err := os.MkdirTemp("", "vsc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir, err := RuntimeDir(func(k string) (string, bool) {
		if k == "VIGIL_RUNTIME_DIR" {
			return d + "/run", true
		}
		return "", false
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestServeLifecycle(t *testing.T) {
	dir := shortDir(t)
	sc, _, _ := newTest(t, Options{})
	key := Key{Agent: AgentClaudeCode, Session: "s1"}
	ready := &readyPipe{c: make(chan byte, 1)}
	done := make(chan error, 1)
	go func() {
		done <- Serve(context.Background(), sc, ServeOptions{Dir: dir, Info: Info{Key: key, Transcript: "/t/s1.jsonl"}, Ready: ready})
	}()
	if b, ok := <-ready.c; !ok || b != 1 {
		t.Fatal("Serve closed Ready without saying it listens")
	}
	fi, err := os.Stat(dir.Socket(key))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Fatalf("socket mode %v, want a socket with 0600", fi.Mode())
	}
	if d, _ := os.Stat(string(dir)); d.Mode().Perm() != 0o700 {
		t.Fatalf("folder mode %v, want 0700", d.Mode().Perm())
	}
	list, err := dir.List()
	if err != nil || len(list) != 1 || list[0].PID != os.Getpid() || list[0].Socket != dir.Socket(key) {
		t.Fatalf("List = %+v, %v", list, err)
	}
	// It promises how long its answers may take: the transcript wait and
	// a margin at tool boundaries (no review wait without syncBacklog),
	// and the Stop's two waits.
	if w := list[0].Waits; w[EventPostToolUse] != 3000 || w[EventStop] != 2000+30000+1000 {
		t.Fatalf("waits %v", w)
	}
	if in, ok := dir.ReadInfo(key); !ok || in.PID != os.Getpid() {
		t.Fatalf("ReadInfo = %+v, %v", in, ok)
	}
	// A second start of the same session finds the first and leaves.
	sc2, _, _ := newTest(t, Options{})
	ready2 := &readyPipe{c: make(chan byte, 1)}
	if err := Serve(context.Background(), sc2, ServeOptions{Dir: dir, Info: Info{Key: key}, Ready: ready2}); !errors.Is(err, ErrRunning) {
		t.Fatalf("second Serve = %v, want ErrRunning", err)
	}
	if _, ok := <-ready2.c; !ok {
		t.Fatal("the second start did not release its Ready")
	}
	conn, err := net.Dial("unix", dir.Socket(key))
	if err != nil {
		t.Fatalf("the first sidecar stopped listening: %v", err)
	}
	conn.Close()
	// SessionEnd stops it and it cleans up after itself.
	sc.Handle(context.Background(), event(EventSessionEnd, nil))
	if err := <-done; err != nil {
		t.Fatalf("Serve = %v", err)
	}
	for _, p := range []string{dir.Socket(key), dir.Info(key)} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s left behind", p)
		}
	}
	if list, _ := dir.List(); len(list) != 0 {
		t.Fatalf("List after the end = %+v", list)
	}
}

func TestRuntimeDirRefusesOpenFolders(t *testing.T) {
	d := t.TempDir()
	if err := os.Chmod(d, 0o777); err != nil {
		t.Fatal(err)
	}
	dir, err := RuntimeDir(func(k string) (string, bool) { return d, k == "VIGIL_RUNTIME_DIR" })
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(string(dir)); fi.Mode().Perm() != 0o700 {
		t.Fatalf("mode %v: the folder was left open to others", fi.Mode().Perm())
	}
}

func TestKeyNameIsSafe(t *testing.T) {
	a := Key{Agent: "claude-code", Session: "../../etc/passwd"}.Name()
	b := Key{Agent: "codex", Session: "../../etc/passwd"}.Name()
	if a == b || len(a) != 16 {
		t.Fatalf("names %q %q", a, b)
	}
	for _, c := range a {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			t.Fatalf("name %q has %q", a, c)
		}
	}
}
