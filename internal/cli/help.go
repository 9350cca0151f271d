package cli

import (
	"bytes"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/alecthomas/kong"
)

// mainHelp opens vigil --help: the main interface, the agent, before the
// list of commands.
const mainHelp = `Usage: vigil [flags] [PROMPT]        the terminal UI on this folder's agent
       vigil -p [flags] PROMPT      one prompt; the final answer on stdout
       vigil <command> [flags]

vigil is a coding agent with an advisor: a second model that watches the agent's
steps and steps in when it goes off course. It also watches Claude Code, Codex,
pi and omp (vigil attach), and reviews recorded sessions (vigil review).

The agent (vigil run --help lists every flag):
  vigil                     open the terminal UI; PROMPT, when given, is sent first
  -p, --print               run one prompt and print the final answer (or pipe it:
                            echo PROMPT | vigil -p)
  -c, --continue            continue the latest session of this folder
  -r, --resume [ID]         resume a session (vigil sessions lists them); alone,
                            pick one in the UI
  -m, --model REF           the model, provider/model[:thinking] (vigil models)
      --thinking LEVEL      off, minimal, low, medium, high or xhigh
      --advisor             watch the agent with the advisor (--advisor-model REF)
      --inline              keep the UI's transcript in the terminal's scrollback
                            (also: ui.inline; --no-inline for the whole screen)
      --mode json|rpc       every event as a JSON line, or JSON commands on stdin

In the UI: Enter sends (while a run goes: steers it), !command runs a command
without the model, /help lists the commands, ? the keys.

No key yet? vigil demo shows the advisor at work on a scripted model.

`

// printHelp is vigil's help: the main interface first at the top, each
// command's own help below it.
func printHelp(options kong.HelpOptions, ctx *kong.Context) error {
	if ctx.Selected() != nil {
		return kong.DefaultHelpPrinter(options, ctx)
	}
	var b bytes.Buffer
	out := ctx.Stdout
	ctx.Stdout = &b
	err := kong.DefaultHelpPrinter(options, ctx)
	ctx.Stdout = out
	if err != nil {
		return err
	}
	text := b.String()
	// The usage and flags kong puts first are in mainHelp.
	if i := strings.Index(text, "Commands:"); i >= 0 {
		text = text[i:]
	}
	_, err = io.WriteString(out, mainHelp+text)
	return err
}

// helpArgs sends a help request that names the agent's flags but no
// command (vigil -p --help) to the run command's help, as vigil -p runs
// the agent.
func helpArgs(args []string) []string {
	i := slices.IndexFunc(args, func(a string) bool { return a == "--help" || a == "-h" })
	if i <= 0 || !strings.HasPrefix(args[0], "-") {
		return args
	}
	return append([]string{"run"}, args...)
}

// foreignFlags are flags people type from other coding agents, with what
// vigil has instead.
var foreignFlags = map[string]string{
	"--output-format":        "--mode json (every event as a JSON line; with -p, the final answer is plain text)",
	"--input-format":         "--mode rpc (JSON commands on stdin; docs/rpc.md)",
	"--json":                 "--mode json",
	"--output-last-message":  "vigil -p PROMPT > FILE (stdout is the final answer)",
	"-o":                     "vigil -p PROMPT > FILE (stdout is the final answer)",
	"--system-prompt":        "AGENTS.md in the project (vigil reads it, and CLAUDE.md, into the system prompt)",
	"--append-system-prompt": "AGENTS.md in the project (vigil reads it, and CLAUDE.md, into the system prompt)",
	"--provider":             "-m provider/model",
	"--session":              "--resume FILE (or an id: vigil sessions lists them)",
	"--session-id":           "--resume ID",
	"--add-dir":              "tools.allowOutsideRoots in the settings (docs/config.md)",
	"--cd":                   "run vigil in that folder",
	"-C":                     "run vigil in that folder",
	"--api-key":              "the provider's key variable (ANTHROPIC_API_KEY, OPENAI_API_KEY) or models.yml (vigil models says which)",
	"--effort":               "--thinking LEVEL",
	"--reasoning-effort":     "--thinking LEVEL",
}

// foreignFlagHint adds to a command-line error about an unknown flag
// that another agent has what vigil offers instead.
func foreignFlagHint(err error) error {
	msg := err.Error()
	flag, ok := strings.CutPrefix(msg, "unknown flag ")
	if !ok {
		return err
	}
	flag, _, _ = strings.Cut(flag, ",")
	flag, _, _ = strings.Cut(strings.TrimSpace(flag), "=")
	hint, ok := foreignFlags[flag]
	if !ok {
		return err
	}
	return fmt.Errorf("%w; vigil has %s", err, hint)
}
