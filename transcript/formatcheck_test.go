package transcript

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// readResult is everything a reader yielded from one file.
type readResult struct {
	format Format
	runs   []runResult
	notes  []Note
	err    error
}

// runResult is one run as read, with its entries grouped into steps.
type runResult struct {
	info    RunInfo
	entries []session.Entry
	steps   []Step
}

// noted reports whether the reader noted something whose description
// contains what.
func (r readResult) noted(what string) bool {
	for _, n := range r.notes {
		if strings.Contains(n.What, what) {
			return true
		}
	}
	return false
}

func (r readResult) entryCount() int {
	n := 0
	for _, run := range r.runs {
		n += len(run.entries)
	}
	return n
}

// readTestdata reads a file under testdata.
func readTestdata(t *testing.T, rel string) readResult {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", rel))
	if err != nil {
		t.Fatal(err)
	}
	r, err := readTranscript(bytes.NewReader(data), filepath.Base(rel))
	if err != nil {
		t.Fatalf("read %s: %v", rel, err)
	}
	if r.err != nil {
		t.Fatalf("read %s: %v", rel, r.err)
	}
	return r
}

// readTranscript detects and reads everything in in; an error from Items
// ends up in the result's err.
func readTranscript(in io.Reader, name string) (readResult, error) {
	rd, err := NewReader(in, name)
	if err != nil {
		return readResult{}, err
	}
	res := readResult{format: rd.Format()}
	var st Stepper
	flush := func() {
		if len(res.runs) == 0 {
			return
		}
		if s, ok := st.Flush(); ok {
			res.runs[len(res.runs)-1].steps = append(res.runs[len(res.runs)-1].steps, s)
		}
	}
	for it, err := range rd.Items() {
		if err != nil {
			res.err = err
			break
		}
		if it.Run != nil {
			flush()
			res.runs = append(res.runs, runResult{info: *it.Run})
			continue
		}
		if len(res.runs) == 0 {
			res.err = errors.New("entry before any run")
			break
		}
		run := &res.runs[len(res.runs)-1]
		run.entries = append(run.entries, it.Entry)
		run.steps = append(run.steps, st.Add(it.Entry)...)
	}
	flush()
	res.notes = rd.Notes()
	return res, nil
}

// checkRun checks what every reader guarantees of a run: unique ids, a
// linear chain of parents, and tool results that answer calls made before
// them.
func checkRun(t *testing.T, run runResult) {
	t.Helper()
	seen := map[string]bool{}
	calls := map[string]bool{}
	prev := ""
	for i, e := range run.entries {
		if e.ID == "" || seen[e.ID] {
			t.Errorf("entry %d: id %q empty or repeated", i, e.ID)
		}
		seen[e.ID] = true
		if e.ParentID != prev {
			t.Errorf("entry %d (%s): parent %q, want %q", i, e.ID, e.ParentID, prev)
		}
		prev = e.ID
		m, ok := e.Body.(*session.Message)
		if !ok {
			continue
		}
		for _, b := range m.Message.Content {
			switch b.Type {
			case llm.BlockToolCall:
				if m.Message.Role != llm.RoleAssistant {
					t.Errorf("entry %s: a call in a %s message", e.ID, m.Message.Role)
				}
				calls[b.ID] = true
			case llm.BlockToolResult:
				if !calls[b.ID] {
					t.Errorf("entry %s: result for %q, which no earlier reply called", e.ID, b.ID)
				}
			}
		}
	}
}

// stepStats counts a run's calls, answered calls and failed results.
type stepStats struct {
	steps, calls, answered, failed int
}

func statsOf(run runResult) stepStats {
	var s stepStats
	s.steps = len(run.steps)
	for _, st := range run.steps {
		for _, c := range st.Calls() {
			s.calls++
			if r, ok := st.Result(c.ID); ok {
				s.answered++
				if r.IsError {
					s.failed++
				}
			}
		}
	}
	return s
}

