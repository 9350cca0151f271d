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
	testscript.Main(findVigil{m}, map[string]func(){"vigil": vigilMain})
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

// testVigil is the path of the vigil testscript put in $PATH, found before
// any test changes $PATH (some give their processes a PATH of their own).
var testVigil string

// findVigil runs the tests once it has found testVigil.
type findVigil struct{ m *testing.M }

func (f findVigil) Run() int {
	path, err := exec.LookPath("vigil")
	if err != nil {
		fmt.Fprintln(os.Stderr, "vigil is not in $PATH (testscript.Main puts it there):", err)
		return 1
	}
	testVigil = path
	return f.m.Run()
}
