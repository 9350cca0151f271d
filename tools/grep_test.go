package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// searchTree writes a small repository for grep and find.
func searchTree(t *testing.T, root string) {
	t.Helper()
	writeFiles(t, root, map[string]string{
		".gitignore":            "*.log\n/build/\nvendor/\n",
		".git/config":           "needle in git internals\n",
		".git/HEAD":             "ref: refs/heads/main\n",
		"main.go":               "package main\n\n// needle here\nfunc main() {}\n",
		"README.md":             "A Needle in the readme\n",
		"app.log":               "needle in a log\n",
		"build/out.go":          "needle in build output\n",
		"vendor/dep/dep.go":     "needle vendored\n",
		"cmd/tool/main.go":      "package main\n\nvar x = \"needle\"\n",
		"cmd/tool/main_test.go": "package main\n\n// needle in a test\n",
		"cmd/.gitignore":        "generated.go\n!keep.log\n",
		"cmd/generated.go":      "needle generated\n",
		"cmd/keep.log":          "needle kept log\n",
		"data/blob.bin":         "needle\x00binary",
		"docs/a(b).txt":         "call f(x) needle\n",
	})
}

func TestGrep(t *testing.T) {
	s, root := newSession(t, Options{})
	searchTree(t, root)
	writeFiles(t, root, map[string]string{
		"crlf.txt": "ends x\r\nnext\r\n",
		"ctx.txt":  "one\ntwo\nthree match\nfour\nfive\nsix\nseven\neight match\nnine\nten match\neleven\n",
	})
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{
			name: "honours gitignore and skips git and binary files",
			args: map[string]any{"pattern": "needle"},
			want: "cmd/keep.log:1:needle kept log\n" +
				"cmd/tool/main.go:3:var x = \"needle\"\n" +
				"cmd/tool/main_test.go:3:// needle in a test\n" +
				"docs/a(b).txt:1:call f(x) needle\n" +
				"main.go:3:// needle here",
		},
		{
			name: "ignore case",
			args: map[string]any{"pattern": "needle in the", "ignore_case": true},
			want: "README.md:1:A Needle in the readme",
		},
		{
			name: "case sensitive by default",
			args: map[string]any{"pattern": "Needle"},
			want: "README.md:1:A Needle in the readme",
		},
		{
			name: "regular expression",
			args: map[string]any{"pattern": `^func \w+\(`},
			want: "main.go:4:func main() {}",
		},
		{
			name: "line anchors in a crlf file",
			args: map[string]any{"pattern": `x$`, "path": "crlf.txt"},
			want: "crlf.txt:1:ends x",
		},
		{
			name: "literal",
			args: map[string]any{"pattern": "f(x)", "literal": true},
			want: "docs/a(b).txt:1:call f(x) needle",
		},
		{
			name: "include by name",
			args: map[string]any{"pattern": "needle", "include": "*_test.go"},
			want: "cmd/tool/main_test.go:3:// needle in a test",
		},
		{
			name: "include by path",
			args: map[string]any{"pattern": "needle", "include": "cmd/**/*.go"},
			want: "cmd/tool/main.go:3:var x = \"needle\"\ncmd/tool/main_test.go:3:// needle in a test",
		},
		{
			name: "exclude",
			args: map[string]any{"pattern": "needle", "exclude": "*.{go,log}"},
			want: "docs/a(b).txt:1:call f(x) needle",
		},
		{
			name: "path is a folder",
			args: map[string]any{"pattern": "needle", "path": "cmd/tool"},
			want: "cmd/tool/main.go:3:var x = \"needle\"\ncmd/tool/main_test.go:3:// needle in a test",
		},
		{
			name: "path is a file, even an ignored one",
			args: map[string]any{"pattern": "needle", "path": "app.log"},
			want: "app.log:1:needle in a log",
		},
		{
			name: "folder below an ignored one searched when asked",
			args: map[string]any{"pattern": "needle", "path": "build"},
			want: "build/out.go:1:needle in build output",
		},
		{
			name: "max matches",
			args: map[string]any{"pattern": "needle", "max_matches": 2},
			want: "cmd/keep.log:1:needle kept log\ncmd/tool/main.go:3:var x = \"needle\"\n" +
				"[stopped at 2 matches; narrow the pattern, path or include, or raise max_matches]",
		},
		{
			name: "context lines merge and separate",
			args: map[string]any{"pattern": "match", "path": "ctx.txt", "context": 1},
			want: "ctx.txt-2-two\nctx.txt:3:three match\nctx.txt-4-four\n--\n" +
				"ctx.txt-7-seven\nctx.txt:8:eight match\nctx.txt-9-nine\nctx.txt:10:ten match\nctx.txt-11-eleven",
		},
		{
			name: "context separates files",
			args: map[string]any{"pattern": "needle", "include": "cmd/tool/*.go", "context": 1},
			want: "cmd/tool/main.go-2-\ncmd/tool/main.go:3:var x = \"needle\"\n--\n" +
				"cmd/tool/main_test.go-2-\ncmd/tool/main_test.go:3:// needle in a test",
		},
		{
			name: "no matches is not an error",
			args: map[string]any{"pattern": "haystack"},
			want: `No matches for "haystack" in .`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, s, "grep", tt.args)
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if res.IsError {
				t.Error("IsError set")
			}
		})
	}
}

