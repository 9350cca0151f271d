package transcript

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// The follower must read a file written in pieces exactly as the
// whole-file reader reads the finished file: these tests write every
// recording of Claude Code and Codex to a temporary file piece by piece,
// poll after each piece and settle at the end.

// followFile is a recording the follower is tested on.
type followRecording struct {
	path   string // under the package folder
	format Format
}

// followRecordings lists the recordings of real Claude Code and Codex
// sessions: this package's, the follow folder's (with hooks) and the dev
// set's.
func followRecordings(t testing.TB) []followRecording {
	t.Helper()
	recs := []followRecording{
		{"testdata/claude-code/recording.jsonl", FormatClaudeCode},
		{"testdata/codex/rollout.jsonl", FormatCodex},
		{"testdata/follow/claude-code.jsonl.gz", FormatClaudeCode},
		{"testdata/follow/codex.jsonl.gz", FormatCodex},
	}
	for _, d := range []struct {
		dir    string
		format Format
	}{{"../testdata/devset/claude-code", FormatClaudeCode}, {"../testdata/devset/codex", FormatCodex}} {
		paths, err := filepath.Glob(filepath.Join(d.dir, "*.jsonl.gz"))
		if err != nil || len(paths) == 0 {
			t.Fatalf("no recordings in %s: %v", d.dir, err)
		}
		for _, p := range paths {
			recs = append(recs, followRecording{p, d.format})
		}
	}
	return recs
}

// followData reads a recording, decompressing it when it is gzipped.
func followData(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Ext(path) != ".gz" {
		return data
	}
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err = io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

// wholeRead is what the whole-file reader, forced to format f, and a
// Stepper make of data.
type wholeRead struct {
	run     RunInfo
	entries []session.Entry
	steps   []Step
	notes   []Note
}

func readWhole(data []byte, f Format) wholeRead {
	res := jlDrain(jlForced(data, f))
	var w wholeRead
	if len(res.runs) > 0 {
		w.run = res.runs[0]
	}
	w.entries = res.all()
	w.steps = jlSteps(w.entries)
	w.notes = res.notes
	return w
}

// followTemp is a file written piece by piece.
type followTemp struct {
	t    testing.TB
	path string
}

func newFollowTemp(t testing.TB, name string) *followTemp {
	return &followTemp{t: t, path: filepath.Join(t.TempDir(), name)}
}

// write appends b to the file, creating it the first time.
func (w *followTemp) write(b []byte) {
	w.t.Helper()
	f, err := os.OpenFile(w.path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		w.t.Fatal(err)
	}
	if _, err := f.Write(b); err != nil {
		w.t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		w.t.Fatal(err)
	}
}

// followed gathers what a follower returned over its life, with marks
// pointing into all its entries.
type followed struct {
	entries []session.Entry
	steps   []Step
	marks   []Mark
}

// add appends a batch, checking that its marks point into it.
func (r *followed) add(t testing.TB, b Batch) {
	t.Helper()
	for _, m := range b.Marks {
		if m.Entry < 0 || m.Entry >= len(b.Entries) {
			t.Fatalf("mark %v points at entry %d of a batch of %d", m.Kind, m.Entry, len(b.Entries))
		}
		r.marks = append(r.marks, Mark{Kind: m.Kind, Entry: len(r.entries) + m.Entry})
	}
	r.entries = append(r.entries, b.Entries...)
	r.steps = append(r.steps, b.Steps...)
}

// poll calls fn (Poll or Settle) and adds what it returns.
func (r *followed) call(t testing.TB, what string, fn func() (Batch, error)) {
	t.Helper()
	b, err := fn()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	r.add(t, b)
}

// followPieces writes data to a new file in the pieces cuts makes (each
// cut an offset), polls after each piece and settles at the end; settle
// says after which pieces to settle as well.
func followPieces(t testing.TB, data []byte, f Format, cuts []int, settle func(piece int) bool) (followed, *Follower) {
	t.Helper()
	w := newFollowTemp(t, "session.jsonl")
	fl := Follow(w.path, f)
	var r followed
	r.call(t, "Poll before the file exists", fl.Poll)
	if len(r.entries) > 0 {
		t.Fatal("entries before the file exists")
	}
	last := 0
	for i, c := range append(cuts, len(data)) {
		if c < last || c > len(data) {
			continue
		}
		w.write(data[last:c])
		last = c
		r.call(t, "Poll", fl.Poll)
		if settle != nil && settle(i) {
			r.call(t, "Settle", fl.Settle)
		}
	}
	r.call(t, "Settle", fl.Settle)
	return r, fl
}

// lineCuts returns the offset after every line of data.
func lineCuts(data []byte) []int {
	var cuts []int
	for i, c := range data {
		if c == '\n' {
			cuts = append(cuts, i+1)
		}
	}
	return cuts
}

// randomCuts returns n sorted offsets into data, most in the middle of
// lines.
func randomCuts(data []byte, n int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, 7))
	cuts := make([]int, 0, n)
	for range n {
		cuts = append(cuts, rng.IntN(len(data)+1))
	}
	for i := 1; i < len(cuts); i++ {
		for j := i; j > 0 && cuts[j] < cuts[j-1]; j-- {
			cuts[j], cuts[j-1] = cuts[j-1], cuts[j]
		}
	}
	return cuts
}

