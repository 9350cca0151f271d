package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTailCapture(t *testing.T) {
	tests := []struct {
		name      string
		writes    []string
		maxBytes  int
		maxLines  int
		failOpen  bool
		want      string
		truncated bool
		spilled   string // the whole output, when it should be in the file
	}{
		{name: "fits", writes: []string{"a\n", "b\n"}, maxBytes: 100, maxLines: 10, want: "a\nb\n"},
		{name: "exactly the limits", writes: []string{"abc\n", "def\n"}, maxBytes: 8, maxLines: 2, want: "abc\ndef\n"},
		{
			name: "too many lines", writes: []string{"1\n2\n3\n", "4\n5\n"}, maxBytes: 100, maxLines: 2,
			want:      "[... 6 B (3 lines) of output dropped; showing the last 2 lines; full output: FILE (use read or grep on it)]\n4\n5\n",
			truncated: true, spilled: "1\n2\n3\n4\n5\n",
		},
		{
			name: "too many bytes, cut line marked", writes: []string{"aaaa\nbbbbbbbb\ncc"}, maxBytes: 6, maxLines: 10,
			want:      "[... 10 B (2 lines) of output dropped; showing the last 2 lines; full output: FILE (use read or grep on it)]\n…bbb\ncc",
			truncated: true, spilled: "aaaa\nbbbbbbbb\ncc",
		},
		{
			name: "cut at a line start", writes: []string{"aaaa\nbbb\n"}, maxBytes: 4, maxLines: 10,
			want:      "[... 5 B (1 line) of output dropped; showing the last 1 line; full output: FILE (use read or grep on it)]\nbbb\n",
			truncated: true, spilled: "aaaa\nbbb\n",
		},
		{
			name: "many small writes", writes: strings.Split(strings.Repeat("x\n", 1000), ""), maxBytes: 10, maxLines: 3,
			want:      "[... 1.9 KiB (997 lines) of output dropped; showing the last 3 lines; full output: FILE (use read or grep on it)]\nx\nx\nx\n",
			truncated: true, spilled: strings.Repeat("x\n", 1000),
		},
		{
			name: "multi-byte character cut", writes: []string{"ééééé"}, maxBytes: 5, maxLines: 10,
			want:      "[... 6 B (1 line) of output dropped; showing the last 1 line; full output: FILE (use read or grep on it)]\n…éé",
			truncated: true, spilled: "ééééé",
		},
		{
			name: "spill file cannot be created", writes: []string{"1\n2\n3\n"}, maxBytes: 100, maxLines: 1, failOpen: true,
			want:      "[... 4 B (2 lines) of output dropped; showing the last 1 line; the full output could not be saved: disk full]\n3\n",
			truncated: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			c := &tailCapture{maxBytes: tt.maxBytes, maxLines: tt.maxLines, open: func() (*os.File, error) {
				if tt.failOpen {
					return nil, errors.New("disk full")
				}
				return os.Create(filepath.Join(dir, "out.log"))
			}}
			for _, w := range tt.writes {
				if _, err := c.Write([]byte(w)); err != nil {
					t.Fatal(err)
				}
			}
			c.close()
			got, truncated := c.render()
			want := strings.ReplaceAll(tt.want, "FILE", c.path())
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
			if truncated != tt.truncated {
				t.Errorf("truncated = %v, want %v", truncated, tt.truncated)
			}
			if tt.spilled != "" {
				if got := readFile(t, c.path()); got != tt.spilled {
					t.Errorf("spill file holds %q, want %q", got, tt.spilled)
				}
			} else if c.path() != "" && !tt.failOpen {
				t.Errorf("spilled to %s though the output fits", c.path())
			}
		})
	}
}
