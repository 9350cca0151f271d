package cli_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/cli"
)

func run(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err = cli.Run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), err
}

// isolate points the agent folder at an empty temporary one and clears the
// provider keys, so the user's own setup never leaks into a test.
func isolate(t *testing.T) string {
	dir := t.TempDir()
	t.Setenv("VIGIL_AGENT_DIR", dir)
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	return dir
}
