package cli_test

import (
	"strings"
	"testing"
)

// TestNoKeyPointsAtWhatWorks: with no model configured and no key, vigil
// stops with one line that also names what works without a key: the
// demo, vigil review, the rules reviewer through vigil attach, and a
// local model in models.yml.
func TestNoKeyPointsAtWhatWorks(t *testing.T) {
	for _, args := range [][]string{{"-p", "hi"}, {"--mode", "json", "hi"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			agentDir := isolate(t)
			stdout, stderr, err := run(t, args...)
			if err == nil {
				t.Fatal("no error")
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("more than one line: %q", msg)
			}
			for _, want := range []string{
				"no API key is set: set ANTHROPIC_API_KEY or OPENAI_API_KEY",
				agentDir,
				"vigil demo", "vigil review", "vigil attach", "zero-token rules reviewer", "auth: none in models.yml",
			} {
				if !strings.Contains(msg, want) {
					t.Errorf("error lacks %q: %s", want, msg)
				}
			}
			if stdout != "" || stderr != "" {
				t.Errorf("printed more: stdout %q, stderr %q", stdout, stderr)
			}
		})
	}
}