func TestGrepLimits(t *testing.T) {
	s, root := newSession(t, Options{MaxLines: 3})
	writeFiles(t, root, map[string]string{
		"many.txt": strings.Repeat("hit\n", 10),
		"long.txt": "hit " + strings.Repeat("x", 600) + "\n",
	})
	res := mustRun(t, s, "grep", map[string]any{"pattern": "hit", "path": "many.txt"})
	want := "many.txt:1:hit\nmany.txt:2:hit\nmany.txt:3:hit\n[output cut after 4 matching lines to fit the output limit; narrow the pattern, path or include]"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("capped output (-want +got):\n%s", diff)
	}
	if !res.Details.Truncated {
		t.Error("Truncated not set")
	}
	res = mustRun(t, s, "grep", map[string]any{"pattern": "hit", "path": "long.txt"})
	want = "long.txt:1:hit " + strings.Repeat("x", 496) + "… [104 more bytes]"
	if diff := cmp.Diff(want, res.Text()); diff != "" {
		t.Errorf("long line (-want +got):\n%s", diff)
	}
}

func TestGrepErrors(t *testing.T) {
	s, root := newSession(t, Options{})
	searchTree(t, root)
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "missing pattern", args: `{}`, want: `grep: missing required argument "pattern" (string)`},
		{name: "empty pattern", args: `{"pattern":""}`, want: "grep: pattern is empty"},
		{name: "bad regexp", args: `{"pattern":"f(x"}`, want: `grep: pattern "f(x" is not a valid Go regular expression: missing closing ): ` + "`f(x`" + `; set literal to true to search for the text as written`},
		{name: "context negative", args: `{"pattern":"a","context":-1}`, want: `grep: argument "context" must be at least 0, got -1`},
		{name: "ignore_case not boolean", args: `{"pattern":"a","ignore_case":1}`, want: `grep: argument "ignore_case" must be a boolean (true or false), got number 1`},
		{name: "bad include", args: `{"pattern":"a","include":"[a"}`, want: `grep: include "[a" is not a valid glob`},
		{name: "bad exclude", args: `{"pattern":"a","exclude":"{a"}`, want: `grep: exclude "{a" is not a valid glob`},
		{name: "missing path", args: `{"pattern":"a","path":"nope"}`, want: "grep nope: no such file or directory"},
		{name: "binary file named", args: `{"pattern":"a","path":"data/blob.bin"}`, want: "grep data/blob.bin: binary file (it has a NUL byte at offset 6)"},
		{name: "unknown argument", args: `{"pattern":"a","glob":"*.go"}`, want: `grep: unknown argument "glob" (grep takes: pattern, path, include, exclude, ignore_case, literal, context, max_matches)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, s, "grep", tt.args)
			wantErr(t, err, tt.want)
		})
	}
	t.Run("search names itself", func(t *testing.T) {
		_, err := run(t, s, "search", `{}`)
		wantErr(t, err, `search: missing required argument "pattern" (string)`)
	})
}

func TestGrepSkipsSymlinks(t *testing.T) {
	s, root := newSession(t, Options{})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.txt": "needle outside\n"})
	writeFiles(t, root, map[string]string{"in.txt": "needle inside\n"})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(root, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "linkdir")); err != nil {
		t.Fatal(err)
	}
	res := mustRun(t, s, "grep", map[string]any{"pattern": "needle"})
	if diff := cmp.Diff("in.txt:1:needle inside", res.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestGitignoreAboveSearchFolder checks that the .gitignore of the repository
// top applies when the search starts in a subfolder.
func TestGitignoreAboveSearchFolder(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{
		".git/HEAD":           "ref: refs/heads/main\n",
		".git/info/exclude":   "*.secret\n",
		".gitignore":          "sub/gen/\n*.tmp\n",
		"sub/.gitignore":      "local.txt\n",
		"sub/a.txt":           "needle\n",
		"sub/b.tmp":           "needle\n",
		"sub/c.secret":        "needle\n",
		"sub/gen/d.txt":       "needle\n",
		"sub/inner/e.txt":     "needle\n",
		"sub/inner/local.txt": "needle\n",
	})
	res := mustRun(t, s, "grep", map[string]any{"pattern": "needle", "path": "sub/inner"})
	if diff := cmp.Diff("sub/inner/e.txt:1:needle", res.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	res = mustRun(t, s, "find", map[string]any{"pattern": "*", "path": "sub"})
	if diff := cmp.Diff("sub/.gitignore\nsub/a.txt\nsub/inner/\nsub/inner/e.txt", res.Text()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
