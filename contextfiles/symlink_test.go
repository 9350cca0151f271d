package contextfiles_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/contextfiles"
)

// A project's AGENTS.md or WATCHDOG.md that is a symbolic link out of the
// project is skipped with a warning naming it, as an @import of the same
// path is: a cloned repository cannot put the user's private files into
// a prompt. Links inside the project, and the user's own files in the
// agent folder, are read as before.
func TestDiscoverSymlinkOutOfProject(t *testing.T) {
	root := tempDir(t)
	writeTree(t, root, map[string]string{
		"private.txt":      "PRIVATE",
		"proj/.git/HEAD":   "",
		"proj/docs/rules":  "in-project rules",
		"agent/notes.md":   "",
		"proj/sub/keep.md": "",
	})
	proj := filepath.Join(root, "proj")
	links := map[string]string{
		filepath.Join(proj, "AGENTS.md"):             filepath.Join(root, "private.txt"),
		filepath.Join(proj, "WATCHDOG.md"):           filepath.Join(root, "private.txt"),
		filepath.Join(proj, "sub", "AGENTS.md"):      filepath.Join(proj, "docs", "rules"),
		filepath.Join(root, "agent", "AGENTS.md"):    filepath.Join(root, "private.txt"),
		filepath.Join(proj, ".vigil", "WATCHDOG.md"): "../../private.txt",
	}
	if err := os.MkdirAll(filepath.Join(proj, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, names := range []contextfiles.Names{contextfiles.AgentsNames(), contextfiles.WatchdogNames()} {
		var logs []string
		files, err := contextfiles.Discover(contextfiles.Options{
			Names:    names,
			AgentDir: filepath.Join(root, "agent"),
			Dir:      filepath.Join(proj, "sub"),
			Logf:     func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) },
		})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for _, f := range files {
			got[f.Path] = f.Content
		}
		for path, content := range got {
			if content == "PRIVATE" && !strings.HasPrefix(path, filepath.Join(root, "agent")) {
				t.Errorf("%s: text from outside the project reached the prompt", path)
			}
		}
		for _, name := range names.Project {
			link := filepath.Join(proj, filepath.FromSlash(name))
			if _, ok := links[link]; !ok {
				continue
			}
			found := false
			for _, l := range logs {
				found = found || strings.Contains(l, link) && strings.Contains(l, "outside the project")
			}
			if !found {
				t.Errorf("no warning names %s as a link out of the project: %q", link, logs)
			}
		}
		if names.Project[0] == "AGENTS.md" {
			if got[filepath.Join(proj, "sub", "AGENTS.md")] != "in-project rules" {
				t.Errorf("a link inside the project was not read: %q", got)
			}
			if got[filepath.Join(root, "agent", "AGENTS.md")] != "PRIVATE" {
				t.Errorf("the user's own linked AGENTS.md was not read: %q", got)
			}
		}
	}
}
