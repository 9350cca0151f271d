package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vigil-dev/vigil/internal/cli"
)

// TestMain lets the test binary act as the vigil command: testscript puts
// a copy of it named vigil first in $PATH, and run by that name it is vigil.
// The scripts (TestScripts) and the Go tests that drive a vigil process
// (vigilCommand) run it, so they exercise the real process (stdin, stdout,
// signals, exit status) without a separate build.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"vigil": vigilMain})
}

// vigilMain is cmd/vigil's main.
func vigilMain() {
	if err := cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, "vigil:", msg)
		}
		os.Exit(cli.ExitCode(err))
	}
}

// vigilPath is the vigil TestMain put in $PATH.
func vigilPath(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("vigil")
	if err != nil {
		t.Fatalf("vigil is not in $PATH (see TestMain): %v", err)
	}
	return path
}
