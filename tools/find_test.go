package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFind(t *testing.T) {
	s, root := newSession(t, Options{})
	searchTree(t, root)
	if err := os.Symlink(t.TempDir(), filepath.Join(root, "outlink")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{
			name: "names at any depth, gitignore honoured",
			args: map[string]any{"pattern": "*.go"},
			want: "cmd/tool/main.go\ncmd/tool/main_test.go\nmain.go",
		},
		{
			name: "everything, folders marked, sorted folder by folder",
			args: map[string]any{"pattern": "**"},
			want: ".gitignore\nREADME.md\ncmd/\ncmd/.gitignore\ncmd/keep.log\ncmd/tool/\ncmd/tool/main.go\ncmd/tool/main_test.go\n" +
				"data/\ndata/blob.bin\ndocs/\ndocs/a(b).txt\nmain.go\noutlink",
		},
		{
			name: "path pattern",
			args: map[string]any{"pattern": "cmd/*/main*.go"},
			want: "cmd/tool/main.go\ncmd/tool/main_test.go",
		},
		{
			name: "braces",
			args: map[string]any{"pattern": "*.{md,txt}"},
			want: "README.md\ndocs/a(b).txt",
		},
		{
			name: "in a folder",
			args: map[string]any{"pattern": "*", "path": "cmd/tool"},
			want: "cmd/tool/main.go\ncmd/tool/main_test.go",
		},
		{
			name: "folders by name",
			args: map[string]any{"pattern": "tool"},
			want: "cmd/tool/",
		},
		{
			name: "limit",
			args: map[string]any{"pattern": "*.go", "limit": 1},
			want: "cmd/tool/main.go\n[... 2 more; narrow the pattern or path, or raise limit]",
		},
		{
			name: "nothing matches",
			args: map[string]any{"pattern": "*.rs"},
			want: `No paths match "*.rs" in .`,
		},
		{
			name: "leading ./ accepted",
			args: map[string]any{"pattern": "./main.go"},
			want: "main.go",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, s, "find", tt.args)
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFindOutputCap(t *testing.T) {
	s, root := newSession(t, Options{MaxLines: 3})
	files := map[string]string{}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		files[n+".txt"] = ""
	}
	writeFiles(t, root, files)
	res := mustRun(t, s, "find", map[string]any{"pattern": "*.txt"})
	want := "a.txt\nb.txt\nc.txt\n[... 2 more; narrow the pattern or path, or raise limit]"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if !res.Details.Truncated || res.Details.Matches != 5 {
		t.Errorf("Truncated %v, Matches %d", res.Details.Truncated, res.Details.Matches)
	}
}

func TestFindErrors(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{"f.txt": "x"})
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "missing pattern", args: `{}`, want: `find: missing required argument "pattern" (string)`},
		{name: "empty pattern", args: `{"pattern":""}`, want: "find: pattern is empty"},
		{name: "bad glob", args: `{"pattern":"[a"}`, want: `find: pattern "[a" is not a valid glob`},
		{name: "limit zero", args: `{"pattern":"*","limit":0}`, want: `find: argument "limit" must be at least 1, got 0`},
		{name: "limit a string", args: `{"pattern":"*","limit":"5"}`, want: `find: argument "limit" must be an integer, got string "5"`},
		{name: "path is a file", args: `{"pattern":"*","path":"f.txt"}`, want: "find f.txt: not a folder"},
		{name: "missing path", args: `{"pattern":"*","path":"nope"}`, want: "find nope: no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, s, "find", tt.args)
			wantErr(t, err, tt.want)
		})
	}
}

func TestFindLargeTreeSorted(t *testing.T) {
	s, root := newSession(t, Options{})
	files := map[string]string{}
	var want []string
	for _, d := range []string{"b", "a", "a.b", "a/c"} {
		for _, f := range []string{"z.go", "y.go"} {
			files[d+"/"+f] = ""
		}
	}
	writeFiles(t, root, files)
	res := mustRun(t, s, "find", map[string]any{"pattern": "*.go"})
	want = []string{"a/c/y.go", "a/c/z.go", "a/y.go", "a/z.go", "a.b/y.go", "a.b/z.go", "b/y.go", "b/z.go"}
	if diff := cmp.Diff(want, strings.Split(res.Text(), "\n")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
