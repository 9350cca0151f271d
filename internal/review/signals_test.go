package review

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/rules"
)

// TestReviewKeepsSignals checks a review keeps each run's signals beside
// its findings, with their steps, and keeps at most MaxSignals of them.
func TestReviewKeepsSignals(t *testing.T) {
	path := filepath.Join(devset, "vigil", "offcourse_skips_failing_test.jsonl")
	res, err := File(context.Background(), path, Options{Signals: true})
	if err != nil {
		t.Fatal(err)
	}
	run := res.Runs[0]
	kinds := map[rules.SignalKind]int{}
	for _, s := range run.Signals {
		kinds[s.Kind] = s.Step
		if s.Step < 1 || s.Step > run.Steps || s.Detail == "" {
			t.Errorf("malformed signal %+v", s)
		}
	}
	if kinds[rules.SignalCheckWeakened] != 3 {
		t.Errorf("signals %v, want check-weakened at step 3 (the skip marker)", run.Signals)
	}
	if run.SignalCount != len(run.Signals) || res.Signals() != run.SignalCount {
		t.Errorf("count %d, result %d, kept %d", run.SignalCount, res.Signals(), len(run.Signals))
	}

	res, err = File(context.Background(), path, Options{Signals: true, MaxSignals: 1})
	if err != nil {
		t.Fatal(err)
	}
	if run := res.Runs[0]; len(run.Signals) != 1 || run.SignalCount < 2 {
		t.Errorf("with MaxSignals 1: kept %d of %d, want 1 of at least 2", len(run.Signals), run.SignalCount)
	}

	// Without Options.Signals the engine does not look for them; the
	// findings are the same.
	plain, err := File(context.Background(), path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := plain.Signals(); n != 0 || len(plain.Runs[0].Findings) != len(res.Runs[0].Findings) {
		t.Errorf("without Signals: %d signals, %d findings (want 0 and %d)", n, len(plain.Runs[0].Findings), len(res.Runs[0].Findings))
	}
}
