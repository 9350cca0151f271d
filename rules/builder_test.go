package rules

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// call is one tool call with its result, for building steps.
type call struct {
	tool   string
	args   map[string]any
	out    string
	isErr  bool
	silent bool // no result
}

// sh is a bash call: (command, output, isError).
func sh(cmd, out string, isErr bool) call {
	return call{tool: "bash", args: map[string]any{"command": cmd}, out: out, isErr: isErr}
}

// tool is a call of any tool.
func tool(name string, args map[string]any, out string, isErr bool) call {
	return call{tool: name, args: args, out: out, isErr: isErr}
}

// st describes one step: the reply's text, its calls, and the user
// messages before it.
type st struct {
	text  string
	calls []call
	notes []string
}

// do is a step that makes calls with no text.
func do(calls ...call) st { return st{calls: calls} }

// say is a step with text and calls.
func say(text string, calls ...call) st { return st{text: text, calls: calls} }

// build turns descriptions into numbered transcript steps.
func build(specs ...st) []transcript.Step {
	out := make([]transcript.Step, 0, len(specs))
	for i, s := range specs {
		n := i + 1
		var content []llm.Block
		if s.text != "" {
			content = append(content, llm.Text(s.text))
		}
		var results []session.Entry
		for k, c := range s.calls {
			id := fmt.Sprintf("c%d_%d", n, k)
			raw, err := json.Marshal(c.args)
			if err != nil {
				panic(err)
			}
			content = append(content, llm.ToolCall(id, c.tool, raw))
			if !c.silent {
				results = append(results, session.Entry{ID: "r" + id, Body: &session.Message{Message: llm.Message{
					Role:    llm.RoleUser,
					Content: []llm.Block{llm.ToolResult(id, c.isErr, llm.Text(c.out))},
				}}})
			}
		}
		var ctx []session.Entry
		for _, t := range s.notes {
			ctx = append(ctx, session.Entry{Body: &session.Message{Message: llm.UserText(t)}})
		}
		out = append(out, transcript.Step{
			N:       n,
			Reply:   session.Entry{ID: fmt.Sprint("a", n), Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: content}}},
			Results: results,
			Context: ctx,
		})
	}
	return out
}

// review runs a fresh engine with settings s over the steps.
func review(s Settings, specs ...st) []Finding {
	e := New(s)
	var out []Finding
	for _, step := range build(specs...) {
		out = append(out, e.Observe(step)...)
	}
	return out
}

// only keeps the findings of one detector.
func only(fs []Finding, name string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Detector == name {
			out = append(out, f)
		}
	}
	return out
}

// detectorCase is one table case: steps, and the steps at which the
// detector under test must report (EndStep values), in order.
type detectorCase struct {
	name  string
	steps []st
	want  []int
}

func runCases(t *testing.T, detector string, cases []detectorCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := only(review(Settings{}, c.steps...), detector)
			var ends []int
			for _, f := range got {
				ends = append(ends, f.EndStep)
				if f.Message == "" || f.StartStep > f.EndStep || f.StartStep < 1 {
					t.Errorf("malformed finding %+v", f)
				}
			}
			if fmt.Sprint(ends) != fmt.Sprint(c.want) {
				t.Errorf("%s reported at steps %v, want %v\nfindings: %v", detector, ends, c.want, got)
			}
		})
	}
}
