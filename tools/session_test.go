package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigil-dev/vigil/llm"
)

func TestNewSessionErrors(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	writeFiles(t, dir, map[string]string{"f": "x", "sub/": ""})
	other := t.TempDir()
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{name: "nothing", opts: Options{}, want: "tools: new session: Options need Roots or Cwd"},
		{name: "missing root", opts: Options{Roots: []string{filepath.Join(dir, "nope")}}, want: "tools: new session: root " + filepath.Join(dir, "nope") + ": "},
		{name: "root is a file", opts: Options{Roots: []string{file}}, want: "not a directory"},
		{name: "cwd outside roots", opts: Options{Roots: []string{dir}, Cwd: other}, want: "is outside the roots"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewSession(tt.opts)
			wantErr(t, err, tt.want)
		})
	}
}

func TestNewSessionDefaults(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"sub/": ""})
	s, err := NewSession(Options{Cwd: filepath.Join(dir, "sub")})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{filepath.Join(dir, "sub")}, s.Roots()); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	s, err = NewSession(Options{Roots: []string{dir}, Cwd: filepath.Join(dir, "sub")})
	if err != nil {
		t.Fatal(err)
	}
	if s.Cwd() != filepath.Join(dir, "sub") {
		t.Errorf("cwd = %q", s.Cwd())
	}
	wantText(t, mustRun(t, s, "write", map[string]any{"path": "rel.txt", "content": "x"}), "Wrote 1 byte to rel.txt")
	if _, err := os.Stat(filepath.Join(dir, "sub", "rel.txt")); err != nil {
		t.Errorf("relative path did not resolve against cwd: %v", err)
	}
}

func TestToolSets(t *testing.T) {
	s, _ := newSession(t, Options{})
	names := func(set []Tool) []string {
		var n []string
		for _, d := range Definitions(set) {
			n = append(n, d.Name)
		}
		return n
	}
	if diff := cmp.Diff([]string{"read", "write", "edit", "bash", "grep", "find"}, names(s.Tools())); diff != "" {
		t.Errorf("Tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read", "search", "find"}, names(s.ReadOnlyTools())); diff != "" {
		t.Errorf("ReadOnlyTools (-want +got):\n%s", diff)
	}
	ro, err := NewReadOnly(Options{Roots: s.Roots()})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"read", "search", "find"}, names(ro)); diff != "" {
		t.Errorf("NewReadOnly (-want +got):\n%s", diff)
	}
}

// TestDefinitions checks every definition: a description without
// unfilled placeholders and an object schema whose required fields exist.
func TestDefinitions(t *testing.T) {
	s, _ := newSession(t, Options{})
	for _, def := range Definitions(append(s.Tools(), s.ReadOnlyTools()...)) {
		t.Run(def.Name, func(t *testing.T) {
			if def.Description == "" {
				t.Error("no description")
			}
			for _, ph := range []string{"{max_lines}", "{max_bytes}", "{bash_timeout}"} {
				if strings.Contains(def.Description, ph) || strings.Contains(string(def.Schema), ph) {
					t.Errorf("placeholder %s left unfilled", ph)
				}
			}
			var sch struct {
				Type       string                     `json:"type"`
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			if err := json.Unmarshal(def.Schema, &sch); err != nil {
				t.Fatalf("schema: %v", err)
			}
			if sch.Type != "object" {
				t.Errorf("schema type %q", sch.Type)
			}
			for _, r := range sch.Required {
				if _, ok := sch.Properties[r]; !ok {
					t.Errorf("required %q is not a property", r)
				}
			}
		})
	}
}

func TestInvoke(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{"a.txt": "hi\n"})
	tests := []struct {
		name string
		call Call
		want Result
	}{
		{
			name: "success",
			call: Call{ID: "1", Name: "read", Arguments: json.RawMessage(`{"path":"a.txt"}`)},
			want: Result{Content: []llm.Block{llm.Text("1\thi\n")}, Details: Details{Path: filepath.Join(root, "a.txt")}},
		},
		{
			name: "error becomes an error result",
			call: Call{ID: "2", Name: "read", Arguments: json.RawMessage(`{}`)},
			want: Result{IsError: true, Content: []llm.Block{llm.Text(`read: missing required argument "path" (string)`)}},
		},
		{
			name: "unknown tool",
			call: Call{ID: "3", Name: "rm", Arguments: json.RawMessage(`{}`)},
			want: Result{IsError: true, Content: []llm.Block{llm.Text(`unknown tool "rm"; the tools are: read, search, find`)}},
		},
		{
			name: "bash is not in the read-only set",
			call: Call{ID: "4", Name: "bash", Arguments: json.RawMessage(`{"command":"echo hi"}`)},
			want: Result{IsError: true, Content: []llm.Block{llm.Text(`unknown tool "bash"; the tools are: read, search, find`)}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Invoke(context.Background(), s.ReadOnlyTools(), tt.call)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("result (-want +got):\n%s", diff)
			}
		})
	}
}

