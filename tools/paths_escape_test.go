package tools_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/tools"
)

// A path through a folder that does not exist and back out with ".." must
// not be cleaned as text into a path through a symlink that leaves the
// roots: the kernel would follow the link.
func TestNoEscapeThroughMissingFolderAndDotDot(t *testing.T) {
	root, _ := filepath.EvalSymlinks(t.TempDir())
	outside, _ := filepath.EvalSymlinks(t.TempDir())
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("TOP SECRET\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	s, err := tools.NewSession(tools.Options{Roots: []string{root}, ArtifactsDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	call := func(name string, args map[string]any) tools.Result {
		b, _ := json.Marshal(args)
		return tools.Invoke(context.Background(), s.Tools(), tools.Call{ID: "1", Name: name, Arguments: b})
	}
	for _, path := range []string{"link/secret", "nope/../link/secret", "a/b/../../link/secret"} {
		r := call("read", map[string]any{"path": path})
		if !r.IsError || strings.Contains(r.Text(), "TOP SECRET") {
			t.Errorf("read %s = %q, want it refused", path, r.Text())
		}
	}
	r := call("write", map[string]any{"path": "nope/../link/pwned", "content": "x"})
	if !r.IsError {
		t.Errorf("write through nope/../link was accepted: %q", r.Text())
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Error("write landed outside the roots")
	}
	// A path into a folder that does not exist yet still works for write.
	if r := call("write", map[string]any{"path": "new/dir/file.txt", "content": "x"}); r.IsError {
		t.Errorf("write to a new folder: %q", r.Text())
	}
}
