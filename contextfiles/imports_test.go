package contextfiles_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigil-dev/vigil/contextfiles"
)

// importResult is an Import with paths relative to the test folder.
type importResult struct {
	File, Token, Path string
	Line              int
	Status            contextfiles.ImportStatus
}

func TestExpandImports(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string // under the project folder "p"; "home/" is the home folder
		content  string            // of p/AGENTS.md
		maxDepth int
		want     string
		imports  []importResult
	}{
		{
			name:    "whole line",
			files:   map[string]string{"p/a.md": "A1\nA2\n"},
			content: "top\n@a.md\nend\n",
			want:    "top\nA1\nA2\nend\n",
			imports: []importResult{{"p/AGENTS.md", "@a.md", "p/a.md", 2, contextfiles.Imported}},
		},
		{
			name:    "inline",
			files:   map[string]string{"p/a.md": "the style guide\n"},
			content: "Follow @a.md, always.",
			want:    "Follow the style guide, always.",
			imports: []importResult{{"p/AGENTS.md", "@a.md", "p/a.md", 1, contextfiles.Imported}},
		},
		{
			name: "relative to the importing file",
			files: map[string]string{
				"p/docs/a.md":     "A @sub/b.md",
				"p/docs/sub/b.md": "B @../c.md",
				"p/docs/c.md":     "C",
			},
			content: "@./docs/a.md",
			want:    "A B C",
			imports: []importResult{
				{"p/AGENTS.md", "@./docs/a.md", "p/docs/a.md", 1, contextfiles.Imported},
				{"p/docs/a.md", "@sub/b.md", "p/docs/sub/b.md", 1, contextfiles.Imported},
				{"p/docs/sub/b.md", "@../c.md", "p/docs/c.md", 1, contextfiles.Imported},
			},
		},
		{
			name:    "home",
			files:   map[string]string{"home/notes/go.md": "prefer errors.Is"},
			content: "@~/notes/go.md",
			want:    "prefer errors.Is",
			imports: []importResult{{"p/AGENTS.md", "@~/notes/go.md", "home/notes/go.md", 1, contextfiles.Imported}},
		},
		{
			name:    "missing stays as written",
			content: "ask @alice about @nothing.md.\n",
			want:    "ask @alice about @nothing.md.\n",
			imports: []importResult{
				{"p/AGENTS.md", "@alice", "p/alice", 1, contextfiles.Missing},
				{"p/AGENTS.md", "@nothing.md", "p/nothing.md", 1, contextfiles.Missing},
			},
		},
		{
			name:    "folder is missing",
			files:   map[string]string{"p/docs/": ""},
			content: "@docs",
			want:    "@docs",
			imports: []importResult{{"p/AGENTS.md", "@docs", "p/docs", 1, contextfiles.Missing}},
		},
		{
			name:    "outside the roots",
			files:   map[string]string{"elsewhere/x.md": "secret"},
			content: "@../elsewhere/x.md\n",
			want:    "@../elsewhere/x.md\n",
			imports: []importResult{{"p/AGENTS.md", "@../elsewhere/x.md", "elsewhere/x.md", 1, contextfiles.Outside}},
		},
		{
			name: "cycle",
			files: map[string]string{
				"p/a.md": "A\n@b.md",
				"p/b.md": "B\n@a.md\n@AGENTS.md",
			},
			content: "@a.md\n",
			want:    "A\nB\n@a.md\n@AGENTS.md\n",
			imports: []importResult{
				{"p/AGENTS.md", "@a.md", "p/a.md", 1, contextfiles.Imported},
				{"p/a.md", "@b.md", "p/b.md", 2, contextfiles.Imported},
				{"p/b.md", "@a.md", "p/a.md", 2, contextfiles.Cycle},
				{"p/b.md", "@AGENTS.md", "p/AGENTS.md", 3, contextfiles.Cycle},
			},
		},
		{
			name:    "a file is included once",
			files:   map[string]string{"p/a.md": "A"},
			content: "@a.md\n@a.md\n",
			want:    "A\n@a.md\n",
			imports: []importResult{
				{"p/AGENTS.md", "@a.md", "p/a.md", 1, contextfiles.Imported},
				{"p/AGENTS.md", "@a.md", "p/a.md", 2, contextfiles.Repeated},
			},
		},
		{
			name: "depth limit",
			files: map[string]string{
				"p/1.md": "1 @2.md",
				"p/2.md": "2 @3.md",
				"p/3.md": "3",
			},
			content:  "@1.md",
			maxDepth: 2,
			want:     "1 2 @3.md",
			imports: []importResult{
				{"p/AGENTS.md", "@1.md", "p/1.md", 1, contextfiles.Imported},
				{"p/1.md", "@2.md", "p/2.md", 1, contextfiles.Imported},
				{"p/2.md", "@3.md", "p/3.md", 1, contextfiles.TooDeep},
			},
		},
		{
			name:     "imports off",
			files:    map[string]string{"p/a.md": "A"},
			content:  "@a.md",
			maxDepth: -1,
			want:     "@a.md",
			imports:  []importResult{{"p/AGENTS.md", "@a.md", "p/a.md", 1, contextfiles.TooDeep}},
		},
		{
			name:    "code is literal",
			files:   map[string]string{"p/a.md": "A"},
			content: "```\n@a.md\n```\n`@a.md` ~~~\n~~~md\n@a.md\n~~~\n@a.md\n",
			want:    "```\n@a.md\n```\n`@a.md` ~~~\n~~~md\n@a.md\n~~~\nA\n",
			imports: []importResult{{"p/AGENTS.md", "@a.md", "p/a.md", 8, contextfiles.Imported}},
		},
		{
			name:    "fences in imported files",
			files:   map[string]string{"p/a.md": "```\n@b.md\n```", "p/b.md": "B"},
			content: "@a.md",
			want:    "```\n@b.md\n```",
			imports: []importResult{{"p/AGENTS.md", "@a.md", "p/a.md", 1, contextfiles.Imported}},
		},
		{
			name:    "crlf",
			files:   map[string]string{"p/a.md": "A\r\n"},
			content: "x\r\n@a.md\r\ny\r\n",
			want:    "x\r\nA\r\ny\r\n",
			imports: []importResult{{"p/AGENTS.md", "@a.md", "p/a.md", 2, contextfiles.Imported}},
		},
		{
			name:    "byte order mark of an imported file",
			files:   map[string]string{"p/a.md": "\uFEFFA"},
			content: "@a.md",
			want:    "A",
			imports: []importResult{{"p/AGENTS.md", "@a.md", "p/a.md", 1, contextfiles.Imported}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tempDir(t)
			writeTree(t, root, map[string]string{"p/": "", "home/": ""})
			writeTree(t, root, tt.files)
			top := filepath.Join(root, "p", "AGENTS.md")
			writeTree(t, root, map[string]string{"p/AGENTS.md": tt.content})
			opts := contextfiles.ImportOptions{
				Home:     filepath.Join(root, "home"),
				Roots:    []string{filepath.Join(root, "p"), filepath.Join(root, "home")},
				MaxDepth: tt.maxDepth,
			}
			got, imports := contextfiles.ExpandImports(top, tt.content, opts)
			if got != tt.want {
				t.Errorf("content:\ngot  %q\nwant %q", got, tt.want)
			}
			if diff := cmp.Diff(tt.imports, relImports(t, root, imports)); diff != "" {
				t.Errorf("imports (-want +got):\n%s", diff)
			}
		})
	}
}

