package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newSession returns a session rooted in a fresh temporary folder, with
// opts applied on top.
func newSession(t *testing.T, opts Options) (*Session, string) {
	t.Helper()
	if len(opts.Roots) == 0 && opts.Cwd == "" {
		root, err := filepath.EvalSymlinks(t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		opts.Roots = []string{root}
	}
	if opts.ArtifactsDir == "" {
		opts.ArtifactsDir = t.TempDir()
	}
	s, err := NewSession(opts)
	if err != nil {
		t.Fatalf("NewSession: %v", err)
	}
	return s, s.Roots()[0]
}

// writeFiles creates files below root; a name ending in / makes a folder.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// toolNamed returns the tool of set with the given name.
func toolNamed(t *testing.T, set []Tool, name string) Tool {
	t.Helper()
	for _, tool := range set {
		if tool.Definition().Name == name {
			return tool
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// run calls the named tool of the session with args (a JSON object, or a
// value json.Marshal turns into one).
func run(t *testing.T, s *Session, name string, args any) (Result, error) {
	t.Helper()
	return runCtx(context.Background(), t, s, name, args)
}

func runCtx(ctx context.Context, t *testing.T, s *Session, name string, args any) (Result, error) {
	t.Helper()
	var raw json.RawMessage
	switch a := args.(type) {
	case string:
		raw = json.RawMessage(a)
	default:
		b, err := json.Marshal(a)
		if err != nil {
			t.Fatal(err)
		}
		raw = b
	}
	tool := toolNamed(t, append(s.Tools(), s.ReadOnlyTools()...), name)
	return tool.Run(ctx, Call{ID: "call_1", Name: name, Arguments: raw})
}

// mustRun is run that fails the test on error.
func mustRun(t *testing.T, s *Session, name string, args any) Result {
	t.Helper()
	res, err := run(t, s, name, args)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// wantErr checks that err is non-nil and holds every fragment.
func wantErr(t *testing.T, err error, fragments ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want one containing %q", fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q does not contain %q", err, f)
		}
	}
}

// wantText checks that the result's text holds every fragment.
func wantText(t *testing.T, res Result, fragments ...string) {
	t.Helper()
	text := res.Text()
	for _, f := range fragments {
		if !strings.Contains(text, f) {
			t.Errorf("text does not contain %q; text:\n%s", f, text)
		}
	}
}
