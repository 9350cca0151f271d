package contextfiles_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigil-dev/vigil/contextfiles"
)

func TestDiscover(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string // under a temporary folder
		names contextfiles.Names
		dir   string // the working folder, relative
		agent string // the agent folder, relative; "" for none
		home  bool   // WalkFromHome
		want  []string
	}{
		{
			name: "watchdog, no repository: walk down from home",
			files: map[string]string{
				"WATCHDOG.md":                       "above home",
				"home/WATCHDOG.md":                  "home",
				"home/work/WATCHDOG.md":             "work",
				"home/work/proj/WATCHDOG.md":        "proj",
				"home/work/proj/.vigil/WATCHDOG.md": "proj hidden",
			},
			names: contextfiles.WatchdogNames(),
			dir:   "home/work/proj",
			home:  true,
			want: []string{
				"home/WATCHDOG.md: home",
				"home/work/WATCHDOG.md: work",
				"home/work/proj/WATCHDOG.md: proj",
				"home/work/proj/.vigil/WATCHDOG.md: proj hidden",
			},
		},
		{
			name: "files in a hidden owner folder are ignored, .vigil is not",
			files: map[string]string{
				"repo/.git/":                      "",
				"repo/WATCHDOG.md":                "root",
				"repo/.config/WATCHDOG.md":        "hidden owner",
				"repo/.config/.vigil/WATCHDOG.md": "hidden owner's .vigil",
				"repo/.config/app/WATCHDOG.md":    "below a hidden folder",
			},
			names: contextfiles.WatchdogNames(),
			dir:   "repo/.config/app",
			want:  []string{"repo/WATCHDOG.md: root"},
		},
		{
			name: "agent folder then root down to the working folder",
			files: map[string]string{
				"home/.vigil/agent/AGENTS.md": "user",
				"repo/.git/":                  "",
				"repo/AGENTS.md":              "root",
				"repo/a/AGENTS.md":            "a",
				"repo/a/b/c/AGENTS.md":        "c",
				"repo/a/b/c/d/AGENTS.md":      "below the working folder",
				"repo/other/AGENTS.md":        "a sibling",
				"AGENTS.md":                   "above the root",
			},
			names: contextfiles.AgentsNames(),
			dir:   "repo/a/b/c",
			agent: "home/.vigil/agent",
			want: []string{
				"home/.vigil/agent/AGENTS.md: user",
				"repo/AGENTS.md: root",
				"repo/a/AGENTS.md: a",
				"repo/a/b/c/AGENTS.md: c",
			},
		},
		{
			name: "no repository: the working folder only",
			files: map[string]string{
				"work/AGENTS.md":      "parent",
				"work/proj/AGENTS.md": "here",
			},
			names: contextfiles.AgentsNames(),
			dir:   "work/proj",
			want:  []string{"work/proj/AGENTS.md: here"},
		},
		{
			name: "a .git file marks a worktree root",
			files: map[string]string{
				"wt/.git":        "gitdir: elsewhere",
				"wt/AGENTS.md":   "root",
				"wt/x/AGENTS.md": "x",
			},
			names: contextfiles.AgentsNames(),
			dir:   "wt/x",
			want:  []string{"wt/AGENTS.md: root", "wt/x/AGENTS.md: x"},
		},
		{
			name: "watchdog: WATCHDOG.md before .vigil/WATCHDOG.md in each folder",
			files: map[string]string{
				"agent/WATCHDOG.md":           "user",
				"agent/.vigil/WATCHDOG.md":    "not a user name",
				"repo/.git/":                  "",
				"repo/.vigil/WATCHDOG.md":     "root hidden",
				"repo/WATCHDOG.md":            "root",
				"repo/sub/.vigil/WATCHDOG.md": "sub hidden",
				"repo/sub/AGENTS.md":          "not a watchdog file",
			},
			names: contextfiles.WatchdogNames(),
			dir:   "repo/sub",
			agent: "agent",
			want: []string{
				"agent/WATCHDOG.md: user",
				"repo/WATCHDOG.md: root",
				"repo/.vigil/WATCHDOG.md: root hidden",
				"repo/sub/.vigil/WATCHDOG.md: sub hidden",
			},
		},
		{
			name:  "missing agent folder",
			files: map[string]string{"p/AGENTS.md": "p"},
			names: contextfiles.AgentsNames(),
			dir:   "p",
			agent: "nowhere",
			want:  []string{"p/AGENTS.md: p"},
		},
		{
			name: "agent folder inside the project is read once",
			files: map[string]string{
				"p/.git/":     "",
				"p/AGENTS.md": "p",
			},
			names: contextfiles.AgentsNames(),
			dir:   "p",
			agent: "p",
			want:  []string{"p/AGENTS.md: p"},
		},
		{
			name: "a folder in the way of a name is skipped",
			files: map[string]string{
				"p/.vigil":      "a file, not a folder",
				"p/WATCHDOG.md": "w",
			},
			names: contextfiles.WatchdogNames(),
			dir:   "p",
			want:  []string{"p/WATCHDOG.md: w"},
		},
		{
			name: "imports are expanded, from the agent folder too",
			files: map[string]string{
				"agent/AGENTS.md": "@rules.md",
				"agent/rules.md":  "user rules",
				"p/.git/":         "",
				"p/AGENTS.md":     "@docs/x.md and @../agent/rules.md",
				"p/docs/x.md":     "project rules",
			},
			names: contextfiles.AgentsNames(),
			dir:   "p",
			agent: "agent",
			want: []string{
				"agent/AGENTS.md: user rules",
				"p/AGENTS.md: project rules and @../agent/rules.md", // outside the project: left as written
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tempDir(t)
			writeTree(t, root, tt.files)
			opts := contextfiles.Options{
				Names: tt.names,
				Dir:   filepath.Join(root, filepath.FromSlash(tt.dir)),
				Home:  filepath.Join(root, "home"),

				WalkFromHome: tt.home,
			}
			if tt.agent != "" {
				opts.AgentDir = filepath.Join(root, filepath.FromSlash(tt.agent))
			}
			files, err := contextfiles.Discover(opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range files {
				rel, _ := filepath.Rel(root, f.Path)
				got = append(got, filepath.ToSlash(rel)+": "+f.Content)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverLogsUnusableFiles(t *testing.T) {
	root := tempDir(t)
	writeTree(t, root, map[string]string{"p/AGENTS.md/": "", "p/sub/AGENTS.md": "sub"})
	var logs []string
	files, err := contextfiles.Discover(contextfiles.Options{
		Names: contextfiles.AgentsNames(),
		Dir:   filepath.Join(root, "p", "sub"),
		Logf:  func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	// Without a repository only the working folder is looked at.
	if len(files) != 1 || files[0].Content != "sub" || len(logs) != 0 {
		t.Fatalf("files %+v, logs %q", files, logs)
	}
	writeTree(t, root, map[string]string{"p/.git/": ""})
	files, err = contextfiles.Discover(contextfiles.Options{
		Names: contextfiles.AgentsNames(),
		Dir:   filepath.Join(root, "p", "sub"),
		Logf:  func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || len(logs) != 1 || !strings.Contains(logs[0], "not a regular file") {
		t.Errorf("files %+v, logs %q; want the folder named AGENTS.md skipped and logged", files, logs)
	}
}

func TestDiscoverSymlinkedDuplicate(t *testing.T) {
	root := tempDir(t)
	writeTree(t, root, map[string]string{"p/.git/": "", "p/WATCHDOG.md": "w"})
	if err := os.MkdirAll(filepath.Join(root, "p", ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../WATCHDOG.md", filepath.Join(root, "p", ".vigil", "WATCHDOG.md")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	files, err := contextfiles.Discover(contextfiles.Options{Names: contextfiles.WatchdogNames(), Dir: filepath.Join(root, "p")})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 1 || files[0].Path != filepath.Join(root, "p", "WATCHDOG.md") {
		t.Errorf("files = %+v, want WATCHDOG.md once", files)
	}
}

func TestDiscoverBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts contextfiles.Options
	}{
		{"relative folder", contextfiles.Options{Names: contextfiles.AgentsNames(), Dir: "rel"}},
		{"empty folder", contextfiles.Options{Names: contextfiles.AgentsNames()}},
		{"name escapes", contextfiles.Options{Names: contextfiles.Names{Project: []string{"../AGENTS.md"}}, Dir: "/"}},
		{"absolute name", contextfiles.Options{Names: contextfiles.Names{User: []string{"/etc/AGENTS.md"}}, Dir: "/"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := contextfiles.Discover(tt.opts); err == nil {
				t.Error("got no error")
			}
		})
	}
}

func TestProjectRoot(t *testing.T) {
	root := tempDir(t)
	writeTree(t, root, map[string]string{"repo/.git/": "", "repo/a/b/": "", "plain/a/": ""})
	tests := []struct{ name, dir, want string }{
		{"at the root", "repo", "repo"},
		{"below the root", "repo/a/b", "repo"},
		{"no repository", "plain/a", "plain/a"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := contextfiles.ProjectRoot(filepath.Join(root, filepath.FromSlash(tt.dir)))
			if want := filepath.Join(root, filepath.FromSlash(tt.want)); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}