func TestExpandImportsSymlinkOutOfRoots(t *testing.T) {
	root := tempDir(t)
	writeTree(t, root, map[string]string{"p/": "", "outside/secret.md": "secret"})
	if err := os.Symlink(filepath.Join(root, "outside", "secret.md"), filepath.Join(root, "p", "link.md")); err != nil {
		t.Skip("no symbolic links:", err)
	}
	top := filepath.Join(root, "p", "AGENTS.md")
	got, imports := contextfiles.ExpandImports(top, "@link.md", contextfiles.ImportOptions{Roots: []string{filepath.Join(root, "p")}})
	if got != "@link.md" {
		t.Errorf("got %q, want the token left as written", got)
	}
	if len(imports) != 1 || imports[0].Status != contextfiles.Outside {
		t.Errorf("imports = %+v, want one Outside", imports)
	}
}

func TestExpandImportsNoRoots(t *testing.T) {
	root := tempDir(t)
	writeTree(t, root, map[string]string{"a.md": "A"})
	got, imports := contextfiles.ExpandImports(filepath.Join(root, "top.md"), "@a.md", contextfiles.ImportOptions{})
	if got != "@a.md" || len(imports) != 1 || imports[0].Status != contextfiles.Outside {
		t.Errorf("got %q, %+v; want nothing imported without roots", got, imports)
	}
}

