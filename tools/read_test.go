package tools

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigil-dev/vigil/llm"
)

// numbered returns n lines "line 1" … "line n", each ending in "\n".
func numbered(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func TestRead(t *testing.T) {
	s, root := newSession(t, Options{MaxLines: 5, MaxBytes: 5000})
	writeFiles(t, root, map[string]string{
		"three.txt":    "alpha\nbeta\ngamma\n",
		"no-eol.txt":   "one\ntwo",
		"crlf.txt":     "a\r\nb\r\n",
		"empty.txt":    "",
		"long.txt":     numbered(12),
		"wide.txt":     "short\n" + strings.Repeat("é", 1500) + "\nend\n",
		"latin1.txt":   "caf\xe9 ok\nplain text line that is long enough to outweigh one bad byte\n",
		"bytes.txt":    strings.Repeat("x", 1500) + "\n" + strings.Repeat("y", 1500) + "\n" + strings.Repeat("z", 1500) + "\n" + strings.Repeat("w", 1500) + "\n",
		"sub/deep.txt": "deep\n",
		"huge.txt":     strings.Repeat("a", 200_000) + "\nz\n",
	})
	tests := []struct {
		name string
		args any
		want string
	}{
		{name: "whole file", args: map[string]any{"path": "three.txt"}, want: "1\talpha\n2\tbeta\n3\tgamma\n"},
		{name: "no final newline", args: map[string]any{"path": "no-eol.txt"}, want: "1\tone\n2\ttwo\n"},
		{name: "crlf shown without cr", args: map[string]any{"path": "crlf.txt"}, want: "1\ta\n2\tb\n"},
		{name: "empty file", args: map[string]any{"path": "empty.txt"}, want: "(empty file)"},
		{name: "absolute path", args: map[string]any{"path": filepath.Join(root, "sub", "deep.txt")}, want: "1\tdeep\n"},
		{name: "offset", args: map[string]any{"path": "three.txt", "offset": 2}, want: "2\tbeta\n3\tgamma\n"},
		{name: "offset and limit", args: map[string]any{"path": "long.txt", "offset": 9, "limit": 2},
			want: " 9\tline 9\n10\tline 10\n[... 2 more lines; use offset=11 to continue]\n"},
		{name: "line cap with continue marker", args: map[string]any{"path": "long.txt"},
			want: "1\tline 1\n2\tline 2\n3\tline 3\n4\tline 4\n5\tline 5\n[... 7 more lines; use offset=6 to continue]\n"},
		{name: "continue from the marker", args: map[string]any{"path": "long.txt", "offset": 11},
			want: "11\tline 11\n12\tline 12\n"},
		{name: "byte cap", args: map[string]any{"path": "bytes.txt"},
			want: "1\t" + strings.Repeat("x", 1500) + "\n2\t" + strings.Repeat("y", 1500) + "\n3\t" + strings.Repeat("z", 1500) + "\n[... 1 more line; use offset=4 to continue]\n"},
		{name: "long line cut at a character boundary", args: map[string]any{"path": "wide.txt"},
			want: "1\tshort\n2\t" + strings.Repeat("é", 1000) + "… [line truncated: 1000 more bytes]\n3\tend\n" +
				"[lines longer than 2000 bytes were cut; use bash (for example cut -c or sed) to see them whole]\n"},
		{name: "line longer than the read buffer", args: map[string]any{"path": "huge.txt"},
			want: "1\t" + strings.Repeat("a", 2000) + "… [line truncated: 198000 more bytes]\n2\tz\n" +
				"[lines longer than 2000 bytes were cut; use bash (for example cut -c or sed) to see them whole]\n"},
		{name: "stray invalid byte shown as replacement", args: map[string]any{"path": "latin1.txt", "limit": 1}, want: "1\tcaf\uFFFD ok\n[... 1 more line; use offset=2 to continue]\n"},
		{name: "null optional arguments", args: `{"path":"three.txt","offset":null,"limit":null}`, want: "1\talpha\n2\tbeta\n3\tgamma\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRun(t, s, "read", tt.args)
			if diff := cmp.Diff(tt.want, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if res.IsError {
				t.Error("IsError set")
			}
		})
	}
}

func TestReadTruncatedDetail(t *testing.T) {
	s, root := newSession(t, Options{MaxLines: 2})
	writeFiles(t, root, map[string]string{"f.txt": numbered(3), "g.txt": numbered(2)})
	if res := mustRun(t, s, "read", map[string]any{"path": "f.txt"}); !res.Details.Truncated {
		t.Error("Truncated not set for a capped read")
	}
	if res := mustRun(t, s, "read", map[string]any{"path": "g.txt"}); res.Details.Truncated {
		t.Error("Truncated set for a whole read")
	}
}

func TestReadDefaultLimits(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{"big.txt": numbered(3234)})
	res := mustRun(t, s, "read", map[string]any{"path": "big.txt"})
	text := res.Text()
	if !strings.HasSuffix(text, "2000\tline 2000\n[... 1234 more lines; use offset=2001 to continue]\n") {
		t.Errorf("tail of output: %q", text[max(len(text)-120, 0):])
	}
}

