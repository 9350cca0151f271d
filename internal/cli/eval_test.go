package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalDevSetJSON: vigil eval --json reports every labelled run of the
// dev set, with the tolerance and severity asked for (the text report is
// testdata/script/eval.txtar).
func TestEvalDevSetJSON(t *testing.T) {
	labels := filepath.Join(devset, "labels.tsv")
	out, errOut, code := runVigil(t, "eval", "--json", "--tolerance", "5", "--min-severity", "concern", labels)
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