func TestResultBlock(t *testing.T) {
	call := CallFrom(llm.ToolCall("id9", "read", json.RawMessage(`{"path":"x"}`)))
	if diff := cmp.Diff(Call{ID: "id9", Name: "read", Arguments: json.RawMessage(`{"path":"x"}`)}, call); diff != "" {
		t.Errorf("CallFrom (-want +got):\n%s", diff)
	}
	res := Result{IsError: true, Content: []llm.Block{llm.Text("boom")}}
	want := llm.ToolResult("id9", true, llm.Text("boom"))
	if diff := cmp.Diff(want, res.Block(call.ID)); diff != "" {
		t.Errorf("Block (-want +got):\n%s", diff)
	}
}

// TestWarnings walks one session through the read-before-change rules.
func TestWarnings(t *testing.T) {
	s, root := newSession(t, Options{MaxLines: 3})
	writeFiles(t, root, map[string]string{"f.txt": "a\nb\nc\nd\ne\nf\n", "g.txt": "one\n"})
	f := filepath.Join(root, "f.txt")
	steps := []struct {
		name string
		tool string
		args map[string]any
		// setup runs before the call.
		setup func()
		want  []string
	}{
		{name: "edit before any read", tool: "edit", args: map[string]any{"path": "f.txt", "old_text": "a\n", "new_text": "A\n"},
			want: []string{"f.txt was not read in this session before this change; read files before changing them"}},
		{name: "edit after the session's own edit", tool: "edit", args: map[string]any{"path": "f.txt", "old_text": "A\n", "new_text": "a\n"}},
		{name: "read the first lines", tool: "read", args: map[string]any{"path": "f.txt"}},
		{name: "edit inside the seen lines", tool: "edit", args: map[string]any{"path": "f.txt", "old_text": "b\n", "new_text": "B\n"}},
		{name: "edit outside the seen lines", tool: "edit", args: map[string]any{"path": "f.txt", "old_text": "e\n", "new_text": "E\n"},
			want: []string{"the replaced text (lines 5-5 of f.txt) lies outside the lines this session has read; read them to check the edit"}},
		{name: "changed on disk", tool: "edit", args: map[string]any{"path": "f.txt", "old_text": "c\n", "new_text": "C\n"},
			setup: func() {
				if err := os.WriteFile(f, []byte("a\nB\nc\nd\nE\nf\nexternal\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"f.txt changed on disk since this session last read or wrote it; the change was made to the new content, read it again to check"}},
		{name: "write over an unread file", tool: "write", args: map[string]any{"path": "g.txt", "content": "two\n"},
			want: []string{"g.txt was not read in this session before this change; read files before changing them"}},
		{name: "write again after own write", tool: "write", args: map[string]any{"path": "g.txt", "content": "three\n"}},
		{name: "write a new file", tool: "write", args: map[string]any{"path": "new.txt", "content": "x\n"}},
	}
	for _, st := range steps {
		if st.setup != nil {
			st.setup()
		}
		res := mustRun(t, s, st.tool, st.args)
		if diff := cmp.Diff(st.want, res.Details.Warnings); diff != "" {
			t.Errorf("%s: warnings (-want +got):\n%s", st.name, diff)
		}
		for _, w := range st.want {
			wantText(t, res, "\nWarning: "+w)
		}
	}
}

// TestSessionsShareNothing reads a file in one session and checks that a
// second session over the same folder still warns.
func TestSessionsShareNothing(t *testing.T) {
	a, root := newSession(t, Options{})
	b, err := NewSession(Options{Roots: []string{root}})
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, root, map[string]string{"f.txt": "x\ny\n"})
	mustRun(t, a, "read", map[string]any{"path": "f.txt"})

	resB := mustRun(t, b, "edit", map[string]any{"path": "f.txt", "old_text": "x", "new_text": "X"})
	if len(resB.Details.Warnings) != 1 || !strings.Contains(resB.Details.Warnings[0], "was not read in this session") {
		t.Errorf("session b: warnings %q, want a not-read warning", resB.Details.Warnings)
	}
	// Session a read the old content; b changed it behind a's back.
	resA := mustRun(t, a, "edit", map[string]any{"path": "f.txt", "old_text": "y", "new_text": "Y"})
	if len(resA.Details.Warnings) != 1 || !strings.Contains(resA.Details.Warnings[0], "changed on disk") {
		t.Errorf("session a: warnings %q, want a changed-on-disk warning", resA.Details.Warnings)
	}
}

func TestAddRange(t *testing.T) {
	tests := []struct {
		name string
		have []lineRange
		add  lineRange
		want []lineRange
	}{
		{"into empty", nil, lineRange{3, 5}, []lineRange{{3, 5}}},
		{"before", []lineRange{{10, 12}}, lineRange{1, 2}, []lineRange{{1, 2}, {10, 12}}},
		{"after", []lineRange{{1, 2}}, lineRange{10, 12}, []lineRange{{1, 2}, {10, 12}}},
		{"adjacent merges", []lineRange{{1, 2}}, lineRange{3, 4}, []lineRange{{1, 4}}},
		{"bridges two", []lineRange{{1, 2}, {6, 8}}, lineRange{3, 5}, []lineRange{{1, 8}}},
		{"inside", []lineRange{{1, 10}}, lineRange{3, 4}, []lineRange{{1, 10}}},
		{"empty range ignored", []lineRange{{1, 2}}, lineRange{5, 4}, []lineRange{{1, 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := addRange(tt.have, tt.add)
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(lineRange{})); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// TestConcurrentCalls runs tools of one session from several goroutines, for
// the race detector.
func TestConcurrentCalls(t *testing.T) {
	s, root := newSession(t, Options{})
	writeFiles(t, root, map[string]string{"shared.txt": "x\n"})
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for i := range 8 {
		wg.Go(func() {
			name := fmt.Sprintf("f%d.txt", i)
			for _, c := range []Call{
				{Name: "write", Arguments: json.RawMessage(fmt.Sprintf(`{"path":%q,"content":"a\nb\n"}`, name))},
				{Name: "read", Arguments: json.RawMessage(fmt.Sprintf(`{"path":%q}`, name))},
				{Name: "edit", Arguments: json.RawMessage(fmt.Sprintf(`{"path":%q,"old_text":"a","new_text":"c"}`, name))},
				{Name: "read", Arguments: json.RawMessage(`{"path":"shared.txt"}`)},
				{Name: "grep", Arguments: json.RawMessage(`{"pattern":"x"}`)},
			} {
				if res := Invoke(context.Background(), s.Tools(), c); res.IsError {
					errs <- fmt.Errorf("%s: %s", c.Name, res.Text())
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
