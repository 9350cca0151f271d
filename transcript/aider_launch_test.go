package transcript

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// TestAiderLaunchMessage: a launch line whose --message has several
// lines carries "> " on its first line only and the Markdown line break
// on its last; the lines between are the launch output, not a reply.
func TestAiderLaunchMessage(t *testing.T) {
	for _, flag := range []string{"--message", "-m", "--msg", "--message="} {
		t.Run(flag, func(t *testing.T) {
			sep := " "
			if strings.HasSuffix(flag, "=") {
				sep = ""
			}
			data := "# aider chat started at 2025-01-02 03:04:05\n\n" +
				"> /usr/local/bin/aider --yes-always " + flag + sep + "Fix the bug in calc.py.\n" +
				"\n" +
				"The tests fail: add(2, 3) is -1.  \n" +
				"> Aider v0.86.1  \n" +
				"> Main model: anthropic/claude-sonnet-4-20250514 with diff edit format, infinite output  \n\n" +
				"#### Fix the bug in calc.py.  \n" +
				"#### \n" +
				"#### The tests fail: add(2, 3) is -1.  \n\n" +
				"add() subtracts.\n\n" +
				"> Tokens: 2.4k sent, 61 received.  \n"
			r, err := readTranscript(strings.NewReader(data), "x.md")
			if err != nil || r.err != nil {
				t.Fatal(err, r.err)
			}
			run := r.runs[0]
			checkRun(t, run)
			if len(run.steps) != 1 || run.steps[0].Text() != "add() subtracts." {
				t.Fatalf("%d steps, first %q; want the one reply", len(run.steps), run.steps[0].Text())
			}
			out, ok := run.entries[0].Body.(*session.Custom)
			if !ok || !strings.Contains(out.Content[0].Text, "The tests fail: add(2, 3) is -1.\nAider v0.86.1") {
				t.Errorf("first entry %+v, want the launch output with the whole message", run.entries[0].Body)
			}
			if run.info.Model != "anthropic/claude-sonnet-4-20250514" {
				t.Errorf("model %q", run.info.Model)
			}
		})
	}
}

// TestAiderThinking: a reasoning model's thinking, which aider writes in
// the reply between <thinking-content-…> tags, is the reply's thinking,
// not its text, and its SEARCH/REPLACE blocks are no edits.
func TestAiderThinking(t *testing.T) {
	const tag = "thinking-content-7bbeb8e1441453ad999a0bbba8a46d4b"
	data := "# aider chat started at 2025-01-02 03:04:05\n\n" +
		"> Main model: deepseek/deepseek-reasoner with diff edit format  \n\n" +
		"#### fix add  \n\n" +
		"<" + tag + ">\n\nadd subtracts; maybe\n\ncalc.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n\n</" + tag + ">\n\n" +
		"add() subtracts. Fixing it.\n\n" +
		"calc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```\n\n" +
		"> Applied edit to calc.py  \n\n" +
		"#### and mul  \n\n" +
		"<" + tag + ">\n\ncut off while thinking\n"
	r, err := readTranscript(strings.NewReader(data), "x.md")
	if err != nil || r.err != nil {
		t.Fatal(err, r.err)
	}
	run := r.runs[0]
	checkRun(t, run)
	if len(run.steps) != 2 {
		t.Fatalf("%d steps, want 2", len(run.steps))
	}
	m := run.steps[0].Message().Message
	if m.Content[0].Type != llm.BlockThinking || !strings.HasPrefix(m.Content[0].Text, "add subtracts; maybe") || strings.Contains(m.Content[0].Text, tag) {
		t.Errorf("first block %+v, want the thinking without its tags", m.Content[0])
	}
	if got := run.steps[0].Text(); got != "add() subtracts. Fixing it.\n\ncalc.py\n```python\n<<<<<<< SEARCH\n    return a - b\n=======\n    return a + b\n>>>>>>> REPLACE\n```" {
		t.Errorf("text %q", got)
	}
	if calls := run.steps[0].Calls(); len(calls) != 1 {
		t.Errorf("%d calls, want the one block outside the thinking", len(calls))
	}
	last := run.steps[1].Message().Message
	if len(last.Content) != 1 || last.Content[0].Type != llm.BlockThinking || last.Content[0].Text != "cut off while thinking" {
		t.Errorf("last reply %+v, want only thinking", last.Content)
	}
}
