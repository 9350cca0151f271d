package tools

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const goSource = `package main

import "fmt"

func main() {
	fmt.Println("hello")
	fmt.Println("hello")
}

func helper() {
	return
}
`

func TestEdit(t *testing.T) {
	tests := []struct {
		name     string
		file     string
		args     map[string]any
		want     string
		wantText string
		wantDiff string
	}{
		{
			name:     "unique match",
			file:     goSource,
			args:     map[string]any{"old_text": "func helper() {\n\treturn\n}", "new_text": "func helper() {\n\tpanic(1)\n}"},
			want:     strings.Replace(goSource, "\treturn\n", "\tpanic(1)\n", 1),
			wantText: "Edited f.go: replaced 1 occurrence at line 10",
			wantDiff: "--- a/f.go\n+++ b/f.go\n@@ -8,5 +8,5 @@\n }\n \n func helper() {\n-\treturn\n+\tpanic(1)\n }\n",
		},
		{
			name:     "replace all",
			file:     goSource,
			args:     map[string]any{"old_text": `"hello"`, "new_text": `"bye"`, "replace_all": true},
			want:     strings.ReplaceAll(goSource, `"hello"`, `"bye"`),
			wantText: "Edited f.go: replaced 2 occurrences, at lines 6, 7",
		},
		{
			name:     "replace all with one match",
			file:     goSource,
			args:     map[string]any{"old_text": "helper", "new_text": "assist", "replace_all": true},
			want:     strings.ReplaceAll(goSource, "helper", "assist"),
			wantText: "Edited f.go: replaced 1 occurrence at line 10",
		},
		{
			name:     "delete text",
			file:     "a\nb\nc\n",
			args:     map[string]any{"old_text": "b\n", "new_text": ""},
			want:     "a\nc\n",
			wantText: "Edited f.go: replaced 1 occurrence at line 2",
		},
		{
			name:     "crlf file, lf old_text",
			file:     "one\r\ntwo\r\nthree\r\n",
			args:     map[string]any{"old_text": "one\ntwo\n", "new_text": "1\n2\n"},
			want:     "1\r\n2\r\nthree\r\n",
			wantText: "Edited f.go: replaced 1 occurrence at line 1",
		},
		{
			name:     "unicode",
			file:     "naïve café\n",
			args:     map[string]any{"old_text": "café", "new_text": "bar"},
			want:     "naïve bar\n",
			wantText: "Edited f.go: replaced 1 occurrence at line 1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, root := newSession(t, Options{})
			writeFiles(t, root, map[string]string{"f.go": tt.file})
			mustRun(t, s, "read", map[string]any{"path": "f.go"})
			args := map[string]any{"path": "f.go"}
			for k, v := range tt.args {
				args[k] = v
			}
			res := mustRun(t, s, "edit", args)
			if diff := cmp.Diff(tt.wantText, res.Text()); diff != "" {
				t.Errorf("text (-want +got):\n%s", diff)
			}
			if got := readFile(t, filepath.Join(root, "f.go")); got != tt.want {
				t.Errorf("file:\n%q\nwant:\n%q", got, tt.want)
			}
			if tt.wantDiff != "" {
				if diff := cmp.Diff(tt.wantDiff, res.Details.Diff); diff != "" {
					t.Errorf("diff (-want +got):\n%s", diff)
				}
			}
			if res.Details.BytesWritten != len(tt.want) {
				t.Errorf("BytesWritten = %d, want %d", res.Details.BytesWritten, len(tt.want))
			}
		})
	}
}

