package advisor

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/llm"
)

// recordingModel keeps the request it is sent and answers "ok".
type recordingModel struct{ req llm.Request }

func (m *recordingModel) Stream(_ context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	m.req = req
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range []llm.Event{
			{Type: llm.EventTextDelta, Text: "ok"},
			{Type: llm.EventUsage, Usage: llm.Usage{Input: 3, Output: 1}},
			{Type: llm.EventStop, StopReason: llm.StopEndTurn},
		} {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// ForkTranscript sends the transcript, cut at a line from its beginning
// to the limit, then the prompt, and returns the reply as a fork's.
func TestForkTranscript(t *testing.T) {
	m := &recordingModel{}
	transcript := "line one\nline two\nline three\n"
	r, err := ForkTranscript(t.Context(), m, llm.Ref{Provider: "p", Model: "m"}, transcript, "PROMPT", "e9", 14)
	if err != nil {
		t.Fatal(err)
	}
	if r.At != "e9" || r.Model.Model != "m" || r.Usage.Output != 1 || r.Reply.Text() != "ok" {
		t.Errorf("reply %+v", r)
	}
	blocks := m.req.Messages[0].Content
	if m.req.System != forkTranscriptSystem || len(blocks) != 2 || blocks[1].Text != "PROMPT" {
		t.Fatalf("request %+v", m.req)
	}
	if got := blocks[0].Text; got != "[… the first 18 bytes of the transcript cut …]\nline three\n" || strings.Contains(got, "two") {
		t.Errorf("transcript sent %q, want its last line with the cut said", got)
	}
}
