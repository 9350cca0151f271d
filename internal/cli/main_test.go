package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/vigil-dev/vigil/internal/cli"
)

// TestMain lets the test binary act as the vigil command: the end-to-end
// tests start it again with VIGIL_TEST_ARGS set, so they exercise the real
// process (stdin, stdout, signals) without a separate build.
func TestMain(m *testing.M) {
	if raw := os.Getenv("VIGIL_TEST_ARGS"); raw != "" {
		var args []string
		if err := json.Unmarshal([]byte(raw), &args); err != nil {
			fmt.Fprintln(os.Stderr, "VIGIL_TEST_ARGS:", err)
			os.Exit(2)
		}
		if err := cli.Run(context.Background(), args, os.Stdin, os.Stdout, os.Stderr); err != nil {
			if msg := err.Error(); msg != "" {
				fmt.Fprintln(os.Stderr, "vigil:", msg)
			}
			os.Exit(cli.ExitCode(err))
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}
