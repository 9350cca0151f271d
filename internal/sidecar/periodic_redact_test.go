package sidecar

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
)

// recordingModel answers "NO_CHANGE" and keeps the requests it got.
type recordingModel struct{ reqs []llm.Request }

func (m *recordingModel) Stream(_ context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	m.reqs = append(m.reqs, req)
	return func(yield func(llm.Event, error) bool) {
		_ = yield(llm.Event{Type: llm.EventTextDelta, Text: "NO_CHANGE"}, nil) &&
			yield(llm.Event{Type: llm.EventUsage}, nil) &&
			yield(llm.Event{Type: llm.EventStop, StopReason: llm.StopEndTurn}, nil)
	}
}

// The review prompt carries the user's reviewInstructions, which may hold
// a secret: it is redacted like the transcript it follows.
func TestForkRedactsTheReviewPrompt(t *testing.T) {
	secret := "ghp_" + strings.Repeat("A1b2", 9)
	m := &recordingModel{}
	p := &PeriodicHost{Host: NewHost(), Model: m, Redactor: history.NewRedactor(nil, nil)}
	if _, err := p.Fork(context.Background(), "Review it. Our token is "+secret+"."); err != nil {
		t.Fatal(err)
	}
	if len(m.reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(m.reqs))
	}
	for _, msg := range m.reqs[0].Messages {
		for _, b := range msg.Content {
			if strings.Contains(b.Text, secret) {
				t.Errorf("the fork sent the secret: %q", b.Text)
			}
		}
	}
	if !strings.Contains(m.reqs[0].Messages[0].Content[1].Text, "Review it.") {
		t.Errorf("the review prompt is gone: %+v", m.reqs[0].Messages)
	}
}
