package contextfiles_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

// A cloned repository decides what its AGENTS.md and WATCHDOG.md are.
// Whatever it puts there, discovery ends within the hostile-input bounds
// and says what it skipped.
func TestDiscoverHostileFiles(t *testing.T) {
	tests := []struct {
		name string
		make func(t *testing.T, path string)
		log  string // what the log must say; "" wants the file read and nothing logged
		want string // what the content must hold when the file is read
	}{
		{"a sparse 10 GiB file", hostiletest.Sparse(10 << 30), "larger than 1 MiB", ""},
		{"a 2 MiB file", hostiletest.Text(strings.Repeat("y", 2<<20)), "larger than 1 MiB", ""},
		{"a named pipe", hostiletest.FIFO, "not a regular file (a named pipe)", ""},
		{"a link to /dev/zero", hostiletest.Link("/dev/zero"), "not a regular file (a device)", ""},
		{"a loop of symbolic links", hostiletest.Loop, "a loop of symbolic links", ""},
		{"no permission to read", hostiletest.Unreadable, "permission denied", ""},
		{"invalid UTF-8", hostiletest.Text("caf\xe9 \xff\n"), "is not UTF-8 text", "caf\uFFFD \uFFFD"},
		{"control characters", hostiletest.Text("a\x1b[31mred\x00\n"), "", "a\x1b[31mred\x00"},
		{"a million import tokens", hostiletest.Text(strings.Repeat("@x.md ", (1<<20)/6)), "", "@x.md @x.md"},
		{"a 1 MiB line", hostiletest.Text(strings.Repeat("y", 1<<20)), "", "yyy"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tempDir(t)
			writeTree(t, root, map[string]string{"p/.git/": ""})
			tt.make(t, filepath.Join(root, "p", "AGENTS.md"))
			var files []contextfiles.File
			var logs []string
			hostiletest.Bounded(t, func() {
				var err error
				files, err = contextfiles.Discover(contextfiles.Options{
					Names: contextfiles.AgentsNames(),
					Dir:   filepath.Join(root, "p"),
					Logf:  func(format string, args ...any) { logs = append(logs, fmt.Sprintf(format, args...)) },
				})
				if err != nil {
					t.Error(err)
				}
			})
			if tt.log != "" {
				if len(logs) != 1 || !strings.Contains(logs[0], tt.log) || !strings.Contains(logs[0], "AGENTS.md") {
					t.Errorf("logs %q, want one naming AGENTS.md and saying %q", logs, tt.log)
				}
			} else if len(logs) != 0 {
				t.Errorf("logged %q", logs)
			}
			if tt.want == "" {
				if len(files) != 0 {
					t.Errorf("read %d files, want the hostile one skipped", len(files))
				}
				return
			}
			if len(files) != 1 || !strings.Contains(files[0].Content, tt.want) {
				t.Errorf("files %.200v, want one holding %q", files, tt.want)
			}
		})
	}
}

// Imports can multiply what a file brings: each is bounded on its own and
// all together.
func TestExpandImportsHostile(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		make    func(t *testing.T, p string) // given the project folder
		content string
		status  contextfiles.ImportStatus // of the last import listed
		count   int                       // imports listed
	}{
		{"a cycle", map[string]string{"p/a.md": "@b.md", "p/b.md": "@a.md"}, nil, "@a.md", contextfiles.Cycle, 3},
		{"a chain deeper than the limit", chain(10), nil, "@c0.md", contextfiles.TooDeep, contextfiles.DefaultMaxImportDepth + 1},
		{"too many imports", fanOut(contextfiles.MaxImports + 50), nil, tokens(contextfiles.MaxImports + 50), contextfiles.OverLimit, contextfiles.MaxImports + 1},
		{"a file over the limit", map[string]string{"p/big.md": strings.Repeat("y", 2<<20)}, nil, "@big.md", contextfiles.OverLimit, 1},
		{"files over the limit together", fanOutSized(5, 900<<10), nil, tokens(5), contextfiles.OverLimit, 5},
		{"a named pipe", nil, func(t *testing.T, p string) { hostiletest.FIFO(t, filepath.Join(p, "f.md")) }, "@f.md", contextfiles.Missing, 1},
		{"a loop of symbolic links", nil, func(t *testing.T, p string) { hostiletest.Loop(t, filepath.Join(p, "l.md")) }, "@l.md", contextfiles.Missing, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := tempDir(t)
			writeTree(t, root, tt.files)
			p := filepath.Join(root, "p")
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if tt.make != nil {
				tt.make(t, p)
			}
			var imports []contextfiles.Import
			hostiletest.Bounded(t, func() {
				_, imports = contextfiles.ExpandImports(filepath.Join(p, "AGENTS.md"), tt.content, contextfiles.ImportOptions{Roots: []string{p}})
			})
			if len(imports) != tt.count || imports[len(imports)-1].Status != tt.status {
				last := contextfiles.Import{}
				if len(imports) > 0 {
					last = imports[len(imports)-1]
				}
				t.Errorf("%d imports, the last %+v; want %d, the last %v", len(imports), last, tt.count, tt.status)
			}
		})
	}
}

// chain is p/c0.md importing c1.md … up to c{n-1}.md.
func chain(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("p/c%d.md", i)] = fmt.Sprintf("@c%d.md", i+1)
	}
	return files
}

// fanOut is n files f0.md … of one line each.
func fanOut(n int) map[string]string { return fanOutSized(n, 1) }

func fanOutSized(n, size int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("p/f%d.md", i)] = strings.Repeat("y", size)
	}
	return files
}

// tokens imports f0.md … f{n-1}.md.
func tokens(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "@f%d.md\n", i)
	}
	return b.String()
}
