package cli_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fakellm"
)

// updateScripts rewrites the expected output a script's cmp compares with
// (go test ./internal/cli -run TestScripts -update).
var updateScripts = flag.Bool("update", false, "rewrite the expected files of TestScripts' cmp commands")

// TestScripts runs each testdata/script/*.txtar as what a user types and
// sees: vigil's commands, their output, and the files around them (the
// fakellm script, models.yml, settings) in one archive. docs/architecture.md
// says how to add one and run one.
//
// Each script starts in $WORK, the project folder (it holds an empty .git,
// so the project is $WORK), with HOME=$WORK/home and the agent folder
// $VIGIL_AGENT_DIR=$WORK/home/.vigil/agent: an archive file named
// home/.vigil/agent/config.yml is the user's settings. No provider key is
// set. $REPO is the repository's root, for its test data
// ($REPO/testdata/devset). vigil is the test binary itself (see TestMain),
// run as a process.
//
// Besides testscript's own commands, a script has these:
//
//	fakellm [-models FILE] SCRIPT [MODEL...]
//	    starts fakellm (internal/fakellm) answering from the archive file
//	    SCRIPT, for the rest of the script, and writes models.yml in the
//	    agent folder: provider "fake" at that server offering MODEL... (m
//	    when none is named). With -models, models.yml is FILE instead, in
//	    which ${FAKELLM_URL} is the server's address. Another fakellm
//	    replaces the first, whose script starts over.
//	requests [-with TEXT] [-without TEXT] [MODEL]
//	    lists the requests fakellm has answered so far (those for MODEL
//	    alone, if named; those whose body holds, or lacks, TEXT), one a
//	    line: the file requests/N.json it writes the body to (N counts
//	    every request from 1), the model, the rule (- when it has no
//	    name). grep PATTERN requests/N.json reads what the model was sent.
//	trust [DIR]
//	    trusts DIR (default: the current folder) as vigil trust DIR does
//	    (config.Trust), so that the project's settings apply.
//	exits CODE COMMAND [ARG...]
//	    runs COMMAND as exec does and fails unless it exits with CODE.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                filepath.Join("testdata", "script"),
		Setup:              scriptSetup,
		Cmds:               map[string]func(*testscript.TestScript, bool, []string){"fakellm": cmdFakellm, "requests": cmdRequests, "trust": cmdTrust, "exits": cmdExits},
		RequireUniqueNames: true,
		UpdateScripts:      *updateScripts,
	})
}

// scriptSetup lays out a script's home, agent folder and project.
func scriptSetup(env *testscript.Env) error {
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		return fmt.Errorf("script setup: %w", err)
	}
	home := filepath.Join(env.WorkDir, "home")
	agentDir := filepath.Join(home, ".vigil", "agent")
	// Sockets need a short path; $WORK can be long.
	run, err := os.MkdirTemp("", "vst")
	if err != nil {
		return fmt.Errorf("runtime folder: %w", err)
	}
	env.Defer(func() { os.RemoveAll(run) })
	for _, d := range []string{agentDir, filepath.Join(env.WorkDir, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return fmt.Errorf("script setup: %w", err)
		}
	}
	env.Setenv("REPO", repo)
	env.Setenv("HOME", home)
	env.Setenv("VIGIL_AGENT_DIR", agentDir)
	env.Setenv("VIGIL_RUNTIME_DIR", filepath.Join(run, "r"))
	env.Values[fakellmKey{}] = &scriptServer{}
	return nil
}

// fakellmKey is where a script's fakellm server is kept (ts.Value).
type fakellmKey struct{}

// scriptServer holds a script's fakellm server, once fakellm started it.
type scriptServer struct{ srv *fakellm.Server }

func cmdFakellm(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! fakellm")
	}
	fs := flag.NewFlagSet("fakellm", flag.ContinueOnError)
	modelsFile := fs.String("models", "", "models.yml to write, with ${FAKELLM_URL}")
	ts.Check(fs.Parse(args))
	if fs.NArg() < 1 {
		ts.Fatalf("usage: fakellm [-models FILE] SCRIPT [MODEL...]")
	}
	script, err := fakellm.ParseScript(fs.Arg(0), []byte(ts.ReadFile(fs.Arg(0))))
	ts.Check(err)
	srv, err := fakellm.Start(script)
	ts.Check(err)
	ts.Defer(func() { srv.Close() })
	ts.Value(fakellmKey{}).(*scriptServer).srv = srv

	var yml string
	if *modelsFile != "" {
		yml = os.Expand(ts.ReadFile(*modelsFile), func(v string) string {
			if v == "FAKELLM_URL" {
				return srv.URL()
			}
			return "$" + v
		})
	} else {
		ids := fs.Args()[1:]
		if len(ids) == 0 {
			ids = []string{"m"}
		}
		var b strings.Builder
		fmt.Fprintf(&b, "providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n", srv.URL())
		for _, id := range ids {
			fmt.Fprintf(&b, "      - {id: %s, contextWindow: 200000, maxTokens: 4096}\n", id)
		}
		yml = b.String()
	}
	ts.Check(os.WriteFile(filepath.Join(ts.Getenv("VIGIL_AGENT_DIR"), "models.yml"), []byte(yml), 0o600))
}

func cmdRequests(ts *testscript.TestScript, neg bool, args []string) {
	fs := flag.NewFlagSet("requests", flag.ContinueOnError)
	with := fs.String("with", "", "only requests whose body holds this text")
	without := fs.String("without", "", "only requests whose body lacks this text")
	if neg || fs.Parse(args) != nil || fs.NArg() > 1 {
		ts.Fatalf("usage: requests [-with TEXT] [-without TEXT] [MODEL]")
	}
	s := ts.Value(fakellmKey{}).(*scriptServer)
	if s.srv == nil {
		ts.Fatalf("requests: no fakellm started")
	}
	// Taking stdout now empties it, so that no requests print nothing.
	out := ts.Stdout()
	dir := ts.MkAbs("requests")
	ts.Check(os.MkdirAll(dir, 0o755))
	for i, r := range s.srv.Requests() {
		body := string(r.Body)
		switch {
		case fs.NArg() == 1 && r.Model != fs.Arg(0),
			*with != "" && !strings.Contains(body, *with),
			*without != "" && strings.Contains(body, *without):
			continue
		}
		name := fmt.Sprintf("%d.json", i+1)
		ts.Check(os.WriteFile(filepath.Join(dir, name), r.Body, 0o600))
		rule := r.Rule
		if rule == "" {
			rule = "-"
		}
		fmt.Fprintf(out, "requests/%s %s %s\n", name, r.Model, rule)
	}
}

func cmdTrust(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) > 1 {
		ts.Fatalf("usage: trust [DIR]")
	}
	dir := ts.MkAbs(".")
	if len(args) == 1 {
		dir = ts.MkAbs(args[0])
	}
	_, err := config.Trust(ts.Getenv("VIGIL_AGENT_DIR"), dir, false)
	ts.Check(err)
}

func cmdExits(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exits CODE COMMAND [ARG...]")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	err = ts.Exec(args[1], args[2:]...)
	got, ran := exitStatus(err)
	if !ran {
		ts.Fatalf("%s: %v", args[1], err)
	}
	if got != want {
		ts.Fatalf("%s exited with %d, want %d", strings.Join(args[1:], " "), got, want)
	}
}
