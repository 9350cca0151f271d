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

// aiderSample is the aider history testdata/docs.py writes.
const aiderSample = "aider/calc.aider.chat.history.md"

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
		// The fixture starts inside a session whose header is not in it:
		// a reply's tail, aider's output, a lint failure sent back, ^C.
		{time.Time{}, "", 4, 1},
		{time.Date(2026, 11, 30, 10, 2, 11, 0, time.UTC), "claude-sonnet-4-20250514", 1, 0},
		{time.Date(2026, 11, 30, 10, 2, 40, 0, time.UTC), "claude-sonnet-4-20250514", 6, 1},
		{time.Date(2026, 11, 30, 10, 15, 3, 0, time.UTC), "gpt-4o-mini", 6, 1},
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
	if kinds != "ouauuu" {
		t.Errorf("run 2 entry kinds %q, want output, user, assistant, its results, user, user", kinds)
	}
	if got := firstText(runResult{entries: run.entries[1:]}); got != "add returns the wrong result: add(2, 3) is -1. Fix it." {
		t.Errorf("prompt %q", got)
	}
	reply := run.steps[0]
	if !strings.HasPrefix(reply.Text(), "The `add` function subtracts its second argument") || !strings.Contains(reply.Text(), "<<<<<<< SEARCH\ndef add(a, b):\n    return a - b\n=======") || reply.Message().Model.Model != "claude-sonnet-4-20250514" {
		t.Errorf("reply %.120q", reply.Text())
	}
	// The reply's one SEARCH/REPLACE block is its call; aider's output
	// after it, its result.
	calls := reply.Calls()
	if len(calls) != 1 || calls[0].Name != "edit" || string(calls[0].Arguments) != `{"new_text":"def add(a, b):\n    return a + b\n","old_text":"def add(a, b):\n    return a - b\n","path":"calc.py"}` {
		t.Fatalf("calls %+v", calls)
	}
	res, ok := reply.Result(calls[0].ID)
	if out := resultText(res); !ok || res.IsError || out != "Tokens: 2.7k sent, 88 received. Cost: $0.0094 message, $0.0094 session.\nApplied edit to calc.py\nCommit 9e8d7c6 fix: Make add return the sum of its arguments\nYou can use /undo to undo and discard each aider commit." {
		t.Errorf("result %v %v %q", ok, res.IsError, out)
	}
	if u := r.runs[0].entries[2].Body.(*session.Message).Message.Text(); !strings.HasPrefix(u, "# Fix any errors below, if possible.\n\n## Running: flake8") || !strings.HasSuffix(u, "  6█    return a * c") {
		t.Errorf("multi-line prompt %q", u)
	}
	if got := r.runs[0].steps[0].Text(); got != "The tests call `mul` with two arguments, so it keeps its signature." {
		t.Errorf("the reply cut at the front: %q", got)
	}
	// The whole-format session's reply gives calc.py whole: a write of
	// its new content, answered by aider's output after it.
	whole := r.runs[3].steps[0]
	calls = whole.Calls()
	if len(calls) != 1 || calls[0].Name != "write" || string(calls[0].Arguments) != `{"content":"def add(a, b):\n    return a + b\n\n\ndef mul(a, b):\n    \"\"\"Return the product of a and b.\"\"\"\n    return a * b\n","path":"calc.py"}` {
		t.Fatalf("whole-format calls %+v", calls)
	}
	res, ok = whole.Result(calls[0].ID)
	if out := resultText(res); !ok || res.IsError || !strings.Contains(out, "\nApplied edit to calc.py\n") {
		t.Errorf("whole-format result %v %v %q", ok, res.IsError, out)
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

// TestAiderEdits checks the SEARCH/REPLACE blocks of replies: each is a
// call; aider's message about blocks that failed to match, written with
// "> " on its first line only, is their result and not the model's words;
// a block it names failed, the others applied.
func TestAiderEdits(t *testing.T) {
	data := "# aider chat started at 2025-01-02 03:04:05\n\n" +
		"#### fix add  \n\n" +
		"Fixing both.\n\ncalc.py\n```python\n<<<<<<< SEARCH\n    return a-b\n=======\n    return a+b\n>>>>>>> REPLACE\n```\n\n" +
		"```python\n<<<<<<< SEARCH\ndef mul(a, b):\n=======\ndef mul(a, b=1):\n>>>>>>> REPLACE\n```\n\n" +
		"> Tokens: 2.1k sent, 120 received.  \n> The LLM did not conform to the edit format.  \n" +
		"> https://aider.chat/docs/troubleshooting/edit-errors.html  \n>  \n" +
		"> # 1 SEARCH/REPLACE block failed to match!\n\n" +
		"## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in calc.py\n" +
		"<<<<<<< SEARCH\n    return a-b\n=======\n    return a+b\n>>>>>>> REPLACE\n\n" +
		"Did you mean to match some of these actual lines from calc.py?\n\n```\n    return a - b\n```\n\n" +
		"The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc\n\n" +
		"# The other 1 SEARCH/REPLACE block were applied successfully.\nDon't re-send them.\n" +
		"Just reply with fixed versions of the block above that failed to match.  \n\n" +
		"Sorry, the exact line:\n\ncalc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n\n" +
		"> Applied edit to calc.py  \n\n" +
		"#### thanks  \n\nYou're welcome.\n"
	r, err := readTranscript(strings.NewReader(data), "x.md")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	if got := statsOf(run); got != (stepStats{steps: 3, calls: 3, answered: 3, failed: 1}) {
		t.Errorf("stats %+v", got)
	}
	first := run.steps[0]
	calls := first.Calls()
	if len(calls) != 2 || string(calls[0].Arguments) != `{"new_text":"    return a+b\n","old_text":"    return a-b\n","path":"calc.py"}` ||
		string(calls[1].Arguments) != `{"new_text":"def mul(a, b=1):\n","old_text":"def mul(a, b):\n","path":"calc.py"}` {
		t.Fatalf("calls %+v", calls)
	}
	bad, _ := first.Result(calls[0].ID)
	good, _ := first.Result(calls[1].ID)
	if !bad.IsError || good.IsError || !strings.HasSuffix(resultText(bad), "Just reply with fixed versions of the block above that failed to match.") {
		t.Errorf("results %v %v %q", bad.IsError, good.IsError, resultText(bad))
	}
	if second := run.steps[1]; !strings.HasPrefix(second.Text(), "Sorry, the exact line:") || len(second.Calls()) != 1 {
		t.Errorf("the retry: %q, %d calls", second.Text(), len(second.Calls()))
	}
	if last := run.steps[2]; last.Text() != "You're welcome." || len(last.Calls()) != 0 {
		t.Errorf("last step %q", last.Text())
	}
}

// TestAiderWholeEdits checks replies in the whole edit format: each file
// given whole is a write call, named as aider's whole-file coder names it,
// and answered by the output after the reply.
func TestAiderWholeEdits(t *testing.T) {
	launch := "# aider chat started at 2026-11-30 10:15:03\n\n" +
		"> Model: gpt-4o-mini with whole edit format  \n> Added calc.py to the chat.  \n> Added docs/notes.md to the chat.  \n\n"
	data := launch +
		"#### fix add and note it  \n\n" +
		"Here are both files.\n\nsrc/calc.py\n```python\ndef add(a, b):\n    return a + b\n```\n\n" +
		"**docs/notes.md**\n```\n# Notes\n\n```\n\nTo run:\n```bash\npytest\n```\n\n" +
		"> Applied edit to calc.py  \n> Skipping edits to docs/notes.md  \n\n" +
		"#### /drop docs/notes.md  \n\n> Removed docs/notes.md from the chat  \n\n" +
		"#### again, without the note  \n\n" +
		"```\ndef add(a, b):\n    return b + a\n"
	r, err := readTranscript(strings.NewReader(data), "x.md")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	if got := statsOf(run); got != (stepStats{steps: 2, calls: 3, answered: 2, failed: 1}) {
		t.Errorf("stats %+v", got)
	}
	// A folder the model made up is dropped for the chat's file; the
	// bash block after a line that names no file is no edit.
	first := run.steps[0].Calls()
	if len(first) != 2 || first[0].Name != "write" || string(first[0].Arguments) != `{"content":"def add(a, b):\n    return a + b\n","path":"calc.py"}` ||
		string(first[1].Arguments) != `{"content":"# Notes\n\n","path":"docs/notes.md"}` {
		t.Fatalf("first reply's calls %+v", first)
	}
	applied, _ := run.steps[0].Result(first[0].ID)
	skipped, _ := run.steps[0].Result(first[1].ID)
	if applied.IsError || !skipped.IsError {
		t.Errorf("results: applied %v, skipped %v", applied.IsError, skipped.IsError)
	}
	// After /drop the chat holds one file: a block at the reply's start is
	// that file's, and a block the reply does not close ends with it.
	last := run.steps[1].Calls()
	if len(last) != 1 || string(last[0].Arguments) != `{"content":"def add(a, b):\n    return b + a\n","path":"calc.py"}` {
		t.Fatalf("last reply's calls %+v", last)
	}

	// In the diff edit format the same reply's blocks are not edits.
	diff := strings.Replace(data, "with whole edit format", "with diff edit format", 1)
	r, err = readTranscript(strings.NewReader(diff), "x.md")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	if got := statsOf(r.runs[0]); got != (stepStats{steps: 2}) {
		t.Errorf("diff format: stats %+v", got)
	}
}

func TestAiderTruncated(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", aiderSample))
	if err != nil {
		t.Fatal(err)
	}
	checkCuts(t, filepath.Base(aiderSample), data, 40)
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
	checkStopEarly(t, filepath.Base(aiderSample), data)
	checkIOError(t, ".aider.chat.history.md", bytes.Repeat(data, sniffSize/len(data)+2))
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
	f.Add([]byte("#### x  \n\na.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n\n> # 1 SEARCH/REPLACE block failed to match!\n\n## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in a.py\n<<<<<<< SEARCH\nx\n=======\n\nThe SEARCH section must exactly match\n\n# The other 2\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRead(data) })
}

// FuzzAiderWholeEdits checks the files read from any reply in the whole
// edit format: each names a file, and its content is whole lines of the
// reply.
func FuzzAiderWholeEdits(f *testing.F) {
	f.Add("calc.py\n```\na\n```\n\n```\nb", "calc.py")
	f.Add("x/calc.py\n```py\n```\nRun:\n```\nz\n```", "")
	f.Fuzz(func(t *testing.T, text, chat string) {
		var files []string
		if chat != "" {
			files = []string{chat}
		}
		for _, e := range aiderWholeEdits(text, files) {
			if e.path == "" || !e.whole || !strings.Contains(text+"\n", e.replace) {
				t.Errorf("edit %+v of %q", e, text)
			}
		}
	})
}

// FuzzAiderEdits checks the SEARCH/REPLACE blocks read from any reply:
// each names a file, and its texts are whole lines of the reply.
func FuzzAiderEdits(f *testing.F) {
	f.Add("calc.py\n```python\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n```\n<<<<<<< SEARCH\n=======\n>>>>>>> REPLACE")
	f.Add("```\n```\n`x.go`:\n<<<<<<< SEARCH\n=======\n")
	f.Fuzz(func(t *testing.T, text string) {
		for _, e := range aiderEdits(text) {
			if e.path == "" || !strings.Contains(text+"\n", e.search) || !strings.Contains(text+"\n", e.replace) {
				t.Errorf("edit %+v of %q", e, text)
			}
		}
	})
}
