package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/session"
)

const aiderSample = "aider/chat-history.md"

func TestAiderSample(t *testing.T) {
	r := readTestdata(t, aiderSample)
	if r.format != FormatAider {
		t.Fatalf("format %q", r.format)
	}
	want := []struct {
		started time.Time
		model   string
		entries int
		steps   int
	}{
		// The fixture starts inside a session whose header is not in it.
		{time.Time{}, "", 4, 1},
		{time.Date(2024, 8, 5, 19, 33, 2, 0, time.UTC), "claude-3-5-sonnet-20240620", 1, 0},
		{time.Date(2024, 8, 5, 19, 33, 32, 0, time.UTC), "claude-3-5-sonnet-20240620", 6, 1},
		{time.Date(2024, 8, 5, 20, 39, 59, 0, time.UTC), "gpt-4o-mini", 6, 1},
	}
	if len(r.runs) != len(want) {
		t.Fatalf("%d runs, want %d", len(r.runs), len(want))
	}
	for i, w := range want {
		run := r.runs[i]
		checkRun(t, run)
		if run.info.Index != i || !run.info.Started.Equal(w.started) || run.info.Model != w.model {
			t.Errorf("run %d: %+v", i, run.info)
		}
		if len(run.entries) != w.entries || len(run.steps) != w.steps {
			t.Errorf("run %d: %d entries, %d steps; want %d, %d", i, len(run.entries), len(run.steps), w.entries, w.steps)
		}
	}
	run := r.runs[2]
	kinds := ""
	for _, e := range run.entries {
		switch b := e.Body.(type) {
		case *session.Message:
			kinds += string(b.Message.Role[0])
		case *session.Custom:
			kinds += "o"
			if b.CustomType != "aider_output" || b.InContext || !b.Display {
				t.Errorf("entry %s: %+v", e.ID, b)
			}
		}
	}
	if kinds != "ouaouu" {
		t.Errorf("run 2 entry kinds %q, want output, user, assistant, output, user, user", kinds)
	}
	if got := firstText(runResult{entries: run.entries[1:]}); got != "Use the Spinner instead of the inlined custom spinner" {
		t.Errorf("prompt %q", got)
	}
	reply := run.steps[0]
	if !strings.HasPrefix(reply.Text(), "Certainly! I'll modify the `run_install` function") || !strings.Contains(reply.Text(), "<<<<<<< SEARCH\ndef run_install(cmd):") || reply.Message().Model.Model != "claude-3-5-sonnet-20240620" {
		t.Errorf("reply %.120q", reply.Text())
	}
	out := run.entries[3].Body.(*session.Custom).Content[0].Text
	if out != "Tokens: 5,244 sent, 604 received. Cost: $0.02 request, $0.02 session.\nApplied edit to aider/utils.py\nCommit fd43cd4 feat: Use the Spinner instead of the inlined custom spinner\nYou can use /undo to revert and discard commit fd43cd4." {
		t.Errorf("output %q", out)
	}
	if u := r.runs[0].entries[2].Body.(*session.Message).Message.Text(); !strings.HasPrefix(u, "# Fix any errors below, if possible.\n\n## Running:") {
		t.Errorf("multi-line prompt %.60q", u)
	}
	if !r.noted("text before the first session header") || len(r.notes) != 1 {
		t.Errorf("notes %v", r.notes)
	}
}

func TestAiderShapes(t *testing.T) {
	data := "# aider chat started at 2025-01-02 03:04:05\n\n" +
		"> Main model: anthropic/claude-3-7-sonnet-20250219 with diff edit format, infinite output  \n\n" +
		"#### add a test  \n#### for parse  \n\n" +
		"I'll add it.\n\n# Plan\n\n1. write it\n\n" +
		"> Applied edit to parse_test.go  \n>  \n> Run tests? (Y)es/(N)o [Yes]: y  \n\n" +
		"#### /run go test ./...  \n\n" +
		"> FAIL  \n\n" +
		"# aider chat started at yesterday\n\n" +
		"#### hi  \n\nHello.\n"
	r, err := readTranscript(strings.NewReader(data), "x.md")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if len(r.runs) != 2 {
		t.Fatalf("%d runs", len(r.runs))
	}
	a := r.runs[0]
	checkRun(t, a)
	if a.info.Model != "anthropic/claude-3-7-sonnet-20250219" {
		t.Errorf("model %q", a.info.Model)
	}
	if firstText(runResult{entries: a.entries[1:]}) != "add a test\nfor parse" {
		t.Errorf("prompt %q", firstText(runResult{entries: a.entries[1:]}))
	}
	// A Markdown heading inside a reply is reply text, not a session.
	if len(a.steps) != 1 || a.steps[0].Text() != "I'll add it.\n\n# Plan\n\n1. write it" {
		t.Errorf("steps %d, text %q", len(a.steps), a.steps[0].Text())
	}
	if out := a.entries[3].Body.(*session.Custom).Content[0].Text; out != "Applied edit to parse_test.go\n\nRun tests? (Y)es/(N)o [Yes]: y" {
		t.Errorf("output %q", out)
	}
	if !r.runs[1].info.Started.IsZero() || !r.noted("session header with a time of an unknown form") {
		t.Errorf("run 1 %+v, notes %v", r.runs[1].info, r.notes)
	}
}

func TestAiderTruncated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", aiderSample))
	if err != nil {
		t.Fatal(err)
	}
	checkCuts(t, "chat-history.md", data, 40)
	// A cut inside a line keeps what was read and says so.
	r, err := readTranscript(bytes.NewReader(data[:len(data)-20]), "x.md")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if !r.noted("truncated last line") || len(r.runs) != 4 {
		t.Errorf("%d runs, notes %v", len(r.runs), r.notes)
	}
}

func TestAiderReadError(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", aiderSample))
	if err != nil {
		t.Fatal(err)
	}
	checkStopEarly(t, "chat-history.md", data)
	checkIOError(t, ".aider.chat.history.md", bytes.Repeat(data, 10))
}

func TestSniffAider(t *testing.T) {
	cases := []struct {
		name, file, head string
		want             bool
	}{
		{"header", "x.md", "# aider chat started at 2024-08-05 19:33:02\n\n> aider  \n", true},
		{"header later", "x.md", "stray\n\n# aider chat started at 2024-08-05 19:33:02\n", true},
		{"by name", "repo/.aider.chat.history.md", "some text\n", true},
		{"both prefixes, no header", "x.md", "#### fix it  \n\nDone.\n\n> Applied edit to a.go  \n", true},
		{"a readme", "README.md", "# aider\n\nAider is AI pair programming.\n\n> a quote\n", false},
		{"json", ".aider.chat.history.md", `{"history": []}`, false},
	}
	for _, c := range cases {
		if got := sniffAider([]byte(c.head), c.file); got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
	files := append(append(append([]string{aiderSample}, ohSamples...), sweSamples...), miniDict, miniList)
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		head := data[:min(len(data), sniffSize)]
		isAider := name == aiderSample
		if sniffAider(head, filepath.Base(name)) != isAider {
			t.Errorf("%s: aider's sniffer says %v", name, !isAider)
		}
		if isAider && (sniffOpenHands(head, name) || sniffSWEAgent(head, name) || sniffMiniSWEAgent(head, name)) {
			t.Errorf("%s: claimed by another sniffer", name)
		}
	}
}

func FuzzAider(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", aiderSample))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	f.Add([]byte("# aider chat started at 2024-01-01 00:00:00\n####\n>\n#### \n> \nx\n\n# aider chat started at \n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(data) })
}