func TestReadErrors(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{
		"three.txt": "a\nb\nc\n",
		"empty.txt": "",
		"nul.bin":   "text\x00more",
		"utf16.txt": "\xff\xfeh\x00i\x00",
		"garbage":   strings.Repeat("\xff\xfe\xfd", 100),
		"dir/":      "",
	})
	tests := []struct {
		name string
		args string
		want []string
	}{
		{name: "missing path", args: `{}`, want: []string{`read: missing required argument "path" (string)`}},
		{name: "path not a string", args: `{"path":7}`, want: []string{`read: argument "path" must be a string, got number 7`}},
		{name: "offset not an integer", args: `{"path":"three.txt","offset":"2"}`, want: []string{`read: argument "offset" must be an integer, got string "2"`}},
		{name: "offset zero", args: `{"path":"three.txt","offset":0}`, want: []string{`read: argument "offset" must be at least 1, got 0`}},
		{name: "unknown argument", args: `{"path":"three.txt","lines":5}`, want: []string{`read: unknown argument "lines" (read takes: path, offset, limit)`}},
		{name: "empty path", args: `{"path":""}`, want: []string{"read : path is empty"}},
		{name: "no such file", args: `{"path":"nope.txt"}`, want: []string{"read nope.txt: no such file or directory"}},
		{name: "directory", args: `{"path":"dir"}`, want: []string{"read dir: is a directory; use find"}},
		{name: "offset past the end", args: `{"path":"three.txt","offset":9}`, want: []string{"read three.txt: offset 9 is past the end of the file, which has 3 lines"}},
		{name: "offset in an empty file", args: `{"path":"empty.txt","offset":2}`, want: []string{"offset 2 is past the end of the file, which is empty"}},
		{name: "NUL byte", args: `{"path":"nul.bin"}`, want: []string{"read nul.bin: binary file (it has a NUL byte at offset 4)"}},
		{name: "utf-16", args: `{"path":"utf16.txt"}`, want: []string{"read utf16.txt: binary file"}},
		{name: "not utf-8", args: `{"path":"garbage"}`, want: []string{"read garbage: binary file (it is not UTF-8 text (300 invalid bytes in the first 300, the first at offset 0))"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := run(t, s, "read", tt.args)
			wantErr(t, err, tt.want...)
		})
	}
}

func TestReadImage(t *testing.T) {
	s, root := newSession(t, Options{MaxImageBytes: 100})
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	gif := "GIF89a\x01\x00\x01\x00\x00\x00\x00;"
	writeFiles(t, root, map[string]string{
		"pic.png":      png,
		"named.txt":    gif, // the content decides, not the name
		"big.png":      png + strings.Repeat("\x00", 200),
		"fake.png":     "not really an image\n",
		"webp.webp":    "RIFF\x10\x00\x00\x00WEBPVP8 ",
		"photo.jpg":    "\xff\xd8\xff\xe0\x00\x10JFIF\x00",
		"notimage.svg": "<svg></svg>\n",
	})
	tests := []struct {
		path, mediaType, data string
	}{
		{"pic.png", "image/png", png},
		{"named.txt", "image/gif", gif},
		{"webp.webp", "image/webp", "RIFF\x10\x00\x00\x00WEBPVP8 "},
		{"photo.jpg", "image/jpeg", "\xff\xd8\xff\xe0\x00\x10JFIF\x00"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			res := mustRun(t, s, "read", map[string]any{"path": tt.path})
			want := []llm.Block{
				llm.Text(fmt.Sprintf("Image %s (%s, %d B)", tt.path, tt.mediaType, len(tt.data))),
				llm.Image(tt.mediaType, base64.StdEncoding.EncodeToString([]byte(tt.data))),
			}
			if diff := cmp.Diff(want, res.Content); diff != "" {
				t.Errorf("content (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("too large", func(t *testing.T) {
		_, err := run(t, s, "read", map[string]any{"path": "big.png"})
		wantErr(t, err, "read big.png: image of 233 B is larger than the 100 B limit")
	})
	t.Run("image name, text content", func(t *testing.T) {
		wantText(t, mustRun(t, s, "read", map[string]any{"path": "fake.png"}), "1\tnot really an image")
	})
	t.Run("svg is text", func(t *testing.T) {
		wantText(t, mustRun(t, s, "read", map[string]any{"path": "notimage.svg"}), "1\t<svg></svg>")
	})
}

func TestReadFIFORefused(t *testing.T) {
	s, root := newSession(t, Options{})
	if err := mkfifo(filepath.Join(root, "pipe")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := run(t, s, "read", map[string]any{"path": "pipe"})
	wantErr(t, err, "read pipe: not a regular file")
	if _, err := os.Stat(filepath.Join(root, "pipe")); err != nil {
		t.Fatal(err)
	}
}

func TestBinaryReason(t *testing.T) {
	tests := []struct {
		name     string
		head     string
		complete bool
		binary   bool
	}{
		{"ascii", "hello\n", true, false},
		{"utf-8", "héllo wörld ✓\n", true, false},
		{"empty", "", true, false},
		{"nul", "a\x00b", true, true},
		{"rune cut at the sniff edge", "abc\xe2\x9c", false, false},
		{"rune cut at the end of the file", "\xe2\x9c", true, true},
		{"one stray byte among many", "caf\xe9 " + strings.Repeat("x", 50), true, false},
		{"mostly invalid", "\xff\xfe\xfd\xfcab", true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := binaryReason([]byte(tt.head), tt.complete) != ""
			if got != tt.binary {
				t.Errorf("binary = %v, want %v (%q)", got, tt.binary, binaryReason([]byte(tt.head), tt.complete))
			}
		})
	}
}
