// Command vigil-hook is the hook command `vigil attach` installs when it
// finds this binary beside vigil: `vigil-hook claude-code` and
// `vigil-hook codex` (and `vigil-hook pi`, `vigil-hook omp`, which vigil's
// extension in those agents runs when no sidecar answers) do what `vigil hook AGENT` does (forward the event
// on stdin to the session's sidecar and print its answer, starting
// `vigil sidecar` with the vigil beside it when none answers), and start
// in a few milliseconds, since they link nothing but the standard
// library and no package net (so the binary is static). See
// docs/attach.md.
//
// It fails open like `vigil hook`: whatever goes wrong, it prints
// nothing, exits 0 and says why in hook.log.
package main

import (
	"context"
	"fmt"
	"os"
	"slices"

	"github.com/vigil-dev/vigil/internal/hookwire"
)

const usage = "usage: vigil-hook claude-code|codex|pi|omp  (the hook command vigil attach installs; the event's JSON on stdin)\n"

func main() {
	args := os.Args[1:]
	if len(args) != 1 || !slices.Contains(hookwire.Agents(), args[0]) {
		if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
			fmt.Print(usage)
			return
		}
		fmt.Fprint(os.Stderr, usage)
		// Not 2: Claude Code takes a hook's exit status 2 as "block".
		os.Exit(1)
	}
	vigil, err := hookwire.Vigil()
	if err != nil {
		hookwire.Discard(os.Stdin)
		return
	}
	hookwire.Command(context.Background(), args[0], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv, vigil)
}
