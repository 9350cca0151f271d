package review

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// inputNames lists inputs relative to dir, marking the walked ones and
// those with an error.
func inputNames(dir string, ins []Input) string {
	var names []string
	for _, in := range ins {
		rel, _ := filepath.Rel(dir, in.Path)
		rel = filepath.ToSlash(rel)
		if in.Walked {
			rel += " (walked)"
		}
		if in.Err != nil {
			rel += " !"
		}
		names = append(names, rel)
	}
	return strings.Join(names, " ")
}

func writeFiles(t *testing.T, dir string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestInputs(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, "b/run.jsonl", "a.jsonl", ".hidden/x.jsonl", "b/.dot.jsonl", "notes.txt")
	got := Inputs([]string{filepath.Join(dir, "notes.txt"), dir})
	if want := "notes.txt a.jsonl (walked) b/run.jsonl (walked) notes.txt (walked)"; inputNames(dir, got) != want {
		t.Errorf("got %q, want %q", inputNames(dir, got), want)
	}
}

// A path that does not exist is an input with its error, in its place,
// and the other paths are listed all the same.
func TestInputsMissingPath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, "a.jsonl", "sub/b.jsonl")
	got := Inputs([]string{filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "missing"), filepath.Join(dir, "sub")})
	if want := "a.jsonl missing ! sub/b.jsonl (walked)"; inputNames(dir, got) != want {
		t.Fatalf("got %q, want %q", inputNames(dir, got), want)
	}
	err := got[1].Err
	if !errors.Is(err, fs.ErrNotExist) || err.Error() != "read "+filepath.Join(dir, "missing")+": no such file or directory" {
		t.Errorf("error %v", err)
	}
	if NotTranscript(err) {
		t.Error("a missing path counts as not a transcript")
	}
}

// lockedFS is the file system with folders that cannot be listed, as
// mode 000 makes them for anyone but root.
type lockedFS struct {
	osFS
	locked map[string]bool
}

func (l lockedFS) ReadDir(path string) ([]fs.DirEntry, error) {
	if l.locked[path] {
		return nil, &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES}
	}
	return l.osFS.ReadDir(path)
}

func TestInputsUnreadableFolder(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, "a.jsonl", "locked/secret.jsonl", "z/c.jsonl")
	fsys := lockedFS{locked: map[string]bool{filepath.Join(dir, "locked"): true}}
	got := inputsIn(fsys, []string{dir})
	if want := "a.jsonl (walked) locked (walked) ! z/c.jsonl (walked)"; inputNames(dir, got) != want {
		t.Fatalf("got %q, want %q", inputNames(dir, got), want)
	}
	err := got[1].Err
	if !errors.Is(err, fs.ErrPermission) || err.Error() != "list "+filepath.Join(dir, "locked")+": permission denied" || NotTranscript(err) {
		t.Errorf("error %v", err)
	}
	// The same with the real file system, where the test can make it.
	if os.Geteuid() == 0 {
		t.Log("running as root: mode 000 does not lock a folder")
		return
	}
	locked := filepath.Join(dir, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	if got := Inputs([]string{dir}); inputNames(dir, got) != "a.jsonl (walked) locked (walked) ! z/c.jsonl (walked)" {
		t.Errorf("mode 000: got %q", inputNames(dir, got))
	}
}

// What a folder holds besides regular files is listed with an error
// that says what it is, never followed into, never opened.
func TestInputsIrregularFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, "real.jsonl", "sub/inner.jsonl")
	mustDo(t, syscall.Mkfifo(filepath.Join(dir, "fifo.jsonl"), 0o644))
	mustDo(t, os.Symlink("real.jsonl", filepath.Join(dir, "link.jsonl")))
	mustDo(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero.jsonl")))
	mustDo(t, os.Symlink("loop2.jsonl", filepath.Join(dir, "loop1.jsonl")))
	mustDo(t, os.Symlink("loop1.jsonl", filepath.Join(dir, "loop2.jsonl")))
	mustDo(t, os.Symlink("gone.jsonl", filepath.Join(dir, "dangling.jsonl")))
	mustDo(t, os.Symlink(".", filepath.Join(dir, "self")))
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	mustDo(t, err)
	defer l.Close()

	got := Inputs([]string{dir})
	want := "dangling.jsonl (walked) ! fifo.jsonl (walked) ! link.jsonl (walked) loop1.jsonl (walked) ! loop2.jsonl (walked) ! real.jsonl (walked) self (walked) ! sock (walked) ! sub/inner.jsonl (walked) zero.jsonl (walked) !"
	if inputNames(dir, got) != want {
		t.Fatalf("got  %q\nwant %q", inputNames(dir, got), want)
	}
	whats := map[string]string{
		"dangling.jsonl": "a symbolic link to nothing",
		"fifo.jsonl":     "a named pipe",
		"loop1.jsonl":    "a loop of symbolic links",
		"self":           "a symbolic link to a folder, not followed",
		"sock":           "a socket",
		"zero.jsonl":     "a character device",
	}
	for _, in := range got {
		what, ok := whats[filepath.Base(in.Path)]
		if !ok {
			continue
		}
		if want := "read " + in.Path + ": not a regular file (" + what + ")"; in.Err == nil || in.Err.Error() != want || !NotTranscript(in.Err) {
			t.Errorf("%s: error %v, want %s", in.Path, in.Err, want)
		}
	}
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