// checkSame fails unless the follower returned what the whole-file reader
// reads.
func checkSame(t testing.TB, got followed, fl *Follower, want wholeRead) {
	t.Helper()
	if len(got.entries) != len(want.entries) {
		t.Fatalf("%d entries, want %d:\n%s\nwant:\n%s", len(got.entries), len(want.entries), jlShapes(got.entries), jlShapes(want.entries))
	}
	for i := range got.entries {
		if !reflect.DeepEqual(got.entries[i], want.entries[i]) {
			a, _ := json.Marshal(got.entries[i])
			b, _ := json.Marshal(want.entries[i])
			t.Fatalf("entry %d:\n got %s\nwant %s", i, a, b)
		}
	}
	checkNumbered(t, got.steps)
	if len(got.steps) != len(want.steps) {
		t.Fatalf("%d steps, want %d", len(got.steps), len(want.steps))
	}
	for i := range got.steps {
		if !reflect.DeepEqual(got.steps[i], want.steps[i]) {
			t.Fatalf("step %d differs:\n got %s\nwant %s", i+1, stepShape(got.steps[i]), stepShape(want.steps[i]))
		}
	}
	if !reflect.DeepEqual(fl.Run(), want.run) {
		t.Errorf("run %+v, want %+v", fl.Run(), want.run)
	}
	if !reflect.DeepEqual(fl.Notes(), want.notes) {
		t.Errorf("notes %+v, want %+v", fl.Notes(), want.notes)
	}
}

// checkNumbered fails unless steps are numbered 1, 2, 3… with none twice.
func checkNumbered(t testing.TB, steps []Step) {
	t.Helper()
	for i, st := range steps {
		if st.N != i+1 {
			t.Fatalf("step %d is numbered %d (a step twice, or one missing)", i+1, st.N)
		}
	}
}

// stepShape describes a step in a line.
func stepShape(st Step) string {
	return fmt.Sprintf("N=%d reply=%s results=%d context=%d", st.N, jlShape(st.Reply), len(st.Results), len(st.Context))
}

