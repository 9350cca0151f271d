package rules

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/transcript"
)

func TestDetectorsDocumented(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Detectors() {
		if d.Name == "" || seen[d.Name] {
			t.Errorf("detector name %q empty or repeated", d.Name)
		}
		seen[d.Name] = true
		if d.Severity.Rank() == 0 {
			t.Errorf("%s: severity %q", d.Name, d.Severity)
		}
		if len(d.Doc) < 80 || strings.Contains(d.Doc, "\n") || !strings.HasSuffix(d.Doc, ".") {
			t.Errorf("%s: doc should be one paragraph of sentences: %q", d.Name, d.Doc)
		}
	}
	if len(seen) != len(registry) {
		t.Errorf("Detectors lists %d, registry has %d", len(seen), len(registry))
	}
}

func TestParseSeverity(t *testing.T) {
	for _, s := range []Severity{Nit, Concern, Blocker} {
		if got, err := ParseSeverity(string(s)); err != nil || got != s {
			t.Errorf("ParseSeverity(%q) = %q, %v", s, got, err)
		}
	}
	if _, err := ParseSeverity("fatal"); err == nil {
		t.Error("ParseSeverity accepted fatal")
	}
	if !(Nit.Rank() < Concern.Rank() && Concern.Rank() < Blocker.Rank()) {
		t.Error("severities out of order")
	}
}

func TestSettingsDefaults(t *testing.T) {
	if got := (Settings{}).withDefaults(); got.Window != DefaultSettings().Window || got.FailureRepeats != 3 || got.EditFlips != 2 {
		t.Errorf("zero settings take %+v", got)
	}
	if got := (Settings{FailureRepeats: 5}).withDefaults(); got.FailureRepeats != 5 || got.IdenticalReads != 3 {
		t.Errorf("a set field is kept, the others default: %+v", got)
	}
	e := New(Settings{Disabled: []string{"sidestep", "no-such-detector"}})
	if len(e.dets) != len(registry)-1 {
		t.Errorf("with one detector disabled the engine runs %d of %d", len(e.dets), len(registry))
	}
}

// TestLastActions checks that the engine hands out, for every step, the
// same actions Actions derives from it, and none after a reset.
func TestLastActions(t *testing.T) {
	runs := [][]transcript.Step{}
	r := rand.New(rand.NewPCG(7, 11))
	for range 20 {
		runs = append(runs, randomRun(r, 40))
	}
	matches, _ := filepath.Glob(filepath.Join(devset, "*.traj.json"))
	for _, m := range matches[:min(len(matches), 5)] {
		steps, _ := readSteps(t, m)
		runs = append(runs, steps)
	}
	for i, steps := range runs {
		e := New(Settings{})
		for _, st := range steps {
			e.Observe(st)
			if got, want := e.LastActions(), Actions(&st); !reflect.DeepEqual(got, want) && (len(got) > 0 || len(want) > 0) {
				t.Fatalf("run %d step %d: LastActions %+v, Actions %+v", i, st.N, got, want)
			}
		}
		e.Reset()
		if n := len(e.LastActions()); n != 0 {
			t.Fatalf("run %d: %d actions after Reset", i, n)
		}
	}
}
