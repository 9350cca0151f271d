// Package cli wires vigil's commands together. It is the only package that
// knows every other one; main calls [Run] and nothing else.
//
// It holds the command line, each command's Run, and the app that wires
// the agent, its session, its advisor and the models (the slash commands'
// Target and the RPC server's App); the logic they run lives in packages
// with one job each: internal/commands, internal/rpc, internal/sidecar
// and the others. internal/archtest keeps it so: only cmd/vigil imports
// it, and a type it declares is a command or a listed wiring type.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"

	"github.com/alecthomas/kong"

	"github.com/vigil-dev/vigil/internal/hookwire"
)

// Version is vigil's version, set at link time with
// -ldflags "-X github.com/vigil-dev/vigil/internal/cli.Version=v1.2.3";
// when unset it comes from the module's build information.
var Version = ""

// cliArgs is the command line.
type cliArgs struct {
	Version kong.VersionFlag `help:"Print vigil's version and exit."`

	Run    runCmd    `cmd:"" default:"withargs" help:"Run the coding agent: vigil -p PROMPT, or --mode json|rpc."`
	Models modelsCmd `cmd:"" help:"List the models vigil can use, and why the others cannot be used."`
	Ask    askCmd    `cmd:"" help:"Send one prompt to a model and stream its reply."`
	Demo   demoCmd   `cmd:"" help:"Watch the advisor step in on a scripted session in the terminal UI: no key, no network (--wire: the wire adapters)."`
	Review reviewCmd `cmd:"" help:"Show where recorded agent sessions went off course, with zero-token detectors: no model, no network."`
	Eval   evalCmd   `cmd:"" help:"Score a reviewer against a labelled set of transcripts: precision, recall, delay, false flags."`
	Trust  trustCmd  `cmd:"" help:"Trust a folder: its .vigil/config.yml may then choose models, turn the advisor on and let tools leave the project."`

	// vigil's hooks in Claude Code's and Codex's settings (docs/attach.md).
	Attach attachCmd `cmd:"" help:"Install vigil's hooks into Claude Code's or Codex's settings, so the advisor watches that agent."`
	Detach detachCmd `cmd:"" help:"Remove vigil's hooks from Claude Code's or Codex's settings, and nothing else."`

	// Read-only views of recorded sessions (docs/stats.md).
	Stats    statsCmd    `cmd:"" help:"Add up the usage and cost of recorded sessions per project, model, role and session."`
	Sessions sessionsCmd `cmd:"" help:"List this folder's sessions (--all: every folder's) with their subagents and advisor transcripts."`

	// The advisor attached to other agents through their hooks (docs/attach.md).
	Hook    hookCmd    `cmd:"" help:"Answer one hook event of an attached agent (Claude Code, Codex): the command vigil attach installs."`
	Sidecar sidecarCmd `cmd:"" hidden:"" help:"Follow one attached agent's session and run its advisor (started by vigil hook)."`
	Status  statusCmd  `cmd:"" help:"Show where vigil is attached (Claude Code, Codex) and the sidecars watching sessions now."`
	MCP     mcpCmd     `cmd:"" name:"mcp" help:"Serve the ask_advisor tool over MCP (stdio) to an attached agent, answered by the advisor watching its session."`
	Hookd   hookdCmd   `cmd:"" hidden:"" help:"Serve Claude Code's HTTP hooks on loopback (started by vigil hook)."`
	Serve   serveCmd   `cmd:"" help:"Run a fleet worker: review a tenant's sessions from NATS JetStream and publish the notes back."`
}

// env is what every command gets: its streams and its view of the world.
type env struct {
	ctx       context.Context
	stdin     io.Reader
	stdout    io.Writer
	stderr    io.Writer
	lookupEnv func(string) (string, bool)
}

// agentDir returns vigil's agent folder: $VIGIL_AGENT_DIR, or ~/.vigil/agent.
func (e *env) agentDir() (string, error) {
	if d, ok := e.lookupEnv("VIGIL_AGENT_DIR"); ok && d != "" {
		return d, nil
	}
	home, ok := e.lookupEnv("HOME")
	if !ok || home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("find the agent folder: set VIGIL_AGENT_DIR or HOME: %w", err)
		}
		home = h
	}
	return filepath.Join(home, ".vigil", "agent"), nil
}

// exitRequest is how kong's exit (after --help or --version) unwinds Run
// without ending the process.
type exitRequest struct{ code int }

// Run runs vigil with args (without the program name).
//
// Run handles SIGINT and SIGTERM itself: the first cancels ctx's child
// that the command runs in (its cause says which signal), and a command
// that has not returned stopGrace later, or when a second signal comes,
// ends the process with the signal's status (130, 143); one that returns
// an error after a signal gets that status too.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (err error) {
	ctx, signals := watchSignals(ctx, stderr)
	defer func() { err = signals.finish(err) }()
	if len(args) == 2 && args[0] == "hook" && (args[1] == "claude-code" || args[1] == "codex") {
		// The agents run this for every hook event: skip building the
		// command line's parser (a few milliseconds of reflection), and
		// run what vigil-hook runs, starting sidecars with this binary.
		self, err := os.Executable()
		if err != nil {
			hookwire.Discard(stdin)
			return nil // fail open: nowhere to start a sidecar from
		}
		hookwire.Command(ctx, args[1], stdin, stdout, stderr, os.LookupEnv, self)
		return nil
	}
	var cli cliArgs
	parser, err := kong.New(&cli,
		kong.Name("vigil"),
		kong.Description("vigil watches coding agents and advises them when they go off course."),
		kong.Writers(stdout, stderr),
		kong.Vars{"version": version()},
		kong.UsageOnError(),
		kong.Help(printHelp),
		kong.Exit(func(code int) { panic(exitRequest{code}) }),
	)
	if err != nil {
		return fmt.Errorf("build command line: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			req, ok := r.(exitRequest)
			if !ok {
				panic(r)
			}
			if req.code != 0 {
				err = fmt.Errorf("exit status %d", req.code)
			}
		}
	}()
	kctx, err := parser.Parse(helpArgs(resumeArgs(args)))
	if err != nil {
		return &exitError{code: exitUsage, err: foreignFlagHint(err)}
	}
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, lookupEnv: os.LookupEnv}
	return kctx.Run(e)
}

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
