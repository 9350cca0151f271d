package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWrite(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{"old.txt": "one\ntwo\n", "dir/": ""})
	mustRun(t, s, "read", map[string]any{"path": "old.txt"})

	tests := []struct {
		name     string
		path     string
		content  string
		wantText string
		wantDiff string
	}{
		{
			name: "new file in new folders", path: "a/b/c.txt", content: "hello\n",
			wantText: "Wrote 6 bytes to a/b/c.txt (new file)",
			wantDiff: "--- /dev/null\n+++ b/a/b/c.txt\n@@ -0,0 +1,1 @@\n+hello\n",
		},
		{
			name: "overwrite a file that was read", path: "old.txt", content: "one\n2\n",
			wantText: "Wrote 6 bytes to old.txt (replaced 8 bytes)",
			wantDiff: "--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n",
		},
		{
			name: "same content again", path: "old.txt", content: "one\n2\n",
			wantText: "Wrote 6 bytes to old.txt (content unchanged)",
		},
		{
			name: "empty file", path: "empty.txt", content: "",
			wantText: "Wrote 0 bytes to empty.txt (new file)",
		},
		{
			name: "one byte", path: "one.txt", content: "x",
			wantText: "Wrote 1 byte to one.txt (new file)",
			wantDiff: "--- /dev/null\n+++ b/one.txt\n@@ -0,0 +1,1 @@\n+x\n\\ No newline at end of file\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, s, "write", map[string]any{"path": tt.path, "content": tt.content})
			if diff := cmp.Diff(tt.wantText, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantDiff, res.Details.Diff); diff != "" {
				t.Errorf("diff (-want +got):\n%s", diff)
			}
			if got := readFile(t, filepath.Join(root, tt.path)); got != tt.content {
				t.Errorf("file holds %q, want %q", got, tt.content)
			}
			if res.Details.BytesWritten != len(tt.content) {
				t.Errorf("BytesWritten = %d, want %d", res.Details.BytesWritten, len(tt.content))
			}
		})
	}
}

func TestWriteKeepsMode(t *testing.T) {
	s, root := newSession(t, Options{})
	p := filepath.Join(root, "run.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	mustRun(t, s, "write", map[string]any{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"})
	info, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", info.Mode().Perm())
	}
}

func TestWriteErrors(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{"dir/": "", "file.txt": "x"})
	tests := []struct {
		name string
		args string
		want string
	}{
		{name: "missing content", args: `{"path":"a.txt"}`, want: `write: missing required argument "content" (string)`},
		{name: "missing path", args: `{"content":"x"}`, want: `write: missing required argument "path" (string)`},
		{name: "content not a string", args: `{"path":"a.txt","content":{"a":1}}`, want: `write: argument "content" must be a string, got object {"a":1}`},
		{name: "unknown argument", args: `{"path":"a.txt","content":"x","mode":"0644"}`, want: `write: unknown argument "mode" (write takes: path, content)`},
		{name: "a folder", args: `{"path":"dir","content":"x"}`, want: "write dir: is a directory"},
		{name: "below a file", args: `{"path":"file.txt/x","content":"x"}`, want: "not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, s, "write", tt.args)
			wantErr(t, err, tt.want)
		})
	}
}
