// Command vigil watches coding agents and advises them when they go off
// course. See README.md.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/vigil-dev/vigil/internal/cli"
)

func main() {
	// cli.Run handles SIGINT and SIGTERM itself (the first cancels the
	// command, a second or a command still running 3 s later ends it).
	err := cli.Run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, "vigil:", msg)
		}
		os.Exit(cli.ExitCode(err))
	}
}
