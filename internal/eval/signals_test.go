package eval

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// stepScripted reports, for each step, what its reply's text lists:
// "F" for a concern found at that step, "S:KIND" for a signal.
type stepScripted struct{}

func (stepScripted) Review(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, error) {
	fs, _, err := stepScripted{}.ReviewSignals(ctx, steps)
	return fs, err
}

func (stepScripted) ReviewSignals(ctx context.Context, steps iter.Seq[transcript.Step]) ([]rules.Finding, []rules.Signal, error) {
	var fs []rules.Finding
	var ss []rules.Signal
	for st := range steps {
		for _, f := range strings.Fields(st.Text()) {
			switch {
			case f == "F":
				fs = append(fs, rules.Finding{Detector: "scripted", Severity: rules.Concern, StartStep: st.N, EndStep: st.N, Message: "m"})
			case strings.HasPrefix(f, "S:"):
				ss = append(ss, rules.Signal{Kind: rules.SignalKind(f[2:]), Step: st.N, Detail: "d"})
			}
		}
	}
	return fs, ss, nil
}

// writeRun writes a mini-swe-agent trajectory whose replies have the
// given texts, one step each.
func writeRun(t *testing.T, dir, name string, texts ...string) {
	t.Helper()
	msgs := []map[string]any{{"role": "system", "content": "s"}, {"role": "user", "content": "Fix the bug."}}
	for i, text := range texts {
		id := fmt.Sprintf("call_%d", i+1)
		args, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("cat f%d.txt", i)})
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": text, "tool_calls": []any{map[string]any{"id": id, "type": "function",
				"function": map[string]any{"name": "bash", "arguments": string(args)}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": "<returncode>0</returncode>\n<output>\nx\n</output>"})
	}
	data, err := json.Marshal(map[string]any{"info": map[string]any{"mini_version": "2.2.7", "exit_status": "Submitted"}, "messages": msgs})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSignalFigures scores signals on a small labelled set: offcourse
// runs alerted by a signal, by a finding, too late and too early, and
// clean runs whose marked steps are counted once each.
func TestSignalFigures(t *testing.T) {
	dir := t.TempDir()
	writeRun(t, dir, "sig.traj.json", "a", "b", "c", "d", "S:check-off", "f")    // onset 4: a signal 1 step after
	writeRun(t, dir, "find.traj.json", "a", "b", "c", "d", "e", "F")             // onset 5: a finding 1 step after
	writeRun(t, dir, "late.traj.json", "a", "b", "c", "d", "e", "f", "g", "S:x") // onset 2: 6 steps late
	writeRun(t, dir, "early.traj.json", "S:x", "b", "c", "d", "e", "f", "g")     // onset 7: only before onset−3
	writeRun(t, dir, "clean.traj.json", "S:x S:y F", "b", "S:x", "d", "e")       // 2 of 5 steps marked
	writeRun(t, dir, "quiet.traj.json", "a", "b", "c", "d", "e")                 // 0 of 5
	labels := "file\tlabel\tonset\tnote\n" +
		"sig.traj.json\toffcourse\t4\t\n" +
		"find.traj.json\toffcourse\t5\t\n" +
		"late.traj.json\toffcourse\t2\t\n" +
		"early.traj.json\toffcourse\t7\t\n" +
		"clean.traj.json\tclean\t\t\n" +
		"quiet.traj.json\tclean\t\t\n"
	path := filepath.Join(dir, "labels.tsv")
	if err := os.WriteFile(path, []byte(labels), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), []string{path}, stepScripted{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Signals {
		t.Fatal("report does not say the reviewer reports signals")
	}
	checks := []struct {
		name      string
		got, want float64
	}{
		{"alerted within 3", float64(rep.AlertedWithin), 2},
		{"alert recall within 3", rep.AlertRecallWithin, 0.5},
		{"clean marked steps", float64(rep.CleanMarkedSteps), 2},
		{"clean steps", float64(rep.CleanSteps), 10},
		{"clean marked share", rep.CleanMarkedShare, 0.2},
		{"detected within 3 (findings only)", float64(rep.DetectedWithin), 1},
		{"false flags per 50 clean steps", rep.FalseFlagsPer50, 5},
	}
	for _, c := range checks {
		if !near(c.got, c.want) {
			t.Errorf("%s = %v, want %v", c.name, c.got, c.want)
		}
	}
	if c := rep.BySignal["x"]; c != (SignalCounts{Runs: 0, Early: 1, Clean: 2}) {
		t.Errorf("by signal x: %+v", c)
	}
	if c := rep.BySignal["check-off"]; c != (SignalCounts{Runs: 1}) {
		t.Errorf("by signal check-off: %+v", c)
	}
	if len(rep.BySource) != 1 {
		t.Errorf("sources %v, want one", rep.BySource)
	}
	for n, s := range rep.BySource {
		if s.AlertedWithin != 2 || s.CleanMarkedSteps != 2 || !near(s.CleanMarkedShare, 0.2) {
			t.Errorf("source %s: %+v", n, s)
		}
	}
	for _, r := range rep.Runs {
		if r.File == "late.traj.json" && (!r.Alerted || r.Alert != 8 || r.AlertDelay != 6) {
			t.Errorf("late: %+v", r)
		}
	}

	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"signals: a signal or finding within 3 steps of the onset in 0.50 of offcourse runs (2/4); 2 of 10 clean steps marked (20.0%)",
		"signal or finding within 3", "clean steps marked", "0.20 (2/10)",
		"signal     offcourse runs within 3", "check-off  1",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, b.String())
		}
	}
	raw, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"alert_recall_within":0.5`, `"clean_marked_share":0.2`, `"false_flags_per_50_clean_steps":5`, `"by_signal":{`, `"signals":true`} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("JSON lacks %s: %s", want, raw)
		}
	}
}

// TestNoSignals checks a reviewer without signals gets no signal figures.
func TestNoSignals(t *testing.T) {
	rep, err := Run(context.Background(), []string{"testdata/labels.tsv"}, scripted{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if rep.Signals || strings.Contains(b.String(), "signals:") {
		t.Errorf("a reviewer with no signals got signal figures:\n%s", b.String())
	}
}
