package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestEvalDevSet(t *testing.T) {
	labels := filepath.Join(devset, "labels.tsv")
	out, errOut, code := runVigil(t, "eval", labels)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	for _, want := range []string{"precision ", "recall ", "detection delay: mean", "p90", "false flags:", "per 50 clean steps",
		"vigil/offcourse_repeat_failing_tests.jsonl", "source ", "devset/codex "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, errOut, code = runVigil(t, "eval", "--json", "--tolerance", "5", "--min-severity", "concern", labels)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	var rep struct {
		Tolerance   int     `json:"tolerance"`
		MinSeverity string  `json:"min_severity"`
		Precision   float64 `json:"precision"`
		Recall      float64 `json:"recall"`
		Offcourse   int     `json:"offcourse"`
		Clean       int     `json:"clean"`
		Uncertain   int     `json:"uncertain"`
		CleanSteps  int     `json:"clean_steps"`
		Runs        []any   `json:"runs"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	data, err := os.ReadFile(labels)
	if err != nil {
		t.Fatal(err)
	}
	lines := 0
	for _, l := range strings.Split(string(data), "\n") {
		if l != "" && !strings.HasPrefix(l, "#") {
			lines++
		}
	}
	if rep.Tolerance != 5 || rep.MinSeverity != "concern" || len(rep.Runs) != lines-1 || rep.Offcourse+rep.Clean+rep.Uncertain != len(rep.Runs) || rep.CleanSteps == 0 {
		t.Errorf("report of %d labelled runs: tolerance %d, min severity %q, %d runs (%d offcourse, %d clean, %d uncertain), %d clean steps",
			lines-1, rep.Tolerance, rep.MinSeverity, len(rep.Runs), rep.Offcourse, rep.Clean, rep.Uncertain, rep.CleanSteps)
	}
}

func TestEvalErrors(t *testing.T) {
	labels := filepath.Join(t.TempDir(), "labels.tsv")
	os.WriteFile(labels, []byte("file\tlabel\tonset\tnote\nx.jsonl\tmaybe\t\t\n"), 0o644)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown reviewer", []string{"--reviewer", "oracle", labels}, `oracle`},
		{"model without a model", []string{"--reviewer", "model", labels}, `needs a model`},
		{"bad label", []string{labels}, `unknown label "maybe"`},
		{"missing labels", []string{filepath.Join(devset, "nope.tsv")}, "nope.tsv"},
		{"bad severity", []string{"--min-severity", "huge", labels}, `unknown severity "huge"`},
		{"bad tolerance", []string{"--tolerance", "0", labels}, "at least 1"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, errOut, code := runVigil(t, append([]string{"eval"}, c.args...)...)
			if code != 2 || !strings.Contains(errOut, c.want) {
				t.Errorf("exit %d, stderr %q; want 2 and %q", code, errOut, c.want)
			}
		})
	}
}

// TestEvalModelReviewer scores the advisor model itself, replayed step by
// step over two recorded runs against fakellm: its concern in the run
// that reruns failing tests is a detection; the clean run gets none.
func TestEvalModelReviewer(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: flag
    model: adv
    match: ["Still failing. Running them once more."]
    steps:
      - tool_calls: [{name: advise, arguments: {note: "The same test fails the same way each time; read the assertion before rerunning.", severity: concern}}]
  - name: quiet
    model: adv
    repeat: true
    steps:
      - text: "Nothing to add."
`)
	addAdvisorModel(t, agentDir)
	labels := filepath.Join(work, "labels.tsv")
	tsv := "file\tlabel\tonset\tnote\n" +
		devFile("vigil/offcourse_repeat_failing_tests.jsonl") + "\toffcourse\t2\treruns\n" +
		devFile("vigil/clean_normal_fix.jsonl") + "\tclean\t\tfix\n"
	if err := os.WriteFile(labels, []byte(tsv), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, "eval", "--reviewer", "model", "--advisor-model", "fake/adv", labels)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"recall 1.00 (1/1)", "recall within 3 steps 1.00", "0 in", "advisor tokens:"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if len(srv.Requests()) == 0 {
		t.Error("the advisor model was never called")
	}
}
