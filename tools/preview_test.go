package tools

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreview: write and edit say what a call would change, the diff Run
// then reports, and change nothing; a call that would fail fails the
// same way.
func TestPreview(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{"a.txt": "one\ntwo\n"})
	byName := map[string]Tool{}
	for _, tool := range s.Tools() {
		byName[tool.Definition().Name] = tool
	}
	call := func(name string, args map[string]any) Call {
		raw, _ := json.Marshal(args)
		return Call{ID: "c", Name: name, Arguments: raw}
	}
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
		want       []string
	}{
		{"edit", "edit", map[string]any{"path": "a.txt", "old_text": "two", "new_text": "TWO"}, []string{"--- a/a.txt", "-two", "+TWO"}},
		{"overwrite", "write", map[string]any{"path": "a.txt", "content": "three\n"}, []string{"--- a/a.txt", "-one", "-two", "+three"}},
		{"new file", "write", map[string]any{"path": "sub/new.txt", "content": "fresh\n"}, []string{"--- /dev/null", "+fresh"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := byName[tc.tool].(Previewer)
			if !ok {
				t.Fatalf("%s is not a Previewer", tc.tool)
			}
			d, err := p.Preview(t.Context(), call(tc.tool, tc.args))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.want {
				if !strings.Contains(d.Diff, w) {
					t.Errorf("preview diff lacks %q:\n%s", w, d.Diff)
				}
			}
			if got := readFile(t, filepath.Join(root, "a.txt")); got != "one\ntwo\n" {
				t.Errorf("the preview changed a.txt: %q", got)
			}
			if _, err := os.Stat(filepath.Join(root, "sub")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the preview made a folder (%v)", err)
			}
		})
	}
	_, err := byName["edit"].(Previewer).Preview(t.Context(), call("edit", map[string]any{"path": "a.txt", "old_text": "absent", "new_text": "x"}))
	_, runErr := byName["edit"].Run(t.Context(), call("edit", map[string]any{"path": "a.txt", "old_text": "absent", "new_text": "x"}))
	if err == nil || runErr == nil || err.Error() != runErr.Error() {
		t.Errorf("a failing edit: preview %v, run %v; want the same error", err, runErr)
	}
	if _, ok := byName["bash"].(Previewer); ok {
		t.Error("bash has no preview: its command is what it would do")
	}
}