func TestEditErrors(t *testing.T) {
	indented := "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n"
	tests := []struct {
		name string
		file string
		args string
		want []string
	}{
		{name: "missing old_text", args: `{"path":"f.go","new_text":"x"}`, want: []string{`edit: missing required argument "old_text" (string)`}},
		{name: "missing new_text", args: `{"path":"f.go","old_text":"x"}`, want: []string{`edit: missing required argument "new_text" (string)`}},
		{name: "replace_all not a boolean", args: `{"path":"f.go","old_text":"a","new_text":"b","replace_all":"yes"}`,
			want: []string{`edit: argument "replace_all" must be a boolean (true or false), got string "yes"`}},
		{name: "camel case argument", args: `{"path":"f.go","oldText":"a","old_text":"a","new_text":"b"}`,
			want: []string{`edit: unknown argument "oldText" (edit takes: path, old_text, new_text, replace_all)`}},
		{name: "empty old_text", args: `{"path":"f.go","old_text":"","new_text":"b"}`, want: []string{"edit f.go: old_text is empty"}},
		{name: "no change", args: `{"path":"f.go","old_text":"a","new_text":"a"}`, want: []string{"edit f.go: old_text and new_text are the same"}},
		{name: "no such file", args: `{"path":"nope.go","old_text":"a","new_text":"b"}`, want: []string{"edit nope.go: no such file or directory (to create a file, use write)"}},
		{name: "binary file", file: "\x00\x01\x02", args: `{"path":"f.go","old_text":"a","new_text":"b"}`, want: []string{"edit f.go: binary file (it has a NUL byte at offset 0)"}},
		{
			name: "multiple matches list their lines",
			file: goSource,
			args: `{"path":"f.go","old_text":"fmt.Println(\"hello\")","new_text":"x"}`,
			want: []string{"edit f.go: old_text occurs 2 times, at lines 6, 7; include more surrounding lines to make it unique, or set replace_all"},
		},
		{
			name: "no match, whitespace differs",
			file: indented,
			args: `{"path":"f.go","old_text":"if x {\n    return 1\n}","new_text":"y"}`,
			want: []string{"edit f.go: old_text not found; it matches lines 2-4 if whitespace is ignored, so check indentation and spacing; the file has there:\n2\t\tif x {\n3\t\t\treturn 1\n4\t\t}"},
		},
		{
			name: "no match, first line found",
			file: indented,
			args: `{"path":"f.go","old_text":"if x {\n\t\treturn 2\n","new_text":"y"}`,
			want: []string{"edit f.go: old_text not found; its first line matches line 2 (ignoring indentation) but the lines after it differ; the file has there:\n2\t\tif x {\n3\t\t\treturn 1"},
		},
		{
			name: "no match, closest line",
			file: indented,
			args: `{"path":"f.go","old_text":"return 11","new_text":"y"}`,
			want: []string{"edit f.go: old_text not found; the closest line to its first line is line 3:\n3\t\t\treturn 1"},
		},
		{
			name: "no match, line numbers copied from read",
			file: indented,
			args: `{"path":"f.go","old_text":"2\tif x {\n3\t\treturn 1","new_text":"y"}`,
			want: []string{"edit f.go: old_text not found; old_text seems to include the line numbers read shows"},
		},
		{
			name: "no match, nothing close",
			file: indented,
			args: `{"path":"f.go","old_text":"completely different","new_text":"y"}`,
			want: []string{"edit f.go: old_text not found"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, root := newSession(t, Options{})
			file := tt.file
			if file == "" {
				file = "a\n"
			}
			writeFiles(t, root, map[string]string{"f.go": file})
			_, err := run(t, s, "edit", tt.args)
			wantErr(t, err, tt.want...)
			if got := readFile(t, filepath.Join(root, "f.go")); got != file {
				t.Errorf("a failed edit changed the file to %q", got)
			}
		})
	}
}

func TestPlanEditNoHintWhenNothingClose(t *testing.T) {
	_, err := planEdit("alpha\nbeta\n", "zzzzzzzz", "x", false)
	if err == nil || err.Error() != "old_text not found" {
		t.Errorf("got %v, want a bare not-found error", err)
	}
}

// FuzzPlanEdit checks planEdit against strings.Replace: with replace_all it
// must equal ReplaceAll; otherwise it must succeed exactly when old occurs
// once, and then equal Replace.
func FuzzPlanEdit(f *testing.F) {
	f.Add("a\nb\nc\n", "b", "x", false)
	f.Add("aaaa", "aa", "b", true)
	f.Add("x\r\ny\r\n", "x\ny", "z\nw", false)
	f.Add("", "a", "b", true)
	f.Add("héllo\n", "é", "e", false)
	f.Fuzz(func(t *testing.T, content, oldText, newText string, all bool) {
		if oldText == "" {
			return
		}
		plan, err := planEdit(content, oldText, newText, all)
		n := strings.Count(content, oldText)
		crlf := n == 0 && strings.Contains(content, "\r\n") && !strings.Contains(oldText, "\r")
		if crlf {
			return // the CRLF retry has its own test
		}
		switch {
		case n == 0 || (n > 1 && !all):
			if err == nil {
				t.Fatalf("%d matches, all=%v: no error", n, all)
			}
		case err != nil:
			t.Fatalf("%d matches, all=%v: %v", n, all, err)
		case all && plan.content != strings.ReplaceAll(content, oldText, newText):
			t.Fatalf("replace all: got %q", plan.content)
		case !all && plan.content != strings.Replace(content, oldText, newText, 1):
			t.Fatalf("replace one: got %q", plan.content)
		case len(plan.lines) != n:
			t.Fatalf("lines %v for %d matches", plan.lines, n)
		case plan.newLines.from < 1 || plan.newLines.to < plan.newLines.from:
			t.Fatalf("bad new range %+v", plan.newLines)
		}
	})
}
