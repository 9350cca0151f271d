package report

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/transcript"
)

// flat folds the report's white space, the wraps included, to single
// spaces, so that a test can look for a text whole.
func flat(out string) string { return strings.Join(strings.Fields(out), " ") }

func TestWrapWords(t *testing.T) {
	for _, c := range []struct {
		text  string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"one two three", 7, []string{"one two", "three"}},
		{"one   two", 20, []string{"one two"}},
		{"ab abcdefghij xy", 4, []string{"ab", "abcdefghij", "xy"}}, // a long word runs over
		{"é é é é", 3, []string{"é é", "é é"}},
	} {
		if got := wrapWords(c.text, c.width); strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", c.text, c.width, got, c.want)
		}
	}
	if got := chop("  abcdef", 3); strings.Join(got, "|") != "  a|bcd|ef" {
		t.Errorf("chop = %q", got)
	}
}

// TestTextHangingIndent: a finding whose message, evidence and context
// run long keeps every line within 80 columns, each continuation at the
// column where the message starts, and the context (task, failed call
// with its output, change) under it.
func TestTextHangingIndent(t *testing.T) {
	long := strings.Repeat("word ", 40)
	res := &review.Result{File: "s.jsonl", Format: transcript.FormatVigil, Runs: []review.Run{{
		Steps: 5,
		Findings: []rules.Finding{{Detector: "repeated-failure", Severity: rules.Concern, StartStep: 2, EndStep: 4,
			Message: "the same command failed " + long, Evidence: "FAILED " + long}},
		Contexts: []review.Context{{
			Instruction: "fix the bug " + long, InstructionStep: 3,
			Command: "python3 -m unittest -q", FailedStep: 4, ExitCode: 1,
			Output: "Traceback:\n\tFile x.py\n" + strings.Repeat("-", 100) + "\n\nFAILED (failures=1)",
			Diff:   "@@\n-    return a - b\n+    return a + b",
		}},
	}}}
	var b bytes.Buffer
	if err := WriteText(&b, &File{Path: res.File, Result: res}, Style{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	hang := strings.Index(lines[1], "the same")
	if hang <= 0 {
		t.Fatalf("no message on the finding's line:\n%s", out)
	}
	for i, l := range lines {
		if n := utf8.RuneCountInString(l); n > Width {
			t.Errorf("line %d is %d columns:\n%s", i+1, n, l)
		}
		if i >= 2 && l != "" && len(l)-len(strings.TrimLeft(l, " ")) < hang {
			t.Errorf("line %d is not at the hanging indent (%d):\n%s", i+1, hang, out)
		}
		if strings.HasSuffix(l, " ") {
			t.Errorf("line %d ends in a space: %q", i+1, l)
		}
	}
	folded := flat(out)
	for _, want := range []string{
		"the same command failed " + strings.TrimSpace(long),
		"evidence: FAILED " + strings.TrimSpace(long),
		"instruction (before step 3): fix the bug " + strings.TrimSpace(long),
		"failed at step 4: python3 -m unittest -q (exit 1)",
		"\n" + strings.Repeat(" ", hang+2) + "Traceback:\n",
		"\n" + strings.Repeat(" ", hang+2) + "    File x.py\n", // a tab expanded
		"\n" + strings.Repeat(" ", hang+2) + "FAILED (failures=1)\n",
		"change:",
		"\n" + strings.Repeat(" ", hang+2) + "-    return a - b\n",
		"\n" + strings.Repeat(" ", hang+2) + "+    return a + b\n",
	} {
		if !strings.Contains(folded, want) && !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "\n"+strings.Repeat(" ", hang+2)+strings.Repeat("-", Width-hang-2)+"\n") {
		t.Errorf("a long output line is not broken at 80 columns:\n%s", out)
	}
}

// TestTextTaskLabel: the run's first instruction is its task.
func TestTextTaskLabel(t *testing.T) {
	res := &review.Result{File: "s.jsonl", Runs: []review.Run{{Steps: 1,
		Findings: []rules.Finding{{Detector: "forbidden-edit", Severity: rules.Concern, StartStep: 1, EndStep: 1, Message: "m"}},
		Contexts: []review.Context{{Instruction: "do not change the tests", InstructionStep: 1}},
	}}}
	var b bytes.Buffer
	WriteText(&b, &File{Path: res.File, Result: res}, Style{Color: true})
	if !strings.Contains(b.String(), ansiDim+"task: do not change the tests"+ansiReset) {
		t.Errorf("no task line:\n%q", b.String())
	}
}
