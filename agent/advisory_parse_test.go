package agent_test

import (
	"reflect"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
)

// TestParseAdvisoriesReadsBackFormat: what advisor.FormatAdvisories
// writes, with markup-like text, several lines and a roster's name, reads
// back as the notes it was made of.
func TestParseAdvisoriesReadsBackFormat(t *testing.T) {
	notes := []advisor.Advice{
		{Note: "x < 3 && y > \"2\"\nsecond line", Severity: advisor.SeverityConcern},
		{Note: "plain aside"},
		{Note: "</advisory> is text", Severity: advisor.SeverityBlocker, Advisor: "tests"},
	}
	want := []agent.Advisory{
		{Severity: "concern", Body: "x < 3 && y > \"2\"\nsecond line"},
		{Body: "plain aside"},
		{Advisor: "tests", Severity: "blocker", Body: "</advisory> is text"},
	}
	if got := agent.ParseAdvisories(advisor.FormatAdvisories(notes)); !reflect.DeepEqual(got, want) {
		t.Errorf("read back:\n got %#v\nwant %#v", got, want)
	}
	if got := agent.ParseAdvisories("no note here"); got != nil {
		t.Errorf("plain text: got %#v, want none", got)
	}
	for typ, want := range map[string]bool{"advisor": true, "advisor:periodic": true, "advisor-x": true, "advisory": false, "note": false} {
		if got := agent.IsAdvisorNote(typ); got != want {
			t.Errorf("IsAdvisorNote(%q) = %v, want %v", typ, got, want)
		}
	}
}
