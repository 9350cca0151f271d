package rules

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/transcript"
)

// devset is the shared corpus's folder of real mini-swe-agent runs, read
// in place (labelled in testdata/devset/corpus.tsv); tests that use it
// skip on a machine without the shared folder.
const devset = "../../shared/corpus/mini-swe-agent"

// readSteps reads the steps of a transcript's first run, and how many
// bytes the transcript is.
func readSteps(tb testing.TB, path string) ([]transcript.Step, int64) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Skip("shared corpus not available:", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	size := info.Size()
	r, err := transcript.NewReader(f, path)
	if err != nil {
		tb.Skip("no reader for this format yet:", err)
	}
	var sp transcript.Stepper
	var steps []transcript.Step
	runs := 0
	for it, err := range r.Items() {
		if err != nil {
			tb.Fatal(err)
		}
		if it.Run != nil {
			if runs++; runs > 1 {
				break
			}
			continue
		}
		steps = append(steps, sp.Add(it.Entry)...)
	}
	if st, ok := sp.Flush(); ok {
		steps = append(steps, st)
	}
	return steps, size
}

// TestCorpusRun runs the engine over a real mini-swe-agent run in which
// the agent, unable to import numpy, verifies its fix with scripts that
// avoid the real code (labelled off course from step 21).
func TestCorpusRun(t *testing.T) {
	steps, _ := readSteps(t, filepath.Join(devset, "deepseek_chat_test_1-100__astropy__astropy-12907.traj.json"))
	if len(steps) != 36 {
		t.Fatalf("read %d steps, want 36", len(steps))
	}
	e := New(Settings{})
	var got []Finding
	for _, st := range steps {
		got = append(got, e.Observe(st)...)
	}
	if len(got) != 1 || got[0].Detector != "sidestep" || got[0].EndStep != 21 {
		t.Errorf("got %v, want one sidestep finding at step 21", got)
	}
}

// BenchmarkEngineCorpus measures the engine on real runs; its MB/s is
// transcript bytes per second, the unit of the review's
// throughput budget (≥200 MB/s per core overall, reading included).
func BenchmarkEngineCorpus(b *testing.B) {
	matches, _ := filepath.Glob(filepath.Join(devset, "*.traj.json"))
	if len(matches) == 0 {
		b.Skip("shared corpus not available")
	}
	var runs [][]transcript.Step
	var total int64
	nsteps := 0
	for _, m := range matches {
		steps, size := readSteps(b, m)
		runs = append(runs, steps)
		total += size
		nsteps += len(steps)
	}
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, steps := range runs {
			e := New(Settings{})
			for _, st := range steps {
				e.Observe(st)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*nsteps), "ns/step")
}