func TestFollowRecordingsInPieces(t *testing.T) {
	for _, rec := range followRecordings(t) {
		t.Run(filepath.Base(filepath.Dir(rec.path))+"/"+filepath.Base(rec.path), func(t *testing.T) {
			data := followData(t, rec.path)
			want := readWhole(data, rec.format)
			if len(want.steps) == 0 {
				t.Fatal("the recording has no steps")
			}
			got, fl := followPieces(t, data, rec.format, lineCuts(data), nil)
			checkSame(t, got, fl, want)
			if fl.Offset() != int64(len(data)) {
				t.Errorf("offset %d, want %d", fl.Offset(), len(data))
			}
			for seed := range uint64(3) {
				got, fl := followPieces(t, data, rec.format, randomCuts(data, 60, seed), nil)
				checkSame(t, got, fl, want)
			}
			// Detected rather than told.
			got, fl = followPieces(t, data, "", randomCuts(data, 20, 9), nil)
			checkSame(t, got, fl, want)
		})
	}
}

// TestFollowSettleAtTurnEnds settles wherever the file could have ended
// without changing what was read before (where a Stop hook may fire):
// such a Settle changes nothing.
func TestFollowSettleAtTurnEnds(t *testing.T) {
	for _, rec := range followRecordings(t)[:4] {
		t.Run(rec.path, func(t *testing.T) {
			data := followData(t, rec.path)
			want := readWhole(data, rec.format)
			cuts := lineCuts(data)
			safe := map[int]bool{}
			for i, c := range cuts {
				prefix := readWhole(data[:c], rec.format)
				if isPrefix(prefix.entries, want.entries) && stepsPrefix(prefix.steps, want.steps) {
					safe[i] = true
				}
			}
			if len(safe) < 5 {
				t.Fatalf("only %d turn ends", len(safe))
			}
			got, fl := followPieces(t, data, rec.format, cuts, func(i int) bool { return safe[i] })
			checkSame(t, got, fl, want)
		})
	}
}

func isPrefix(a, b []session.Entry) bool {
	return len(a) <= len(b) && reflect.DeepEqual(a, b[:len(a)])
}

func stepsPrefix(a, b []Step) bool {
	return len(a) <= len(b) && reflect.DeepEqual(a, b[:len(a)])
}

// TestFollowSettleAfterEveryLine settles too early all the time: replies
// come apart, but nothing is returned twice or lost.
func TestFollowSettleAfterEveryLine(t *testing.T) {
	for _, rec := range followRecordings(t) {
		t.Run(filepath.Base(rec.path), func(t *testing.T) {
			data := followData(t, rec.path)
			want := readWhole(data, rec.format)
			got, _ := followPieces(t, data, rec.format, lineCuts(data), func(int) bool { return true })
			checkNumbered(t, got.steps)
			if a, b := replyBlocks(got.entries), replyBlocks(want.entries); !reflect.DeepEqual(a, b) {
				t.Errorf("reply blocks differ: %d, want %d", len(a), len(b))
			}
			if a, b := otherEntries(got.entries), otherEntries(want.entries); !reflect.DeepEqual(a, b) {
				t.Errorf("other entries differ:\n%s\nwant:\n%s", jlShapes(a), jlShapes(b))
			}
			seen := map[string]bool{}
			for _, st := range got.steps {
				if seen[st.Reply.ID] {
					t.Errorf("step %d: reply %s returned twice", st.N, st.Reply.ID)
				}
				seen[st.Reply.ID] = true
			}
			if len(got.steps) < len(want.steps) {
				t.Errorf("%d steps, want at least %d", len(got.steps), len(want.steps))
			}
		})
	}
}

// replyBlocks returns the blocks of every assistant reply, in order.
func replyBlocks(entries []session.Entry) []llm.Block {
	var out []llm.Block
	for _, e := range entries {
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			out = append(out, m.Message.Content...)
		}
	}
	return out
}

// otherEntries returns the ids and bodies of the entries that are not
// replies or compactions (which a premature Settle may split).
func otherEntries(entries []session.Entry) []session.Entry {
	var out []session.Entry
	for _, e := range entries {
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			continue
		}
		if _, ok := e.Body.(*session.Compaction); ok {
			continue
		}
		out = append(out, session.Entry{ID: e.ID, Body: e.Body})
	}
	return out
}
