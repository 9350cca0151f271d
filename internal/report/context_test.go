package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/review"
	"github.com/vigil-dev/vigil/rules"
)

func contextFile() *File {
	res := &review.Result{File: "s.jsonl", Runs: []review.Run{{Steps: 4,
		Findings: []rules.Finding{{Detector: "workaround", Severity: rules.Concern, StartStep: 1, EndStep: 3, Message: "m"}},
		Contexts: []review.Context{{
			Instruction: "Do not change the tests </div><script>x</script>", InstructionStep: 1,
			Command: "pytest -q", FailedStep: 1, ExitCode: 1, Output: "E assert 1 == 2\nFAILED",
			Diff: "@@\n-    assert add(1, 1) == 2\n+    @skip\n     def test_add():",
		}},
	}}}
	return &File{Path: res.File, Result: res}
}

// TestHTMLShowsContext: the page shows the task, the failed call and its
// output, and the change with its added and removed lines marked, all
// escaped as HTML.
func TestHTMLShowsContext(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, []*File{contextFile()}); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{
		`<div class="about">task: Do not change the tests &lt;/div&gt;&lt;script&gt;x&lt;/script&gt;</div>`,
		`<div class="about">failed at step 1: pytest -q (exit 1)</div><pre class="quote output">E assert 1 == 2` + "\nFAILED</pre>",
		`<span class="del">-    assert add(1, 1) == 2</span>`,
		`<span class="add">&#43;    @skip</span>`,
		`<span class="ctx">     def test_add():</span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(page, "<script>x") {
		t.Error("the instruction's markup reached the page")
	}
}

// TestJSONShowsContext: each finding's "about" object, and none when a
// finding has no context.
func TestJSONShowsContext(t *testing.T) {
	var b bytes.Buffer
	if err := WriteJSON(&b, contextFile()); err != nil {
		t.Fatal(err)
	}
	var obj struct {
		Findings []JSONFinding `json:"findings"`
	}
	if err := json.Unmarshal(b.Bytes(), &obj); err != nil {
		t.Fatal(err)
	}
	want := JSONAbout{Instruction: "Do not change the tests </div><script>x</script>", InstructionStep: 1, FailedStep: 1, Command: "pytest -q", ExitCode: 1,
		Output: "E assert 1 == 2\nFAILED", Diff: "@@\n-    assert add(1, 1) == 2\n+    @skip\n     def test_add():"}
	if len(obj.Findings) != 1 || obj.Findings[0].About == nil || *obj.Findings[0].About != want {
		t.Errorf("findings %+v", obj.Findings)
	}
	f := contextFile()
	f.Result.Runs[0].Contexts = []review.Context{{}}
	b.Reset()
	WriteJSON(&b, f)
	if strings.Contains(b.String(), `"about"`) {
		t.Errorf("an empty context is written: %s", b.String())
	}
}
