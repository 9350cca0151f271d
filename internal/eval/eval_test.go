package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// scripted reports the findings that the run's first reply lists as
// "FINDINGS step:severity ...", after reading every step.
type scripted struct{}

func (scripted) Review(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, error) {
	var out []rules.Finding
	first := true
	for st := range steps {
		if !first {
			continue
		}
		first = false
		fields := strings.Fields(st.Text())
		if len(fields) == 0 || fields[0] != "FINDINGS" {
			return nil, errors.New("no FINDINGS line")
		}
		for _, f := range fields[1:] {
			step, sev, _ := strings.Cut(f, ":")
			n, err := strconv.Atoi(step)
			if err != nil {
				return nil, err
			}
			out = append(out, rules.Finding{Detector: "scripted", Severity: rules.Severity(sev), StartStep: n, EndStep: n, Message: "m"})
		}
	}
	return out, nil
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestMetrics(t *testing.T) {
	rep, err := Run(context.Background(), "testdata/labels.tsv", scripted{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"offcourse runs", float64(rep.Offcourse), 3},
		{"clean runs", float64(rep.Clean), 2},
		{"uncertain runs", float64(rep.Uncertain), 1},
		{"detected", float64(rep.Detected), 2},
		{"detected within 3", float64(rep.DetectedWithin), 1},
		{"flagged clean runs", float64(rep.Flagged), 1},
		{"precision", rep.Precision, 2.0 / 3},
		{"recall", rep.Recall, 2.0 / 3},
		{"recall within 3", rep.RecallWithin, 1.0 / 3},
		{"mean delay", rep.MeanDelay, 3},
		{"median delay", rep.MedianDelay, 3},
		{"clean steps", float64(rep.CleanSteps), 20},
		{"clean flags", float64(rep.CleanFlags), 2},
		{"false flags per 100 clean steps", rep.FalseFlagsPer100, 10},
		{"early flags", float64(rep.EarlyFlags), 1},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	byFile := map[string]RunResult{}
	for _, r := range rep.Runs {
		byFile[r.File] = r
	}
	if r := byFile["off_a.traj.json"]; !r.Detected || r.Detection != 4 || r.Delay != 1 || r.Steps != 6 {
		t.Errorf("off_a: %+v", r)
	}
	if r := byFile["off_b.traj.json.gz"]; !r.Detected || r.Delay != 5 || r.Steps != 8 {
		t.Errorf("off_b (gzipped): %+v", r)
	}
	if r := byFile["off_c.traj.json"]; r.Detected || r.EarlyFlags != 1 {
		t.Errorf("off_c: %+v", r)
	}
	if c := rep.ByDetector["scripted"]; c != (DetectorCounts{Matching: 2, Early: 1, Clean: 2, Uncertain: 1}) {
		t.Errorf("by detector: %+v", c)
	}
}

func TestMinSeverity(t *testing.T) {
	rep, err := Run(context.Background(), "testdata/labels.tsv", scripted{}, Options{MinSeverity: rules.Concern})
	if err != nil {
		t.Fatal(err)
	}
	if rep.CleanFlags != 1 || !near(rep.FalseFlagsPer100, 5) {
		t.Errorf("with nits ignored: %d clean flags, %.2f per 100; want 1 and 5", rep.CleanFlags, rep.FalseFlagsPer100)
	}
}

func TestTolerance(t *testing.T) {
	rep, err := Run(context.Background(), "testdata/labels.tsv", scripted{}, Options{Tolerance: 5})
	if err != nil {
		t.Fatal(err)
	}
	// With k = 5 the late detection counts as within, and off_c's finding
	// at step 1 is no longer before onset−k = 1.
	if rep.DetectedWithin != 3 || rep.Detected != 3 || rep.EarlyFlags != 0 {
		t.Errorf("k=5: detected %d, within %d, early %d; want 3, 3, 0", rep.Detected, rep.DetectedWithin, rep.EarlyFlags)
	}
}

func TestRulesReviewer(t *testing.T) {
	rep, err := Run(context.Background(), "testdata/rules_labels.tsv", RulesReviewer{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Detected != 1 || rep.DetectedWithin != 1 || rep.CleanFlags != 0 {
		var b bytes.Buffer
		rep.WriteText(&b)
		t.Errorf("rules reviewer on the synthetic runs:\n%s", b.String())
	}
	if r := rep.Runs[0]; r.Detection != 4 || r.Findings[0].Detector != "repeated-failure" {
		t.Errorf("repeat: %+v", r)
	}
}

func TestReportOutputs(t *testing.T) {
	rep, err := Run(context.Background(), "testdata/labels.tsv", scripted{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"off_b.traj.json.gz", "at 7", "precision 0.67 (2 of 3 flagged runs)", "recall within 3 steps 0.33 (1/3)",
		"mean 3.0, median 3.0", "2 in 20 clean steps = 10.00 per 100", "1 early flags", "scripted  2",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(raw, &back); err != nil {
		t.Fatal(err)
	}
	if back.Recall != rep.Recall || len(back.Runs) != len(rep.Runs) || back.Runs[0].File != "off_a.traj.json" {
		t.Errorf("JSON round trip lost data: %s", raw)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(ctx, "testdata/labels.tsv", RulesReviewer{}, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestUnreadableTranscript(t *testing.T) {
	labels := []Label{
		{File: "nope.traj.json", Path: "testdata/nope.traj.json", Class: Clean},
		{File: "labels.tsv", Path: "testdata/labels.tsv", Class: Clean},
		{File: "steady.traj.json", Path: "testdata/steady.traj.json", Class: Clean},
	}
	rep, err := Evaluate(context.Background(), labels, RulesReviewer{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Failed != 2 || rep.Clean != 1 || rep.CleanSteps != 4 {
		t.Errorf("failed %d, clean %d, clean steps %d; want 2, 1, 4", rep.Failed, rep.Clean, rep.CleanSteps)
	}
	if e := rep.Runs[0].Error; !strings.Contains(e, "nope.traj.json") {
		t.Errorf("error %q does not name the file", e)
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "2 unreadable") {
		t.Errorf("report does not count the unreadable runs:\n%s", b.String())
	}
}
