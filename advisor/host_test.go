package advisor

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// recordingHost is the smallest Host: it records what it was asked to do.
type recordingHost struct {
	entries []session.Entry
	calls   []string
}

var _ Host = (*recordingHost)(nil)

func (h *recordingHost) Since(_ context.Context, cursor int) ([]session.Entry, int, error) {
	cursor = max(0, min(cursor, len(h.entries)))
	return h.entries[cursor:], len(h.entries), nil
}

func (h *recordingHost) View(_ context.Context) ([]session.Entry, int, error) {
	return h.entries, len(h.entries), nil
}

func (h *recordingHost) Aside(_ context.Context, n Advice) error {
	h.calls = append(h.calls, "aside "+n.Note)
	return nil
}

func (h *recordingHost) Steer(_ context.Context, n Advice) error {
	h.calls = append(h.calls, "steer "+n.Note)
	return nil
}

func (h *recordingHost) Card(_ context.Context, n Advice) error {
	h.calls = append(h.calls, "card "+n.Note)
	return nil
}

func (h *recordingHost) Resume(context.Context) error {
	h.calls = append(h.calls, "resume")
	return nil
}

func TestHostValuesAreSerialisable(t *testing.T) {
	tests := []struct {
		name string
		v    any
		want string
	}{
		{"step ended", Event{Kind: EventStepEnded, Cursor: 7}, `{"kind":"step_ended","cursor":7}`},
		{"user interrupted", Event{Kind: EventUserInterrupted}, `{"kind":"user_interrupted"}`},
		{"advice", Advice{Note: "x <y>", Severity: SeverityConcern}, `{"note":"x \u003cy\u003e","severity":"concern"}`},
		{"advice without severity", Advice{Note: "x"}, `{"note":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.v)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("got %s, want %s", b, tt.want)
			}
		})
	}
}
