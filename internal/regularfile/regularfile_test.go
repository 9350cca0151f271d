package regularfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestOpenRegularFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	writeFile(t, path, "hello")
	f, info, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "hello" || info.Size() != 5 || !info.Mode().IsRegular() {
		t.Errorf("read %q, size %d, mode %v; want hello, 5, a regular file", data, info.Size(), info.Mode())
	}
}

// A symbolic link to a regular file is followed, and the information is
// the target's.
func TestOpenFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	writeFile(t, target, "abc")
	link := filepath.Join(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	f, info, err := Open(link)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	want, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(info, want) || info.Size() != 3 {
		t.Errorf("opened %v (size %d), want the target", info.Name(), info.Size())
	}
	data, err := Read(link, 3)
	if err != nil || string(data) != "abc" {
		t.Errorf("Read = %q, %v; want abc", data, err)
	}
}

func TestOpenFolder(t *testing.T) {
	dir := t.TempDir()
	_, _, err := Open(dir)
	wantNotRegular(t, err, dir, "a folder")
	_, err = Read(dir, 10)
	wantNotRegular(t, err, dir, "a folder")
}

// A device is refused by its look, never read: /dev/zero would never end.
func TestOpenDevice(t *testing.T) {
	for _, dev := range []string{"/dev/null", "/dev/zero"} {
		if _, err := os.Stat(dev); err != nil {
			t.Skipf("no %s: %v", dev, err)
		}
		_, _, err := Open(dev)
		wantNotRegular(t, err, dev, "a character device")
		_, err = Read(dev, 1<<20)
		wantNotRegular(t, err, dev, "a character device")
	}
}

func TestMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing")
	_, _, err := Open(path)
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrNotExist) || !errors.As(err, &pe) || pe.Op != "stat" || pe.Path != path {
		t.Errorf("error %v, want os.Stat's, matching fs.ErrNotExist", err)
	}
	if _, err := Read(path, 10); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Read: error %v, want fs.ErrNotExist", err)
	}
}

// A symbolic link to nothing is a missing file, as os.Stat says.
func TestDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(filepath.Join(dir, "nothing"), link); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	if _, _, err := Open(link); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("error %v, want fs.ErrNotExist", err)
	}
}

func TestReadSizeCap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	writeFile(t, path, "1234")
	if data, err := Read(path, 4); err != nil || string(data) != "1234" {
		t.Errorf("Read(4) = %q, %v; want all of it", data, err)
	}
	_, err := Read(path, 3)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Path != path || tl.Size != 4 || tl.Limit != 3 {
		t.Fatalf("Read(3): error %#v, want a *TooLargeError of size 4 and limit 3", err)
	}
	if msg := err.Error(); !strings.Contains(msg, path) || !strings.Contains(msg, "4 bytes") {
		t.Errorf("error %q, want the path and the size", msg)
	}
	// Open has no limit.
	f, info, err := Open(path)
	if err != nil || info.Size() != 4 {
		t.Fatalf("Open = %v, %v", info, err)
	}
	f.Close()
}

// A file whose size says less than it holds (procfs says 0) is read up
// to its limit and one byte more, then refused.
func TestReadGrowsPastLimit(t *testing.T) {
	const path = "/proc/self/status"
	info, err := os.Stat(path)
	if err != nil || info.Size() != 0 || !info.Mode().IsRegular() {
		t.Skipf("no procfs file of size 0 here: %v", err)
	}
	_, err = Read(path, 8)
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Size != -1 || tl.Limit != 8 {
		t.Fatalf("error %#v, want a *TooLargeError of unknown size", err)
	}
	if !strings.Contains(err.Error(), "grew larger than 8 bytes") {
		t.Errorf("error %q, want it to say the file grew", err)
	}
}

func TestKind(t *testing.T) {
	for m, want := range map[fs.FileMode]string{
		fs.ModeDir:                        "a folder",
		fs.ModeNamedPipe:                  "a named pipe",
		fs.ModeSocket:                     "a socket",
		fs.ModeDevice | fs.ModeCharDevice: "a character device",
		fs.ModeDevice:                     "a device",
		fs.ModeSymlink:                    "a symbolic link",
		fs.ModeIrregular:                  "an irregular file",
	} {
		if got := Kind(m); got != want {
			t.Errorf("Kind(%v) = %q, want %q", m, got, want)
		}
	}
}

func wantNotRegular(t *testing.T, err error, path, kind string) {
	t.Helper()
	var nr *NotRegularError
	if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) || nr.Path != path || Kind(nr.Mode) != kind {
		t.Fatalf("error %v, want %s refused as %s", err, path, kind)
	}
	if want := path + ": not a regular file (" + kind + ")"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}
