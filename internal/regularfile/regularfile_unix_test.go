//go:build unix

package regularfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

func mkfifo(t *testing.T) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
	return path
}

// A named pipe with no writer is refused by its look, without an open
// that would wait for one (hostiletest.Bounded fails a call that waits).
func TestNamedPipeRefused(t *testing.T) {
	fifo := mkfifo(t)
	var openErr, readErr error
	hostiletest.Bounded(t, func() {
		_, _, openErr = Open(fifo)
		_, readErr = Read(fifo, 1<<20)
	})
	wantNotRegular(t, openErr, fifo, "a named pipe")
	wantNotRegular(t, readErr, fifo, "a named pipe")
}

// Should a named pipe take the name between the look and the open, the
// open does not wait for a writer, and the check of what was opened
// refuses it.
func TestNamedPipeSwappedIn(t *testing.T) {
	fifo := mkfifo(t)
	var f *os.File
	var err error
	hostiletest.Bounded(t, func() { f, err = openNoBlock(fifo) })
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	wantNotRegular(t, check(fifo, info, -1), fifo, "a named pipe")
}

func TestSymlinkLoop(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := os.Symlink(b, a); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	if err := os.Symlink(a, b); err != nil {
		t.Fatal(err)
	}
	_, _, err := Open(a)
	var pe *fs.PathError
	if !errors.Is(err, syscall.ELOOP) || !errors.As(err, &pe) || pe.Op != "stat" {
		t.Errorf("error %v, want os.Stat's ELOOP", err)
	}
}

func TestSocketRefused(t *testing.T) {
	dir, err := os.MkdirTemp("", "rf") // short: a socket's path is bounded
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "s")
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Skipf("no unix sockets: %v", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Skipf("cannot bind a unix socket: %v", err)
	}
	_, _, err = Open(path)
	wantNotRegular(t, err, path, "a socket")
}

// A file without read permission is refused by its open, as os.OpenFile
// says.
func TestUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("permissions do not stop root reading")
	}
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "x")
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
	_, _, err := Open(path)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) || pe.Op != "open" {
		t.Errorf("error %v, want os.OpenFile's permission error", err)
	}
}
