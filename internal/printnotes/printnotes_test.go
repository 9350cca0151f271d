package printnotes_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/printnotes"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func note(typ, details string, notes ...advisor.Advice) *session.Entry {
	c := &session.Custom{CustomType: typ, Content: []llm.Block{llm.Text(advisor.FormatAdvisories(notes))}}
	if details != "" {
		c.Details = json.RawMessage(details)
	}
	return &session.Entry{Body: c}
}

func TestLines(t *testing.T) {
	for _, tc := range []struct {
		name string
		ev   agent.Event
		want []string
	}{
		{"steer", agent.Event{Type: agent.EventSteerDelivered, Entry: note("advisor", `{"delivery":"steer"}`, advisor.Advice{Note: "Stop running false.\nIt cannot pass.", Severity: advisor.SeverityConcern})},
			[]string{"vigil: concern from the advisor: Stop running false. It cannot pass."}},
		{"an aside batch from a roster", agent.Event{Type: agent.EventInjectionDelivered, Entry: note("advisor", "",
			advisor.Advice{Note: "Rename x.", Severity: advisor.SeverityNit, Advisor: "style"},
			advisor.Advice{Note: "No severity."})},
			[]string{"vigil: nit from advisor style: Rename x.", "vigil: note from the advisor: No severity."}},
		{"withheld", agent.Event{Type: agent.EventCustomAppended, Entry: note("advisor", `{"delivery":"withheld"}`, advisor.Advice{Note: "Tests were skipped.", Severity: advisor.SeverityBlocker})},
			[]string{"vigil: blocker from the advisor (withheld: not sent to the agent): Tests were skipped."}},
		{"a note that tries to drive the terminal", agent.Event{Type: agent.EventCustomAppended, Entry: &session.Entry{Body: &session.Custom{CustomType: "advisor", Content: []llm.Block{llm.Text("\x1b]0;pwned\x07\x1b[2Jhi\u202e")}}}},
			[]string{`vigil: note from the advisor: \x1b]0;pwned\x07\x1b[2Jhi\u202e`}},
		{"a steer as plain text", agent.Event{Type: agent.EventSteerDelivered, Entry: &session.Entry{Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text(advisor.FormatAdvisories([]advisor.Advice{{Note: "Plain.", Severity: advisor.SeverityConcern}}))}}}}},
			[]string{"vigil: concern from the advisor: Plain."}},
		{"the user's steer", agent.Event{Type: agent.EventSteerDelivered, Entry: &session.Entry{Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("use go test")}}}}}, nil},
		{"another custom entry", agent.Event{Type: agent.EventCustomAppended, Entry: &session.Entry{Body: &session.Custom{CustomType: "advisor_promotion", Content: []llm.Block{llm.Text("promoted")}}}}, nil},
		{"advice quoted in a reply", agent.Event{Type: agent.EventMessageEnd, Entry: note("advisor", "", advisor.Advice{Note: "x", Severity: advisor.SeverityBlocker})}, nil},
		{"a failed delivery", agent.Event{Type: agent.EventSteerDelivered, Err: errString("disk full")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := printnotes.Lines(tc.ev)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("Lines =\n  %q\nwant\n  %q", got, tc.want)
			}
		})
	}
}

// TestTo writes each note on its own line.
func TestTo(t *testing.T) {
	var b strings.Builder
	sub := printnotes.To(&b)
	sub(agent.Event{Type: agent.EventStepStart})
	sub(agent.Event{Type: agent.EventSteerDelivered, Entry: note("advisor", "", advisor.Advice{Note: "One.", Severity: advisor.SeverityConcern})})
	sub(agent.Event{Type: agent.EventSteerDelivered, Entry: note("advisor", "", advisor.Advice{Note: "Two.", Severity: advisor.SeverityBlocker})})
	if got, want := b.String(), "vigil: concern from the advisor: One.\nvigil: blocker from the advisor: Two.\n"; got != want {
		t.Errorf("wrote %q, want %q", got, want)
	}
}

type errString string

func (e errString) Error() string { return string(e) }
