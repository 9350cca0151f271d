package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestResolvePath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"dir/file.txt": "x", "dir/sub/": ""})
	links := map[string]string{
		"in":       filepath.Join(root, "dir"),        // absolute, inside
		"rel":      "dir/sub",                         // relative, inside
		"out":      outside,                           // escapes
		"dangling": filepath.Join(outside, "new.txt"), // escapes to a file not yet there
		"dir/up":   "..",                              // to root
		"loop1":    "loop2",
		"loop2":    "loop1",
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name    string
		path    string
		want    string
		wantErr string
	}{
		{name: "plain file", path: "dir/file.txt", want: root + "/dir/file.txt"},
		{name: "missing file keeps its name", path: "dir/new/a.txt", want: root + "/dir/new/a.txt"},
		{name: "dot dot climbs", path: "dir/sub/../file.txt", want: root + "/dir/file.txt"},
		{name: "dot dot above the filesystem root stays there", path: "/../../" + root[1:] + "/dir", want: root + "/dir"},
		{name: "absolute link", path: "in/file.txt", want: root + "/dir/file.txt"},
		{name: "relative link", path: "rel", want: root + "/dir/sub"},
		{name: "link escaping", path: "out/x", want: outside + "/x"},
		{name: "dangling link resolves to its target", path: "dangling", want: outside + "/new.txt"},
		{name: "dot dot after a link leaves the target", path: "dir/up/dir/sub/..", want: root + "/dir"},
		{name: "dot dot after link follows the kernel", path: "rel/../file.txt", want: root + "/dir/file.txt"},
		{name: "below a file", path: "dir/file.txt/x", want: root + "/dir/file.txt/x"},
		{name: "link loop", path: "loop1", wantErr: "too many levels of symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.path
			if !filepath.IsAbs(p) {
				p = root + "/" + p
			}
			got, err := resolvePath(p)
			if tt.wantErr != "" {
				wantErr(t, err, tt.wantErr)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("resolvePath(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}

// TestPathsOutsideRoots runs every path-taking tool on paths that escape
// the root in each way, and checks that each refuses with the roots named.
func TestPathsOutsideRoots(t *testing.T) {
	s, root := newSession(t, Options{})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, outside, map[string]string{"secret.txt": "secret\n", "d/x.txt": "secret\n"})
	writeFiles(t, root, map[string]string{"ok.txt": "fine\n"})
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "planted.txt"), filepath.Join(root, "dangling")); err != nil {
		t.Fatal(err)
	}
	paths := map[string]string{
		"dot dot":          "../" + filepath.Base(outside) + "/secret.txt",
		"absolute":         outside + "/secret.txt",
		"symlinked folder": "escape/secret.txt",
		"dangling symlink": "dangling",
		"deep dot dot":     "a/b/../../../x",
	}
	calls := map[string]func(p string) any{
		"read":   func(p string) any { return map[string]any{"path": p} },
		"write":  func(p string) any { return map[string]any{"path": p, "content": "pwned"} },
		"edit":   func(p string) any { return map[string]any{"path": p, "old_text": "secret", "new_text": "pwned"} },
		"grep":   func(p string) any { return map[string]any{"pattern": "secret", "path": p} },
		"search": func(p string) any { return map[string]any{"pattern": "secret", "path": p} },
		"find":   func(p string) any { return map[string]any{"pattern": "*", "path": p} },
	}
	for pname, p := range paths {
		for tool, args := range calls {
			t.Run(tool+" "+pname, func(t *testing.T) {
				_, err := run(t, s, tool, args(p))
				if pname == "deep dot dot" {
					// a does not exist: the path is refused before it is
					// placed, as the kernel would refuse it.
					wantErr(t, err, tool+" "+p+": resolve ", "does not exist, so the path cannot go through it")
					return
				}
				wantErr(t, err, tool+" "+p+": resolves to ", "outside the allowed roots: "+root)
			})
		}
	}
	if _, err := os.Lstat(filepath.Join(outside, "planted.txt")); !os.IsNotExist(err) {
		t.Errorf("a file was written through the dangling symlink: %v", err)
	}
	if got := readFile(t, filepath.Join(outside, "secret.txt")); got != "secret\n" {
		t.Errorf("outside file changed to %q", got)
	}
	// A link that stays inside the root is fine.
	if err := os.Symlink(filepath.Join(root, "ok.txt"), filepath.Join(root, "inside")); err != nil {
		t.Fatal(err)
	}
	wantText(t, mustRun(t, s, "read", map[string]any{"path": "inside"}), "1\tfine")
}

func TestAllowOutsideRoots(t *testing.T) {
	s, _ := newSession(t, Options{AllowOutsideRoots: true})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"a.txt": "hello\n"})
	wantText(t, mustRun(t, s, "read", map[string]any{"path": filepath.Join(outside, "a.txt")}), "1\thello")
}

func TestDisplayPath(t *testing.T) {
	s, root := newSession(t, Options{})
	tests := []struct{ path, want string }{
		{root, "."},
		{root + "/a/b.go", "a/b.go"},
		{"/elsewhere/x", "/elsewhere/x"},
		{root + "x/y", root + "x/y"}, // a sibling sharing the prefix
	}
	for _, tt := range tests {
		t.Run(strings.ReplaceAll(tt.path, "/", "_"), func(t *testing.T) {
			if got := s.display(tt.path); got != tt.want {
				t.Errorf("display(%q) = %q, want %q", tt.path, got, tt.want)
			}
		})
	}
}
