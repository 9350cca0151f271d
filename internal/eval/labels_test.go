package eval

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseLabels(t *testing.T) {
	in := "# comment\n\nfile\tlabel\tonset\tnote\n" +
		"a.jsonl\toffcourse\t4\tloops\tmore\n" +
		"sub/b.traj.json.gz\tclean\t\t\n" +
		"/abs/c.traj\tuncertain\n"
	got, err := ParseLabels(strings.NewReader(in), filepath.Join("data", "labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Label{
		{File: "a.jsonl", Path: filepath.Join("data", "a.jsonl"), Class: Offcourse, Onset: 4, Note: "loops\tmore", Line: 4},
		{File: "sub/b.traj.json.gz", Path: filepath.Join("data", "sub", "b.traj.json.gz"), Class: Clean, Line: 5},
		{File: "/abs/c.traj", Path: "/abs/c.traj", Class: Uncertain, Line: 6},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d labels, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("label %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
}

func TestParseLabelsErrors(t *testing.T) {
	const header = "file\tlabel\tonset\tnote\n"
	for name, c := range map[string]struct{ in, want string }{
		"no header":          {"a.jsonl\tclean\t\t\n", "header"},
		"empty":              {"# nothing\n", "no header"},
		"unknown label":      {header + "a.jsonl\tbad\t\t\n", `unknown label "bad"`},
		"offcourse no onset": {header + "a.jsonl\toffcourse\t\t\n", "needs its onset"},
		"onset zero":         {header + "a.jsonl\toffcourse\t0\t\n", "needs its onset"},
		"clean with onset":   {header + "a.jsonl\tclean\t3\t\n", "only offcourse runs"},
		"one column":         {header + "a.jsonl\n", "separated by tabs"},
	} {
		_, err := ParseLabels(strings.NewReader(c.in), "labels.tsv")
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "labels.tsv") {
			t.Errorf("%s: got %v, want an error about %q naming the file", name, err, c.want)
		}
	}
}

func FuzzParseLabels(f *testing.F) {
	f.Add("file\tlabel\tonset\tnote\na.jsonl\toffcourse\t3\tx\nb.jsonl\tclean\t\t\n")
	f.Add("# c\nfile\tlabel\tonset\n\nc\tuncertain\t\t\t\n")
	f.Add("file\tlabel\tonset\tnote\r\nd\toffcourse\t-1\t\r\n")
	f.Fuzz(func(t *testing.T, in string) {
		labels, err := ParseLabels(strings.NewReader(in), "labels.tsv")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "labels.tsv") && !strings.HasPrefix(err.Error(), "read labels.tsv") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, l := range labels {
			switch {
			case l.Class == Offcourse && l.Onset < 1, l.Class != Offcourse && l.Onset != 0:
				t.Fatalf("bad onset in %+v", l)
			case l.Class != Offcourse && l.Class != Clean && l.Class != Uncertain:
				t.Fatalf("bad label in %+v", l)
			}
		}
	})
}
