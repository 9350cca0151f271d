package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/eval"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/replay"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/transcript"
)

// steps makes n steps, each a bash call of cmd(i) failing with out(i).
func steps(n int, cmd func(int) string) iter.Seq[transcript.Step] {
	return func(yield func(transcript.Step) bool) {
		var st transcript.Stepper
		prompt := session.Entry{ID: "u", Body: &session.Message{Message: llm.UserText("make the build pass")}}
		pending := []session.Entry{prompt}
		for i := 1; i <= n; i++ {
			id := fmt.Sprintf("c%d", i)
			args, _ := json.Marshal(map[string]string{"command": cmd(i)})
			pending = append(pending,
				session.Entry{ID: "a" + id, Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: id, Name: "bash", Arguments: args}}}}},
				session.Entry{ID: "r" + id, Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, true, llm.Text("make: *** [build] Error 2"))}}}})
			for _, e := range pending {
				for _, s := range st.Add(e) {
					if !yield(s) {
						return
					}
				}
			}
			pending = nil
		}
	}
}

func TestReplayModelNotesAtTheirStep(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - steps:
      - text: "Fine so far."
      - text: "Fine so far."
      - tool_calls: [{name: advise, arguments: {note: "make has failed three times the same way; read the error.", severity: concern}}]
  - repeat: true
    steps:
      - text: "Nothing new."
`))
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "adv"})
	if err != nil {
		t.Fatal(err)
	}
	r := &replay.Reviewer{Options: replay.Options{Model: m}}
	got, err := r.Review(context.Background(), steps(5, func(int) string { return "make build" }))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 {
		t.Fatalf("findings %+v, want one", got)
	}
	f := got[0]
	if f.StartStep != 3 || f.EndStep != 3 || f.Severity != rules.Concern || f.Detector != replay.DetectorName || !strings.Contains(f.Message, "three times") {
		t.Errorf("finding %+v, want the concern at step 3", f)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d advisor requests, want one per step (the review that advises ends with its advise call)", n)
	}
	if r.Spent().Output == 0 {
		t.Errorf("no tokens recorded")
	}
}

// everyFifth fires on the fifth step it sees.
type everyFifth struct{ n int }

func (d *everyFifth) Observe(entries []session.Entry) []advisor.Advice {
	var out []advisor.Advice
	for _, e := range entries {
		if m, ok := e.Body.(*session.Message); ok && m.Message.Role == llm.RoleAssistant {
			d.n++
			if d.n%5 == 0 {
				out = append(out, advisor.Advice{Note: fmt.Sprintf("Step %d repeats the last four with no change.", d.n), Severity: advisor.SeverityConcern})
			}
		}
	}
	return out
}

func (d *everyFifth) Reset() { d.n = 0 }

func TestReplayDetectorAloneIsFreshPerRun(t *testing.T) {
	r := &replay.Reviewer{Options: replay.Options{NewDetector: func() advisor.Detector { return &everyFifth{} }}}
	for run := range 2 {
		got, err := r.Review(context.Background(), steps(7, func(i int) string { return fmt.Sprintf("make build-%d", i) }))
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0].StartStep != 5 {
			t.Errorf("run %d: findings %+v, want one at step 5", run, got)
		}
	}
	if r.Spent().Total() != 0 {
		t.Errorf("the detector alone spent tokens: %+v", r.Spent())
	}
}

// The reviewer plugs into vigil eval.
var _ eval.Reviewer = (*replay.Reviewer)(nil)
