package contextfiles_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vigil-dev/vigil/contextfiles"
)

func Example() {
	root, _ := os.MkdirTemp("", "contextfiles")
	defer os.RemoveAll(root)
	root, _ = filepath.EvalSymlinks(root)
	repo := filepath.Join(root, "repo")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "docs"), 0o755)
	os.WriteFile(filepath.Join(repo, "AGENTS.md"), []byte("Run `go test ./...` before you stop.\n@docs/style.md\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "docs", "style.md"), []byte("Wrap errors with context.\n"), 0o644)

	files, err := contextfiles.Discover(contextfiles.Options{
		Names: contextfiles.AgentsNames(),
		Dir:   filepath.Join(repo, "docs"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f.Path)
		fmt.Printf("%s:\n%s", rel, f.Content)
	}
	// Output:
	// repo/AGENTS.md:
	// Run `go test ./...` before you stop.
	// Wrap errors with context.
}