func TestExpandImportsHomeUnset(t *testing.T) {
	root := tempDir(t)
	got, imports := contextfiles.ExpandImports(filepath.Join(root, "top.md"), "@~/a.md", contextfiles.ImportOptions{Roots: []string{root}})
	if got != "@~/a.md" || len(imports) != 1 || imports[0].Status != contextfiles.Missing || imports[0].Path != "" {
		t.Errorf("got %q, %+v; want a Missing token with no path", got, imports)
	}
}

func TestImportStatusString(t *testing.T) {
	seen := map[string]bool{}
	for s := contextfiles.Imported; s <= contextfiles.OverLimit; s++ {
		str := s.String()
		if str == "" || str == "unknown" || seen[str] {
			t.Errorf("ImportStatus(%d).String() = %q", s, str)
		}
		seen[str] = true
	}
	if got := contextfiles.ImportStatus(99).String(); got != "unknown" {
		t.Errorf("ImportStatus(99).String() = %q, want unknown", got)
	}
}

func relImports(t *testing.T, root string, imports []contextfiles.Import) []importResult {
	t.Helper()
	rel := func(p string) string {
		if p == "" {
			return ""
		}
		r, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		return filepath.ToSlash(r)
	}
	var out []importResult
	for _, imp := range imports {
		out = append(out, importResult{rel(imp.File), imp.Token, rel(imp.Path), imp.Line, imp.Status})
	}
	return out
}

// The content of every file the fuzzer may import, and where it is.
var fuzzFiles = map[string]string{
	"p/a.md":     "A @b.md `@c.md`",
	"p/b.md":     "B\n```\n@a.md\n```\n@a.md @c.md",
	"p/sub/c.md": "C @../a.md",
	"p/c.md":     "@sub/c.md",
}

func FuzzExpandImports(f *testing.F) {
	f.Add("@a.md")
	f.Add("x @b.md y\n```\n@a.md\n```\n@sub/c.md")
	f.Add("``@a.md`` `@b.md @c.md")
	f.Add("~~~\n@a.md\n~~~~\n@c.md.\n")
	f.Add("@~/x @/etc/hosts @../p/a.md git@a.md\r\n@a.md\r\n")
	root := tempDir(f)
	for name, content := range fuzzFiles {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	top := filepath.Join(root, "p", "AGENTS.md")
	opts := contextfiles.ImportOptions{Home: root, Roots: []string{filepath.Join(root, "p")}}
	f.Fuzz(func(t *testing.T, content string) {
		got, imports := contextfiles.ExpandImports(top, content, opts)
		imported := 0
		for _, imp := range imports {
			if imp.Status < contextfiles.Imported || imp.Status > contextfiles.TooDeep {
				t.Fatalf("bad status %d", imp.Status)
			}
			if !strings.HasPrefix(imp.Token, "@") || imp.Line < 1 {
				t.Fatalf("bad import %+v", imp)
			}
			if imp.Status == contextfiles.Imported {
				imported++
			}
		}
		// Each of the four files is included at most once.
		if imported > len(fuzzFiles) {
			t.Fatalf("%d files imported, only %d exist", imported, len(fuzzFiles))
		}
		if imported == 0 && got != content {
			t.Fatalf("nothing imported but content changed:\n%q\n%q", content, got)
		}
		off, _ := contextfiles.ExpandImports(top, content, contextfiles.ImportOptions{Roots: opts.Roots, MaxDepth: -1})
		if off != content {
			t.Fatalf("imports off changed the content:\n%q\n%q", content, off)
		}
	})
}
