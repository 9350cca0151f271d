package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Helpers shared by the tests of the JSON Lines readers (vigil, Claude
// Code, Codex, pi/omp), and tests of what they share.

// jlRecordings are the recordings of real agents, by the format each must
// be detected as.
var jlRecordings = []struct {
	path   string
	format Format
}{
	{"vigil/recording.jsonl", FormatVigil},
	{"claude-code/recording.jsonl", FormatClaudeCode},
	{"codex/rollout.jsonl", FormatCodex},
	{"pi/recording.jsonl", FormatPi},
	{"omp/recording.jsonl", FormatPi},
}

// jlResult is everything a reader yielded.
type jlResult struct {
	runs    []RunInfo
	entries [][]session.Entry // by run
	notes   []Note
	err     error
}

// all returns the entries of every run.
func (r jlResult) all() []session.Entry {
	var out []session.Entry
	for _, es := range r.entries {
		out = append(out, es...)
	}
	return out
}

// note returns the note whose What is what.
func (r jlResult) note(what string) (Note, bool) {
	for _, n := range r.notes {
		if n.What == what {
			return n, true
		}
	}
	return Note{}, false
}

// jlTestdata reads a file under testdata.
func jlTestdata(t testing.TB, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// jlRead detects data's format, checks it is want, and reads it all.
func jlRead(t *testing.T, data []byte, name string, want Format) jlResult {
	t.Helper()
	rd, err := NewReader(bytes.NewReader(data), name)
	if err != nil {
		t.Fatalf("NewReader(%s): %v", name, err)
	}
	if rd.Format() != want {
		t.Fatalf("%s: detected as %s, want %s", name, rd.Format(), want)
	}
	return jlDrain(rd)
}

// jlForced reads data with format f, skipping detection, as the fuzz tests
// do.
func jlForced(data []byte, f Format) *Reader {
	for _, ft := range formats {
		if ft.name == f {
			return &Reader{name: "fuzz", br: bufio.NewReaderSize(bytes.NewReader(data), sniffSize), format: ft, notes: map[string]*Note{}}
		}
	}
	panic("no format " + f)
}

// jlDrain reads everything rd yields.
func jlDrain(rd *Reader) jlResult {
	var res jlResult
	for it, err := range rd.Items() {
		if err != nil {
			res.err = err
			break
		}
		if it.Run != nil {
			res.runs = append(res.runs, *it.Run)
			res.entries = append(res.entries, nil)
			continue
		}
		if len(res.runs) == 0 {
			res.err = errors.New("entry before any run")
			break
		}
		res.entries[len(res.entries)-1] = append(res.entries[len(res.entries)-1], it.Entry)
	}
	res.notes = rd.Notes()
	return res
}

// jlShape describes an entry in a few words, so that tests can list what
// a recording must read as:
//
//	user: <text>            a user prompt (its first 30 bytes)
//	assistant: think text call NAME(ID) …   a reply's blocks in order
//	result ID [error]       a tool result, one per block
//	custom TYPE [ctx]       a custom message, ctx when the model saw it
//	compaction              a compaction
//	model PROVIDER/MODEL    a model change
func jlShape(e session.Entry) string {
	switch b := e.Body.(type) {
	case *session.Message:
		var parts []string
		for _, bl := range b.Message.Content {
			switch bl.Type {
			case llm.BlockText:
				if b.Message.Role == llm.RoleUser {
					t := bl.Text
					if len(t) > 30 {
						t = t[:30]
					}
					parts = append(parts, t)
				} else {
					parts = append(parts, "text")
				}
			case llm.BlockThinking, llm.BlockRedactedThinking:
				parts = append(parts, "think")
			case llm.BlockToolCall:
				parts = append(parts, fmt.Sprintf("call %s(%s)", bl.Name, bl.ID))
			case llm.BlockToolResult:
				s := "result " + bl.ID
				if bl.IsError {
					s += " error"
				}
				parts = append(parts, s)
			default:
				parts = append(parts, string(bl.Type))
			}
		}
		if b.Message.Role == llm.RoleAssistant {
			return "assistant: " + strings.Join(parts, " ")
		}
		if len(parts) > 0 && strings.HasPrefix(parts[0], "result ") {
			return strings.Join(parts, ", ")
		}
		return "user: " + strings.Join(parts, " ")
	case *session.Custom:
		s := "custom " + b.CustomType
		if b.InContext {
			s += " ctx"
		}
		return s
	case *session.Compaction:
		return "compaction"
	case *session.BranchSummary:
		return "branch summary"
	case *session.ModelChange:
		return "model " + b.Model.String()
	}
	return fmt.Sprintf("%T", e.Body)
}

// jlCheckTree checks what every JSON Lines reader guarantees of a run:
// ids unique and set, each parent an entry yielded before (or none), a
// time on every entry, and every tool result answering a call made before
// it.
func jlCheckTree(t *testing.T, entries []session.Entry) {
	t.Helper()
	seen := map[string]bool{}
	calls := map[string]bool{}
	for i, e := range entries {
		if e.ID == "" || seen[e.ID] {
			t.Errorf("entry %d: id %q empty or repeated", i, e.ID)
		}
		if e.ParentID != "" && !seen[e.ParentID] {
			t.Errorf("entry %d (%s): parent %q is not an earlier entry", i, jlShape(e), e.ParentID)
		}
		seen[e.ID] = true
		if e.Time.IsZero() {
			t.Errorf("entry %d (%s): no time", i, jlShape(e))
		}
		m, ok := e.Body.(*session.Message)
		if !ok {
			continue
		}
		for _, b := range m.Message.Content {
			switch b.Type {
			case llm.BlockToolCall:
				calls[b.ID] = true
				if len(b.Arguments) == 0 || b.Arguments[0] != '{' {
					t.Errorf("entry %d: call %s arguments %s, want an object", i, b.ID, b.Arguments)
				}
			case llm.BlockToolResult:
				if !calls[b.ID] {
					t.Errorf("entry %d: result for %s, which no earlier reply called", i, b.ID)
				}
			}
		}
	}
}

// jlSteps groups entries into steps.
func jlSteps(entries []session.Entry) []Step {
	var st Stepper
	var steps []Step
	for _, e := range entries {
		steps = append(steps, st.Add(e)...)
	}
	if s, ok := st.Flush(); ok {
		steps = append(steps, s)
	}
	return steps
}

// jlLines splits a recording into its lines, newlines kept.
func jlLines(data []byte) [][]byte {
	return bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

func TestJSONLDetection(t *testing.T) {
	for _, rec := range jlRecordings {
		data := jlTestdata(t, rec.path)
		head := data[:min(len(data), sniffSize)]
		for _, f := range formats {
			// The file name is left out: detection must work from content.
			if got := f.sniff(head, "x"); got != (f.name == rec.format) {
				t.Errorf("%s: sniff%s = %v", rec.path, f.name, got)
			}
		}
		rd, err := NewReader(bytes.NewReader(data), "x")
		if err != nil || rd.Format() != rec.format {
			t.Errorf("%s: NewReader: format %v, err %v; want %s", rec.path, rd.Format(), err, rec.format)
		}
	}
}

// TestJSONLSniffersLeaveOthersAlone runs the four JSON Lines sniffers over
// every other file under testdata, and over look-alikes.
func TestJSONLSniffersLeaveOthersAlone(t *testing.T) {
	mine := map[string]bool{}
	for _, rec := range jlRecordings {
		mine[filepath.FromSlash(rec.path)] = true
	}
	var files []string
	err := filepath.WalkDir("testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel("testdata", path)
		if !mine[rel] {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	inputs := map[string][]byte{
		"empty":             nil,
		"json array":        []byte(`[{"type":"session"}]`),
		"plain object":      []byte(`{"type":"message","role":"user","content":"hi"}` + "\n"),
		"markdown":          []byte("# aider chat started at 2026-11-05 14:03:22\n\n> /add x.go\n"),
		"vigil entry first": []byte(`{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-05T14:03:25.120Z","message":{"role":"user","content":[]}}` + "\n"),
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = data[:min(len(data), sniffSize)]
	}
	sniffers := map[Format]func([]byte, string) bool{
		FormatVigil: sniffVigil, FormatClaudeCode: sniffClaudeCode, FormatCodex: sniffCodex, FormatPi: sniffPi,
	}
	for name, head := range inputs {
		for f, sniff := range sniffers {
			if sniff(head, filepath.Base(name)) {
				t.Errorf("%s: claimed by the %s sniffer", name, f)
			}
		}
	}
}

// TestJSONLTruncatedLastLine cuts each recording inside its last line, as
// a writer still appending leaves it: the reader must yield what the lines
// before it hold and note the cut line.
func TestJSONLTruncatedLastLine(t *testing.T) {
	for _, rec := range jlRecordings {
		data := jlTestdata(t, rec.path)
		lines := jlLines(data)
		last := lines[len(lines)-1]
		before := data[:len(data)-len(last)]
		want := jlRead(t, before, rec.path, rec.format)
		for _, cut := range []int{1, len(last) / 2, len(last) - 2} {
			got := jlRead(t, append(bytes.Clone(before), last[:cut]...), rec.path, rec.format)
			if got.err != nil {
				t.Errorf("%s cut at %d: %v", rec.path, cut, got.err)
				continue
			}
			if a, b := jlShapes(got.all()), jlShapes(want.all()); a != b {
				t.Errorf("%s cut at %d: entries\n%s\nwant\n%s", rec.path, cut, a, b)
			}
			if n, ok := got.note("truncated last line"); !ok || n.FirstLine != len(lines) {
				t.Errorf("%s cut at %d: notes %+v, want the truncated line %d", rec.path, cut, got.notes, len(lines))
			}
		}
	}
}

// TestJSONLLastLineWithoutNewline keeps a whole last line that only lacks
// its newline.
func TestJSONLLastLineWithoutNewline(t *testing.T) {
	for _, rec := range jlRecordings {
		data := jlTestdata(t, rec.path)
		want := jlRead(t, data, rec.path, rec.format)
		got := jlRead(t, bytes.TrimSuffix(data, []byte("\n")), rec.path, rec.format)
		if a, b := jlShapes(got.all()), jlShapes(want.all()); a != b || got.err != nil || len(got.notes) != len(want.notes) {
			t.Errorf("%s: got %v, notes %v\n%s\nwant\n%s", rec.path, got.err, got.notes, a, b)
		}
	}
}

// TestJSONLUnknownAndMalformedLines puts a line of a type no version
// writes, and a line that is not JSON, in the middle of each recording:
// both are noted and skipped, and nothing else changes. Where the format
// links lines, the unknown line sits between a line and its parent, so
// that dropping it must repair the link.
func TestJSONLUnknownAndMalformedLines(t *testing.T) {
	unknown := map[Format]string{
		FormatVigil:      `{"type":"hologram","id":"zz1","parentId":%q,"timestamp":"2026-11-30T01:42:28.600Z"}`,
		FormatClaudeCode: `{"type":"hologram","uuid":"zz1","parentUuid":%q,"sessionId":"s","timestamp":"2026-11-30T01:33:53.000Z"}`,
		FormatCodex:      `{"timestamp":"2026-11-30T01:34:31.000Z","type":"hologram","payload":{"x":%q}}`,
		FormatPi:         `{"type":"hologram","id":"zz1","parentId":%q,"timestamp":"2026-11-30T01:37:31.600Z"}`,
	}
	parentKey := regexp.MustCompile(`"(parentId|parentUuid)":"([^"]+)"`)
	for _, rec := range jlRecordings {
		data := jlTestdata(t, rec.path)
		want := jlRead(t, data, rec.path, rec.format)
		lines := jlLines(data)
		at := len(lines) / 2
		for rec.format != FormatCodex && !parentKey.Match(lines[at]) {
			at++
		}
		parent := ""
		if m := parentKey.FindSubmatch(lines[at]); m != nil {
			parent = string(m[2])
		}
		var buf bytes.Buffer
		for i, l := range lines {
			if i == at {
				fmt.Fprintf(&buf, unknown[rec.format]+"\n", parent)
				buf.WriteString("{\"type\": \"user\", oops\n")
				l = parentKey.ReplaceAll(l, []byte(`"$1":"zz1"`))
			}
			buf.Write(l)
		}
		got := jlRead(t, buf.Bytes(), rec.path, rec.format)
		if got.err != nil {
			t.Fatalf("%s: %v", rec.path, got.err)
		}
		render := jlLinks
		if rec.format == FormatCodex {
			render = jlShapes // ids are line numbers, moved by the lines put in
		}
		if a, b := render(got.all()), render(want.all()); a != b {
			t.Errorf("%s: entries\n%s\nwant\n%s", rec.path, a, b)
		}
		if n, ok := got.note(`unknown line type "hologram"`); !ok || n.Count != 1 || n.FirstLine != at+1 {
			t.Errorf("%s: notes %+v, want the unknown line %d", rec.path, got.notes, at+1)
		}
		if n, ok := got.note("malformed line"); !ok || n.FirstLine != at+2 {
			t.Errorf("%s: notes %+v, want the malformed line %d", rec.path, got.notes, at+2)
		}
		jlCheckTree(t, got.all())
	}
}

// jlLinks renders entries one a line with their id and parent.
func jlLinks(entries []session.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		fmt.Fprintf(&b, "%s <- %s: %s\n", e.ID, e.ParentID, jlShape(e))
	}
	return b.String()
}

// TestJSONLStopEarly checks that a reader stops at once when the consumer
// does, wherever that is.
func TestJSONLStopEarly(t *testing.T) {
	for _, rec := range jlRecordings {
		data := jlTestdata(t, rec.path)
		total := len(jlRead(t, data, rec.path, rec.format).all()) + 1
		for stop := 1; stop <= total; stop++ {
			rd, err := NewReader(bytes.NewReader(data), rec.path)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, err := range rd.Items() {
				if err != nil {
					t.Fatalf("%s: %v", rec.path, err)
				}
				n++
				if n == stop {
					break
				}
			}
			if n != stop {
				t.Errorf("%s: stopped after %d items, want %d", rec.path, n, stop)
			}
		}
	}
}

// jlFailAfter reads from data and then fails.
type jlFailAfter struct {
	data []byte
}

var errJLDisk = errors.New("disk on fire")

func (f *jlFailAfter) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, errJLDisk
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestJSONLReadError checks that an I/O error ends the stream with an
// error naming the file and the line.
func TestJSONLReadError(t *testing.T) {
	for _, rec := range jlRecordings {
		// Blank lines (which readers skip) push the last line past the
		// head that detection reads; the read fails inside that line.
		lines := jlLines(jlTestdata(t, rec.path))
		last := lines[len(lines)-1]
		var data []byte
		for _, l := range lines[:len(lines)-1] {
			data = append(data, l...)
		}
		data = append(data, bytes.Repeat([]byte("\n"), sniffSize)...)
		data = append(data, last[:len(last)/2]...)
		rd, err := NewReader(&jlFailAfter{data: data}, "f.jsonl")
		if err != nil {
			t.Fatalf("%s: %v", rec.path, err)
		}
		res := jlDrain(rd)
		want := fmt.Sprintf("line %d", len(lines)+sniffSize)
		if !errors.Is(res.err, errJLDisk) || !strings.Contains(res.err.Error(), "f.jsonl") || !strings.Contains(res.err.Error(), want) {
			t.Errorf("%s: err = %v, want the disk error naming f.jsonl and %s", rec.path, res.err, want)
		}
	}
}

// TestJSONLLongLine reads a line far longer than any buffer: a 3 MB tool
// output in each format.
func TestJSONLLongLine(t *testing.T) {
	big := strings.Repeat("x", 3<<20)
	files := map[Format]string{
		FormatVigil: `{"type":"session","version":1,"id":"s1","cwd":"/w","created":"2026-11-30T01:00:00.000Z"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"assistant","content":[{"type":"tool_call","id":"c1","name":"bash","arguments":{"command":"yes"}}]}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-11-30T01:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","id":"c1","content":[{"type":"text","text":"BIG"}]}]}}
`,
		FormatClaudeCode: `{"type":"assistant","uuid":"a","parentUuid":null,"sessionId":"s1","timestamp":"2026-11-30T01:00:01.000Z","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"tool_use","id":"c1","name":"Bash","input":{"command":"yes"}}]}}
{"type":"user","uuid":"b","parentUuid":"a","sessionId":"s1","timestamp":"2026-11-30T01:00:02.000Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"BIG"}]}}
`,
		FormatCodex: `{"timestamp":"2026-11-30T01:00:00.000Z","type":"session_meta","payload":{"id":"s1","cwd":"/w"}}
{"timestamp":"2026-11-30T01:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"yes\"}","call_id":"c1"}}
{"timestamp":"2026-11-30T01:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"BIG"}}
`,
		FormatPi: `{"type":"session","version":3,"id":"s1","timestamp":"2026-11-30T01:00:00.000Z","cwd":"/w"}
{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-30T01:00:01.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"yes"}}]}}
{"type":"message","id":"b","parentId":"a","timestamp":"2026-11-30T01:00:02.000Z","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"BIG"}],"isError":false}}
`,
	}
	for f, file := range files {
		res := jlRead(t, []byte(strings.Replace(file, "BIG", big, 1)), "big.jsonl", f)
		all := res.all()
		if res.err != nil || len(all) != 2 || len(res.notes) != 0 {
			t.Fatalf("%s: %d entries, notes %v, err %v", f, len(all), res.notes, res.err)
		}
		got, ok := jlSteps(all)[0].Result("c1")
		if !ok || len(got.Content) != 1 || len(got.Content[0].Text) != len(big) {
			t.Errorf("%s: the long result was not read whole", f)
		}
	}
}

func TestLineage(t *testing.T) {
	var l lineage
	l.drop("b", "a") // a ← b(dropped) ← c(dropped) ← d
	l.drop("c", "b")
	if got := l.parent("c"); got != "a" {
		t.Errorf("parent(c) = %q, want a", got)
	}
	if got := l.parent("a"); got != "a" {
		t.Errorf("parent(a) = %q, want a", got)
	}
	l.drop("", "a") // lines without ids are not remembered
	if len(l.to) != 2 {
		t.Errorf("remembered %d ids, want 2", len(l.to))
	}
	// Memory stays flat: only the last lineageSize drops are kept.
	for i := range 3 * lineageSize {
		l.drop(fmt.Sprint("x", i), "a")
	}
	if len(l.to) != lineageSize {
		t.Errorf("remembered %d ids, want %d", len(l.to), lineageSize)
	}
	if got := l.parent(fmt.Sprint("x", 3*lineageSize-1)); got != "a" {
		t.Errorf("the newest drop was forgotten")
	}
}

func TestHeadLines(t *testing.T) {
	for _, tc := range []struct {
		head string
		max  int
		want []string
	}{
		{"a\nb\nc\n", 2, []string{"a", "b"}},
		{"a\n\n  \nb", 5, []string{"a", "b"}}, // short: the head is the whole file
		{"", 3, nil},
	} {
		var got []string
		for _, l := range headLines([]byte(tc.head), tc.max) {
			got = append(got, string(l))
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("headLines(%q, %d) = %q, want %q", tc.head, tc.max, got, tc.want)
		}
	}
	// A head as long as sniffSize was cut: its unfinished last line is
	// not a line.
	long := append([]byte("first\n"), bytes.Repeat([]byte("y"), sniffSize)...)[:sniffSize]
	if got := headLines(long, 5); len(got) != 1 {
		t.Errorf("cut head: %d lines, want 1", len(got))
	}
}

func TestArguments(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"a":1}`, `{"a":1}`},
		{``, `{}`},
		{`null`, `{}`},
		{`[1,2]`, `{"input":[1,2]}`},
		{`"text"`, `{"input":"text"}`},
		{`{oops`, `{"input":"{oops"}`},
	} {
		if got := string(objectArguments([]byte(tc.in))); got != tc.want {
			t.Errorf("objectArguments(%s) = %s, want %s", tc.in, got, tc.want)
		}
	}
	if got := string(stringArguments(`{"cmd":"ls"}`)); got != `{"cmd":"ls"}` {
		t.Errorf("stringArguments(object) = %s", got)
	}
	if got := string(stringArguments(`*** Begin Patch`)); got != `{"input":"*** Begin Patch"}` {
		t.Errorf("stringArguments(text) = %s", got)
	}
}

// jlShapes renders entries one shape a line.
func jlShapes(entries []session.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		b.WriteString(jlShape(e))
		b.WriteByte('\n')
	}
	return b.String()
}

// jlFuzz reads data as format f and checks that whatever comes out is
// well-formed: a run before any entry, and every entry with a body.
func jlFuzz(t *testing.T, data []byte, f Format) {
	rd := jlForced(data, f)
	started := false
	for it, err := range rd.Items() {
		if err != nil {
			return
		}
		if it.Run != nil {
			started = true
			continue
		}
		if !started {
			t.Fatal("entry before any run")
		}
		if it.Entry.Body == nil {
			t.Fatal("entry without a body")
		}
	}
}
