package cli_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestReviewSignalsJSON checks `vigil review --json` lists the rules'
// signals beside the findings, each with its run, step, kind and detail,
// and counts them per run.
func TestReviewSignalsJSON(t *testing.T) {
	out, errOut, code := runVigil(t, "review", "--json", "--sample")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var got struct {
		Findings []json.RawMessage `json:"findings"`
		Signals  []map[string]any  `json:"signals"`
		Runs     []struct {
			Signals *int `json:"signals"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(got.Signals) == 0 || len(got.Runs) != 1 || got.Runs[0].Signals == nil || *got.Runs[0].Signals != len(got.Signals) {
		t.Fatalf("signals %v, runs %+v:\n%s", got.Signals, got.Runs, out)
	}
	kinds := map[string]bool{}
	for _, s := range got.Signals {
		for _, field := range []string{"run", "step", "kind", "detail"} {
			if _, ok := s[field]; !ok {
				t.Errorf("signal %v has no %q", s, field)
			}
		}
		if s["run"] != 0.0 {
			t.Errorf("signal %v: run %v, want 0", s, s["run"])
		}
		kinds[s["kind"].(string)] = true
		if s["kind"] == "check-weakened" && s["step"] != 3.0 {
			t.Errorf("check-weakened at step %v, want 3 (the skip marker)", s["step"])
		}
	}
	if !kinds["check-weakened"] {
		t.Errorf("no check-weakened signal: %v", got.Signals)
	}
	// A file with no signals still has the field, as an empty array.
	out, _, _ = runVigil(t, "review", "--json", devFile("vigil/clean_normal_fix.jsonl"))
	if !strings.Contains(out, `"signals":[`) || strings.Contains(out, `"signals":null`) {
		t.Errorf("signals missing or null:\n%s", out)
	}
}
