package hostiletest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// The makers below put one hostile file at path, whose folder exists, as
// a [Case]'s Make does; readers of other files than settings (context
// files, transcripts) build their own cases from them. Each skips t when
// the system cannot make its file.

// Text makes a file holding s.
func Text(s string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Sparse makes a file of size bytes that takes no room on the disk.
func Sparse(size int64) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(size); err != nil {
			t.Skipf("cannot make a sparse file: %v", err)
		}
	}
}

// Link makes a symbolic link to target (/dev/zero, say).
func Link(target string) func(t *testing.T, path string) {
	return func(t *testing.T, path string) {
		if _, err := os.Stat(target); err != nil {
			t.Skipf("no %s: %v", target, err)
		}
		if err := os.Symlink(target, path); err != nil {
			t.Skipf("cannot make a symbolic link: %v", err)
		}
	}
}

// Folder makes a folder.
func Folder(t *testing.T, path string) {
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}

// Loop makes a symbolic link to a link, other.yml beside it, that leads
// back to it.
func Loop(t *testing.T, path string) {
	other := filepath.Join(filepath.Dir(path), "other.yml")
	if err := os.Symlink(other, path); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	if err := os.Symlink(path, other); err != nil {
		t.Fatal(err)
	}
}

// Unreadable makes a file its user may not read.
func Unreadable(t *testing.T, path string) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("permissions do not stop this user reading")
	}
	Text("advisor: {}\n")(t, path)
	if err := os.Chmod(path, 0); err != nil {
		t.Fatal(err)
	}
}
