package advisor

import (
	"slices"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// noDetector is a Detector that finds nothing, so a runtime can be made
// without a model.
type noDetector struct{}

func (noDetector) Observe([]session.Entry) []Advice { return nil }
func (noDetector) Reset()                           {}

// A roster's tools: names the read-only tools as a WATCHDOG.yml writes
// them: grep is the advisor's search, glob its find.
func TestToolNamesTakeRosterNames(t *testing.T) {
	for _, tt := range []struct {
		names, want []string
	}{
		{[]string{"read", "grep"}, []string{"advise", "read", "search"}},
		{[]string{"glob"}, []string{"advise", "find"}},
		{[]string{"search", "find"}, []string{"advise", "search", "find"}},
		{nil, []string{"advise", "read", "search", "find"}},
	} {
		rt, err := New(Options{Host: &fakeHost{}, Detector: noDetector{}, Roots: []string{t.TempDir()}, ToolNames: tt.names})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range rt.Transcript().Tools {
			got = append(got, d.Name)
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("tools %q give %q, want %q", tt.names, got, tt.want)
		}
	}
}
