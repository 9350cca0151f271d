package eval

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// devsetLabels are the labelled sets: the project's own recordings, its
// labels for the shared corpus's unlabelled folders, and the shared
// corpus's labelled sessions (read in place; absent on a machine without
// the shared folder, when those runs are left out).
var devsetLabels = []string{
	filepath.Join("..", "..", "testdata", "devset", "labels.tsv"),
	filepath.Join("..", "..", "testdata", "devset", "corpus.tsv"),
	filepath.Join("..", "..", "..", "shared", "corpus", "sessions", "labels.tsv"),
}

var showFindings = flag.Bool("devset.findings", false, "log every finding of the dev-set run")

// TestDevSet runs the rules reviewer over the dev set and logs the report
// (go test -run DevSet -v ./internal/eval). It checks that every run can
// be read and reviewed; the figures themselves are for people to judge. A
// run in a format this build has no reader for yet is skipped, not
// failed: readers land one format at a time.
func TestDevSet(t *testing.T) {
	var labels []string
	for _, l := range devsetLabels {
		if _, err := os.Stat(l); err != nil {
			t.Logf("%s: skipped: %v", l, err)
			continue
		}
		labels = append(labels, l)
	}
	if len(labels) == 0 {
		t.Skip("no dev set")
	}
	rep, err := Run(context.Background(), labels, RulesReviewer{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := rep.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if *showFindings {
		for _, r := range rep.Runs {
			for _, f := range r.Findings {
				fmt.Fprintf(&b, "%s (%s): %s\n", r.File, r.Class, f)
			}
		}
	}
	t.Log("\n" + b.String())
	for _, r := range rep.Runs {
		switch {
		case r.Absent:
			// A run of ../shared/corpus read in place: absent from a
			// clone that has no shared folder beside it.
		case strings.Contains(r.Error, "not a transcript format vigil knows"):
			t.Logf("%s: skipped, no reader for its format yet", r.File)
		case r.Error != "":
			t.Errorf("%s: %s", r.File, r.Error)
		case r.Steps == 0:
			t.Errorf("%s: no steps read", r.File)
		}
	}
}
