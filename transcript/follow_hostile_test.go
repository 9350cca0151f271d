//go:build unix

package transcript

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// pollBound is how long a Poll that should return at once may take
// before the test calls it blocked: far above a stat, far below a hang.
const pollBound = 5 * time.Second

// pollWithin polls fl in a goroutine and fails the test if it does not
// return within pollBound (a follower that opened a named pipe would
// wait for a writer forever).
func pollWithin(t *testing.T, fl *Follower, settle bool) (Batch, error) {
	t.Helper()
	type res struct {
		b   Batch
		err error
	}
	done := make(chan res, 1)
	go func() {
		var r res
		if settle {
			r.b, r.err = fl.Settle()
		} else {
			r.b, r.err = fl.Poll()
		}
		done <- r
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-time.After(pollBound):
		t.Fatalf("Poll blocked for %v", pollBound)
		return Batch{}, nil
	}
}

// TestFollowRefusesWhatIsNotARegularFile: a transcript path naming a
// named pipe, a device, a socket, a folder, a link to one of those or a
// loop of links is refused before it is opened, at once, with an error
// naming the path and what it is, and every later call says the same.
func TestFollowRefusesWhatIsNotARegularFile(t *testing.T) {
	dir, err := os.MkdirTemp("", "vfr") // short: a socket path is
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	link := filepath.Join(dir, "link.jsonl")
	loop := filepath.Join(dir, "loop.jsonl")
	for _, l := range [][2]string{{fifo, link}, {loop, loop}} {
		if err := os.Symlink(l[0], l[1]); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ name, path, want string }{
		{"named pipe", fifo, "not a regular file (a named pipe)"},
		{"link to a named pipe", link, "not a regular file (a named pipe)"},
		{"device", "/dev/zero", "not a regular file (a character device)"},
		{"socket", sock, "not a regular file (a socket)"},
		{"folder", dir, "not a regular file (a folder)"},
		{"loop of links", loop, "not a regular file (a loop of symbolic links)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fl := Follow(tc.path, FormatClaudeCode)
			for i, settle := range []bool{false, false, true} {
				b, err := pollWithin(t, fl, settle)
				if err == nil || !strings.Contains(err.Error(), tc.path) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("call %d: error %v, want %q naming %s", i, err, tc.want, tc.path)
				}
				if errors.Is(err, ErrFileChanged) || len(b.Entries) != 0 {
					t.Fatalf("call %d: %v, %d entries", i, err, len(b.Entries))
				}
			}
		})
	}
}

// TestFollowFileBecomesANamedPipe: a transcript replaced by a named pipe
// is refused too, never opened.
func TestFollowFileBecomesANamedPipe(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	fl := Follow(w.path, FormatClaudeCode)
	w.write([]byte(ccfPrompt))
	mustPoll(t, fl)
	if err := os.Remove(w.path); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(w.path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := pollWithin(t, fl, false); err == nil || !strings.Contains(err.Error(), "a named pipe") {
		t.Fatalf("error %v, want a refusal of the named pipe", err)
	}
}

// TestFollowRemovedIsNotExist: the error of a removed transcript says so
// in a way callers can test.
func TestFollowRemovedIsNotExist(t *testing.T) {
	w := newFollowTemp(t, "s1.jsonl")
	fl := Follow(w.path, FormatClaudeCode)
	w.write([]byte(ccfPrompt))
	mustPoll(t, fl)
	os.Remove(w.path)
	_, err := fl.Poll()
	if !errors.Is(err, ErrFileChanged) || !errors.Is(err, fs.ErrNotExist) || !strings.HasSuffix(err.Error(), "the file changed under the follower: it was removed") {
		t.Fatalf("error %v", err)
	}
}
