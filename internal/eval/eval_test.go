package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"iter"
	"math"
	"os"
	"path/filepath"
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
	rep, err := Run(context.Background(), []string{"testdata/labels.tsv"}, scripted{}, Options{})
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
		{"false flags per 50 clean steps", rep.FalseFlagsPer50, 5},
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
	if c := rep.ByDetector["scripted"]; c != (DetectorCounts{Matching: 2, Early: 1, Clean: 2, Uncertain: 1, Detections: 2, MedianDelay: 3}) {
		t.Errorf("by detector: %+v", c)
	}
}

func TestMinSeverity(t *testing.T) {
	rep, err := Run(context.Background(), []string{"testdata/labels.tsv"}, scripted{}, Options{MinSeverity: rules.Concern})
	if err != nil {
		t.Fatal(err)
	}
	if rep.CleanFlags != 1 || !near(rep.FalseFlagsPer50, 2.5) {
		t.Errorf("with nits ignored: %d clean flags, %.2f per 50; want 1 and 2.5", rep.CleanFlags, rep.FalseFlagsPer50)
	}
}

func TestTolerance(t *testing.T) {
	rep, err := Run(context.Background(), []string{"testdata/labels.tsv"}, scripted{}, Options{Tolerance: 5})
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
	rep, err := Run(context.Background(), []string{"testdata/rules_labels.tsv"}, RulesReviewer{}, Options{})
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
	rep, err := Run(context.Background(), []string{"testdata/labels.tsv"}, scripted{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"off_b.traj.json.gz", "at 7", "precision 0.67 (2 of 3 flagged runs)", "recall within 3 steps 0.33 (1/3)",
		"mean 3.0, median 3.0", "2 in 20 clean steps = 5.00 per 50", "1 early flags", "scripted  2",
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
	if _, err := Run(ctx, []string{"testdata/labels.tsv"}, RulesReviewer{}, Options{}); !errors.Is(err, context.Canceled) {
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
	if rep.Failed != 1 || rep.Absent != 1 || rep.Clean != 1 || rep.CleanSteps != 4 {
		t.Errorf("failed %d, absent %d, clean %d, clean steps %d; want 1, 1, 1, 4", rep.Failed, rep.Absent, rep.Clean, rep.CleanSteps)
	}
	if r := rep.Runs[0]; !r.Absent || r.Error != "" {
		t.Errorf("a missing transcript: got %+v, want it absent", r)
	}
	if e := rep.Runs[1].Error; !strings.Contains(e, "labels.tsv") {
		t.Errorf("error %q does not name the file", e)
	}
	var b bytes.Buffer
	rep.WriteText(&b)
	if !strings.Contains(b.String(), "1 unreadable") || !strings.Contains(b.String(), "1 not on this machine") {
		t.Errorf("report does not count the unreadable and absent runs:\n%s", b.String())
	}
}

// twoSources is the synthetic runs split into sets a and b.
func twoSources(t *testing.T) []Label {
	t.Helper()
	labels, err := ReadLabels("testdata/labels.tsv")
	if err != nil {
		t.Fatal(err)
	}
	for i := range labels {
		labels[i].Set = "b"
		if strings.HasSuffix(labels[i].File, "_a.traj.json") {
			labels[i].Set = "a"
		}
	}
	return labels
}

func TestBySource(t *testing.T) {
	rep, err := Evaluate(context.Background(), twoSources(t), scripted{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := rep.BySource["a/mini-swe-agent"], rep.BySource["b/mini-swe-agent"]
	if a == nil || b == nil {
		t.Fatalf("sources: %v", rep.BySource)
	}
	// a: off_a detected one step late, clean_a unflagged.
	if a.Offcourse != 1 || a.Detected != 1 || a.DetectedWithin != 1 || a.Clean != 1 || a.Flagged != 0 || a.MedianDelay != 1 {
		t.Errorf("source a: %+v", *a)
	}
	// b: off_b five steps late, off_c missed, clean_b flagged twice.
	if b.Offcourse != 2 || b.Detected != 1 || b.DetectedWithin != 0 || b.Clean != 1 || b.CleanFlags != 2 || b.MedianDelay != 5 {
		t.Errorf("source b: %+v", *b)
	}
	if rep.Offcourse != a.Offcourse+b.Offcourse || rep.CleanSteps != a.CleanSteps+b.CleanSteps {
		t.Errorf("overall %+v is not the sum of its sources", rep.Summary)
	}
	var out bytes.Buffer
	if err := rep.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"a/mini-swe-agent  1", "1.00 (1/1)", "b/mini-swe-agent  2", "0.50 (1/2)", "0.00 (0/2)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, out.String())
		}
	}
}

func TestLeaveOut(t *testing.T) {
	for _, c := range []struct {
		name      string
		opt       Options
		wantRuns  int
		wantSrcs  []string
		wantCount int
	}{
		{"leave out a set", Options{LeaveOut: []string{"b"}}, 2, []string{"a/mini-swe-agent"}, 1},
		{"leave out a source", Options{LeaveOut: []string{"a/mini-swe-agent"}}, 4, []string{"b/mini-swe-agent"}, 2},
		{"only a format", Options{Only: []string{"mini-swe-agent"}}, 6, []string{"a/mini-swe-agent", "b/mini-swe-agent"}, 3},
		{"only a set", Options{Only: []string{"a"}}, 2, []string{"a/mini-swe-agent"}, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			rep, err := Evaluate(context.Background(), twoSources(t), scripted{}, c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Runs) != c.wantRuns || len(rep.BySource) != len(c.wantSrcs) || rep.Offcourse != c.wantCount {
				t.Errorf("got %d runs, sources %v, %d offcourse; want %d, %v, %d", len(rep.Runs), rep.BySource, rep.Offcourse, c.wantRuns, c.wantSrcs, c.wantCount)
			}
			for _, s := range c.wantSrcs {
				if rep.BySource[s] == nil {
					t.Errorf("source %s missing", s)
				}
			}
		})
	}
}

func TestQuantile(t *testing.T) {
	for _, c := range []struct {
		xs   []int
		q    float64
		want float64
	}{
		{[]int{5}, 0.9, 5},
		{[]int{3, 1}, 0.5, 2},
		{[]int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, 0.9, 9.1},
		{[]int{0, 0, 40}, 0.5, 0},
		{nil, 0.5, 0},
	} {
		if got := quantile(append([]int(nil), c.xs...), c.q); !near(got, c.want) {
			t.Errorf("quantile(%v, %v) = %v, want %v", c.xs, c.q, got, c.want)
		}
	}
}

func TestAdvisorTranscriptRefused(t *testing.T) {
	data, err := os.ReadFile("../../testdata/devset/vigil/clean_normal_fix.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "__advisor.jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Evaluate(context.Background(), []Label{{File: "__advisor.jsonl", Path: path, Class: Clean}}, RulesReviewer{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r := rep.Runs[0]; !strings.Contains(r.Error, "an advisor transcript") || rep.Clean != 0 {
		t.Errorf("an advisor transcript labelled as a run: got %+v, want it refused", r)
	}
}
