package review

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const devset = "../../testdata/devset"

func TestReviewFindsTheEpisode(t *testing.T) {
	res, err := File(context.Background(), filepath.Join(devset, "vigil", "offcourse_repeat_failing_tests.jsonl"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "vigil" || len(res.Runs) != 1 || res.Err != nil {
		t.Fatalf("format %q, %d runs, err %v", res.Format, len(res.Runs), res.Err)
	}
	run := res.Runs[0]
	if run.Steps != 6 || res.Steps() != 6 {
		t.Errorf("steps %d, want 6", run.Steps)
	}
	if len(run.Findings) == 0 || run.Findings[0].Detector != "repeated-failure" || run.Findings[0].StartStep != 2 {
		t.Fatalf("findings %+v, want repeated-failure from step 2", run.Findings)
	}
	tl := run.Timeline
	if !tl.Complete || len(tl.Detail) != 6 || len(tl.Cells) != 6 || tl.Width != 1 {
		t.Fatalf("timeline: complete %v, %d details, %d cells, width %d", tl.Complete, len(tl.Detail), len(tl.Cells), tl.Width)
	}
	for i, si := range tl.Detail {
		if si.N != i+1 {
			t.Errorf("detail %d is step %d", i, si.N)
		}
	}
	st := tl.Detail[1]
	if len(st.Calls) != 1 || st.Calls[0].Tool != "bash" || st.Calls[0].Command != "python3 -m unittest -q" || !st.Calls[0].Failed || !st.Failed() {
		t.Errorf("step 2: %+v", st)
	}
	if tl.Cells[1].Failed != 1 || tl.Cells[0].Failed != 0 {
		t.Errorf("cells: %+v", tl.Cells)
	}
}

func TestReviewGzipAndNotes(t *testing.T) {
	res, err := File(context.Background(), gzipped(t, filepath.Join("..", "..", "transcript", "testdata", "swe-agent", "calc-text.traj")), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "swe-agent" || res.Steps() != 7 || len(res.Notes) == 0 {
		t.Errorf("format %q, %d steps, notes %v", res.Format, res.Steps(), res.Notes)
	}
}

func TestReviewTruncatedFile(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(devset, "vigil", "offcourse_repeat_failing_tests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Cut the file in the middle of its last line, as a writer that has
	// not finished would leave it.
	data = data[:len(data)-40]
	res, err := Read(context.Background(), bytes.NewReader(data), "cut.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Err != nil {
		t.Fatalf("a cut-off last line is a note, not an error: %v", res.Err)
	}
	if len(res.Notes) != 1 || !strings.Contains(res.Notes[0].What, "truncated") {
		t.Errorf("notes %+v, want one about the truncated line", res.Notes)
	}
	if len(res.Runs) != 1 || res.Runs[0].Steps < 5 || len(res.Runs[0].Findings) == 0 {
		t.Errorf("the steps before the cut are reviewed: %+v", res.Runs)
	}
}

func TestReviewSeveralRuns(t *testing.T) {
	line, err := os.ReadFile("../../transcript/testdata/openhands/calc-resolver.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(context.Background(), bytes.NewReader(bytes.Repeat(line, 3)), "output.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 3 {
		t.Fatalf("%d runs, want 3", len(res.Runs))
	}
	sum := 0
	for i, r := range res.Runs {
		sum += r.Steps
		if r.Info.Index != i || r.Steps == 0 {
			t.Errorf("run %d: index %d, %d steps", i, r.Info.Index, r.Steps)
		}
		if r.Timeline.Detail[0].N != 1 {
			t.Errorf("run %d does not number its steps from 1", i)
		}
	}
	if res.Steps() != sum {
		t.Errorf("Steps() = %d", res.Steps())
	}
}

func TestReviewNotATranscript(t *testing.T) {
	_, err := Read(context.Background(), strings.NewReader("# notes\njust text\n"), "notes.md", Options{})
	if err == nil || !strings.Contains(err.Error(), "notes.md") {
		t.Errorf("got %v, want an error naming the file", err)
	}
}

// failingReader returns data, then an I/O error.
type failingReader struct{ data []byte }

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestReviewReadError(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(devset, "vigil", "offcourse_repeat_failing_tests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	// Stop at a line boundary past the sniffing window's worth of data.
	cut := bytes.LastIndexByte(data[:len(data)/2], '\n') + 1
	res, err := Read(context.Background(), &failingReader{data: data[:cut]}, "x.jsonl", Options{})
	if err != nil {
		// The error came before the reader could tell the format.
		if !strings.Contains(err.Error(), "disk on fire") {
			t.Fatal(err)
		}
		return
	}
	if res.Err == nil || !strings.Contains(res.Err.Error(), "disk on fire") {
		t.Errorf("Err = %v, want the read error", res.Err)
	}
}

func TestReviewProgress(t *testing.T) {
	var last int64
	path := filepath.Join(devset, "vigil", "clean_normal_fix.jsonl")
	res, err := File(context.Background(), path, Options{Progress: func(n int64) { last = n }})
	if err != nil {
		t.Fatal(err)
	}
	if last != res.Size || res.Size == 0 {
		t.Errorf("progress ended at %d, file is %d bytes", last, res.Size)
	}
}

// gzipped writes a gzip-compressed copy of a file into a temporary
// folder and returns its path.
func gzipped(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path)+".gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	if _, err := zw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(out, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
