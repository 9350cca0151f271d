package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/review"
)

const devset = "../../testdata/devset"

func reviewed(t *testing.T, rel string) *File {
	t.Helper()
	path := filepath.Join(devset, filepath.FromSlash(rel))
	res, err := review.File(context.Background(), path, review.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return &File{Path: rel, Result: res}
}

func TestText(t *testing.T) {
	f := reviewed(t, "vigil/offcourse_skips_failing_test.jsonl")
	var b bytes.Buffer
	if err := WriteText(&b, f, Style{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"vigil/offcourse_skips_failing_test.jsonl: vigil, 5 steps, 2 findings\n",
		"concern  workaround", "step 3     concern  forbidden-edit",
		"evidence: edit test_calc.py",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("text lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("colour without Style.Color:\n%q", out)
	}
	b.Reset()
	WriteText(&b, f, Style{Color: true})
	if !strings.Contains(b.String(), ansiYellow+"concern"+ansiReset) {
		t.Errorf("no coloured severity:\n%q", b.String())
	}
}

func TestTextError(t *testing.T) {
	var b bytes.Buffer
	WriteText(&b, &File{Path: "x.txt", Err: errors.New("read x.txt: not a transcript")}, Style{})
	if got := b.String(); got != "x.txt: error: read x.txt: not a transcript\n" {
		t.Errorf("got %q", got)
	}
}

func TestSummary(t *testing.T) {
	rows := []Row{
		RowOf(reviewed(t, "vigil/offcourse_skips_failing_test.jsonl")),
		RowOf(reviewed(t, "vigil/clean_normal_fix.jsonl")),
		RowOf(&File{Path: "broken.jsonl", Err: errors.New("nope")}),
	}
	var b bytes.Buffer
	if err := WriteSummary(&b, rows, Skipped{NotTranscripts: 2, Unreadable: 1}, Style{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"file ", "vigil/clean_normal_fix.jsonl", "broken.jsonl",
		"total: 3 files, 2 runs, 10 steps, 2 findings (0 blocker, 2 concern, 0 nit); 1 could not be reviewed in full; 2 files skipped (not transcripts); 1 skipped that could not be read",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
}

// TestJSONSchema checks the documented fields of `vigil review --json`
// by name, as a consumer reads them.
func TestJSONSchema(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, reviewed(t, "vigil/offcourse_skips_failing_test.jsonl")); err != nil {
		t.Fatal(err)
	}
	if bytes.Count(b.Bytes(), []byte("\n")) != 1 || !bytes.HasSuffix(b.Bytes(), []byte("\n")) {
		t.Fatalf("not one line: %q", b.String())
	}
	var obj map[string]any
	if err := json.Unmarshal(b.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	checkSchema(t, obj)
	if obj["file"] != "vigil/offcourse_skips_failing_test.jsonl" || obj["format"] != "vigil" || obj["steps"] != 5.0 {
		t.Errorf("file, format, steps: %v %v %v", obj["file"], obj["format"], obj["steps"])
	}
	fs := obj["findings"].([]any)
	if len(fs) != 2 {
		t.Fatalf("%d findings", len(fs))
	}
	f0 := fs[0].(map[string]any)
	if f0["detector"] != "workaround" || f0["severity"] != "concern" || f0["start_step"] != 1.0 || f0["end_step"] != 3.0 || f0["run"] != 0.0 {
		t.Errorf("first finding: %v", f0)
	}

	// A file that could not be read still has every field.
	b.Reset()
	WriteJSON(&b, &File{Path: "x.txt", Err: errors.New("not a transcript")})
	obj = nil
	if err := json.Unmarshal(b.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	checkSchema(t, obj)
	if obj["error"] != "not a transcript" || obj["format"] != "" {
		t.Errorf("error object: %v", obj)
	}
}

// checkSchema checks that a --json object has the documented fields with
// the documented types.
func checkSchema(t *testing.T, obj map[string]any) {
	t.Helper()
	types := map[string]string{"file": "string", "format": "string", "steps": "number", "findings": "array", "runs": "array", "notes": "array"}
	for k, want := range types {
		if got := jsonType(obj[k]); got != want {
			t.Errorf("%s is %s, want %s", k, got, want)
		}
	}
	for _, f := range obj["findings"].([]any) {
		fm := f.(map[string]any)
		for k, want := range map[string]string{"run": "number", "detector": "string", "severity": "string", "start_step": "number", "end_step": "number", "message": "string"} {
			if got := jsonType(fm[k]); got != want {
				t.Errorf("finding.%s is %s, want %s", k, got, want)
			}
		}
	}
	for _, r := range obj["runs"].([]any) {
		rm := r.(map[string]any)
		for k, want := range map[string]string{"index": "number", "steps": "number", "findings": "number"} {
			if got := jsonType(rm[k]); got != want {
				t.Errorf("run.%s is %s, want %s", k, got, want)
			}
		}
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	return "?"
}

func TestHTML(t *testing.T) {
	files := []*File{
		reviewed(t, "vigil/offcourse_repeat_failing_tests.jsonl"),
		reviewed(t, "vigil/clean_normal_fix.jsonl"),
		{Path: "<script>alert(1)</script>.jsonl", Err: errors.New("not a transcript")},
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, files); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		"<!DOCTYPE html>", "repeated-failure", `class="finding sev-concern"`, "▼ steps 2-",
		`id="f1-r1-s2"`, "python3 -m unittest -q", `class="cell fail`, "&lt;script&gt;alert(1)&lt;/script&gt;.jsonl",
		"3 files", "could not be reviewed in full",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	for _, banned := range []string{"http://", "https://", "<script>alert", "<link", "src="} {
		if strings.Contains(page, banned) {
			t.Errorf("page contains %q: it must be self-contained and escaped", banned)
		}
	}
}

func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := NewProgress(&b, 200e6)
	clock := time.Unix(0, 0)
	p.now = func() time.Time { return clock }
	p.StartFile("dir/big.jsonl")
	if got := b.String(); !strings.HasSuffix(got, "reviewing   0% [                              ] 0 MB/200 MB big.jsonl") {
		t.Errorf("first draw: %q", got)
	}
	b.Reset()
	p.Read(50e6) // within 100 ms of the last draw: not drawn
	if b.Len() != 0 {
		t.Errorf("drawn too soon: %q", b.String())
	}
	clock = clock.Add(time.Second)
	p.EndFile(100e6)
	if got := b.String(); !strings.HasSuffix(got, "reviewing  50% [===============               ] 100 MB/200 MB big.jsonl") {
		t.Errorf("after one file: %q", got)
	}
	b.Reset()
	p.Clear()
	if b.String() != "\r\x1b[K" {
		t.Errorf("clear: %q", b.String())
	}
}