// resultText returns the text of a result block.
func resultText(b llm.Block) string {
	var sb strings.Builder
	for _, c := range b.Content {
		sb.WriteString(c.Text)
	}
	return sb.String()
}

// firstText returns the text of the run's first entry when it is a
// message.
func firstText(run runResult) string {
	if len(run.entries) == 0 {
		return ""
	}
	m, ok := run.entries[0].Body.(*session.Message)
	if !ok {
		return ""
	}
	return m.Message.Text()
}

// exitDetails returns the details of the run's closing "exit" entry, or ""
// when there is none.
func exitDetails(run runResult) string {
	if len(run.entries) == 0 {
		return ""
	}
	c, ok := run.entries[len(run.entries)-1].Body.(*session.Custom)
	if !ok || c.CustomType != "exit" {
		return ""
	}
	return string(c.Details)
}

// checkCuts reads data cut at n points through its second half and checks
// that no cut is an error, that each read yields no more entries than the
// whole file, and that a cut that loses something is noted.
func checkCuts(t *testing.T, name string, data []byte, n int) {
	t.Helper()
	whole, err := readTranscript(bytes.NewReader(data), name)
	if err != nil || whole.err != nil {
		t.Fatalf("whole file: %v %v", err, whole.err)
	}
	step := max(1, len(data)/2/n)
	for cut := len(data) / 2; cut < len(data)-1; cut += step {
		r, err := readTranscript(bytes.NewReader(data[:cut]), name)
		if err != nil {
			continue // too little left to detect the format
		}
		if r.err != nil {
			t.Fatalf("cut at %d: %v", cut, r.err)
		}
		if r.entryCount() > whole.entryCount() {
			t.Fatalf("cut at %d: %d entries, more than the whole file's %d", cut, r.entryCount(), whole.entryCount())
		}
		if len(r.notes) == len(whole.notes) && r.entryCount() == whole.entryCount() {
			continue // cut in trailing data the reader does not use
		}
		if data[cut-1] == '\n' {
			continue // a line format cut between lines looks whole
		}
		if !r.noted("cut") && !r.noted("truncated") {
			t.Fatalf("cut at %d: no note of the cut; notes %v", cut, r.notes)
		}
	}
}

// failingReader returns data, then err.
type failingReader struct {
	data []byte
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if len(f.data) == 0 {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

var errDisk = errors.New("disk on fire")

// checkIOError checks that an I/O error after the detection window ends
// the stream with that error.
func checkIOError(t *testing.T, name string, data []byte) {
	t.Helper()
	if len(data) <= sniffSize+1 {
		t.Fatalf("%s: need more than %d bytes", name, sniffSize)
	}
	r, err := readTranscript(&failingReader{data: data[:sniffSize+1], err: errDisk}, name)
	if err != nil {
		t.Fatalf("detect: %v", err)
	}
	if !errors.Is(r.err, errDisk) {
		t.Fatalf("got error %v, want %v", r.err, errDisk)
	}
	if !strings.Contains(r.err.Error(), name) {
		t.Errorf("error %q does not name the file", r.err)
	}
}

// checkStopEarly checks that a consumer can stop after any item.
func checkStopEarly(t *testing.T, name string, data []byte) {
	t.Helper()
	for _, stopAfter := range []int{1, 2, 5} {
		rd, err := NewReader(bytes.NewReader(data), name)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, err := range rd.Items() {
			if err != nil {
				t.Fatal(err)
			}
			n++
			if n == stopAfter {
				break
			}
		}
	}
}

// fuzzRead reads data as the fuzz tests do: whatever it is, it must not
// panic.
func fuzzRead(data []byte) {
	rd, err := NewReader(bytes.NewReader(data), "fuzz")
	if err != nil {
		return
	}
	var st Stepper
	for it, err := range rd.Items() {
		if err != nil {
			break
		}
		if it.Run == nil {
			st.Add(it.Entry)
		}
	}
	st.Flush()
	rd.Notes()
}
