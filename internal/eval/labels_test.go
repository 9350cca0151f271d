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
		{File: "a.jsonl", Path: filepath.Join("data", "a.jsonl"), Set: "data", Class: Offcourse, Onset: 4, Note: "loops\tmore", Line: 4},
		{File: "sub/b.traj.json.gz", Path: filepath.Join("data", "sub", "b.traj.json.gz"), Set: "data", Class: Clean, Line: 5},
		{File: "/abs/c.traj", Path: "/abs/c.traj", Set: "data", Class: Uncertain, Line: 6},
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

func TestParseSharedLabels(t *testing.T) {
	in := "local_file\trepo\tpath\tcommit\tformat\tlabel\tevidence\n" +
		"o/a/claude-session.jsonl\to/a\tx.jsonl\tabc\tclaude-code-session-jsonl\toffcourse\tonset 43. Steps 42-46 rerun it.\n" +
		"o/b/codex.jsonl\to/b\tx.jsonl\tabc\tcodex-rollout-jsonl\tclean\t7 steps, grant template\n"
	got, err := ParseLabels(strings.NewReader(in), filepath.Join("corpus", "sessions", "labels.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d labels, want 2: %+v", len(got), got)
	}
	if got[0].Class != Offcourse || got[0].Onset != 43 || got[0].Set != "sessions" || got[0].Path != filepath.Join("corpus", "sessions", "o", "a", "claude-session.jsonl") {
		t.Errorf("label 0: got %+v", got[0])
	}
	if got[1].Class != Clean || got[1].Onset != 0 || got[1].Note != "7 steps, grant template" {
		t.Errorf("label 1: got %+v", got[1])
	}
	_, err = ParseLabels(strings.NewReader("local_file\tlabel\tevidence\nx.jsonl\toffcourse\tloops a lot\n"), "labels.tsv")
	if err == nil || !strings.Contains(err.Error(), "labels.tsv:2: an offcourse run needs its onset") {
		t.Errorf("offcourse without an onset in its evidence: got %v", err)
	}
}

func TestSetName(t *testing.T) {
	for _, c := range []struct{ path, want string }{
		{"testdata/devset/labels.tsv", "devset"},
		{"testdata/devset/corpus.tsv", "corpus"},
		{"labels.tsv", "labels"},
	} {
		if got := SetName(c.path); got != c.want {
			t.Errorf("SetName(%q) = %q, want %q", c.path, got, c.want)
		}
	}
}
