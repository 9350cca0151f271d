package cli_test

import (
	"strings"
	"testing"
)

// An advisor that is enabled with no model that resolves is reported on
// stderr, and the agent runs without it.
func TestAdvisorWithoutModelWarnsAndRuns(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"--advisor"}, "the advisor is enabled but no model is assigned"},
		{"unknown model", []string{"--advisor", "--advisor-model", "fake/nope"}, `advisor model fake/nope: provider fake has no model "nope"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - text: "answered without an advisor"
`)
			cmd := vigilCommand(agentDir, work, append([]string{"-m", "fake/m", "-p", "hi"}, tt.args...)...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("vigil: %v\n%s", err, stderr.String())
			}
			if !strings.Contains(string(out), "answered without an advisor") {
				t.Errorf("stdout = %q", out)
			}
			if !strings.Contains(stderr.String(), tt.want) {
				t.Errorf("stderr = %q, want %q", stderr.String(), tt.want)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("%d model requests, want the primary's one", n)
			}
		})
	}
}
