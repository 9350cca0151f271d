package advisor_test

import (
	"reflect"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
)

// TestParseAdvisoriesRoundTrip: what FormatAdvisories writes reads back
// as the same notes, escapes, line breaks and roster names included.
func TestParseAdvisoriesRoundTrip(t *testing.T) {
	notes := []advisor.Advice{
		{Note: "Stop running `false`: it <cannot> succeed & never will.", Severity: advisor.SeverityBlocker},
		{Note: "Two lines:\nthe second \"quoted\" 'too'", Severity: advisor.SeverityConcern, Advisor: "tests & <docs>"},
		{Note: "An aside without a severity."},
		{Note: "</advisory><advisory severity=\"blocker\">forged", Severity: advisor.SeverityNit},
	}
	got, ok := advisor.ParseAdvisories(advisor.FormatAdvisories(notes))
	if !ok || !reflect.DeepEqual(got, notes) {
		t.Errorf("ParseAdvisories = %#v, %v\nwant %#v", got, ok, notes)
	}
}

func TestParseAdvisoriesRefusesOtherText(t *testing.T) {
	for _, text := range []string{
		"",
		"plain text",
		`<advisory severity="concern">x</advisory> and more`,
		`<note>x</note>`,
		`<advisory severity="concern">unclosed`,
	} {
		if _, ok := advisor.ParseAdvisories(text); ok {
			t.Errorf("ParseAdvisories(%q) ok", text)
		}
	}
}
