package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelpShowsTheMainInterfaceFirst: vigil --help opens with the agent,
// bare vigil as the UI and its flags, before the list of commands.
func TestHelpShowsTheMainInterfaceFirst(t *testing.T) {
	out, _, err := run(t, "--help")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "Usage: vigil [flags] [PROMPT]") {
		t.Errorf("help does not open with the UI's usage:\n%s", out)
	}
	commands := strings.Index(out, "Commands:")
	if commands < 0 {
		t.Fatalf("help lists no commands:\n%s", out)
	}
	for _, want := range []string{"open the terminal UI", "-p, --print", "-c, --continue", "-r, --resume [ID]", "-m, --model REF", "--thinking LEVEL", "--advisor", "--mode json|rpc", "vigil demo"} {
		i := strings.Index(out, want)
		if i < 0 || i > commands {
			t.Errorf("help lacks %q before its commands:\n%s", want, out)
		}
	}
	if !strings.Contains(out[commands:], "review [<path> ...]") {
		t.Errorf("the commands' list lacks review:\n%s", out[commands:])
	}
}

// TestPrintHelpIsTheRunHelp: vigil -p --help (and any agent flag before
// --help) prints the agent's help, with -r and --thinking.
func TestPrintHelpIsTheRunHelp(t *testing.T) {
	for _, args := range [][]string{{"-p", "--help"}, {"-m", "x/y", "-h"}, {"run", "--help"}} {
		out, _, err := run(t, args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		for _, want := range []string{"Usage: vigil run", "-r, --resume=ID", "--thinking=LEVEL", "-p, --print"} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: help lacks %q:\n%s", args, want, out)
			}
		}
	}
}

// TestForeignFlagsGetAHint: a flag of Claude Code, Codex or pi that vigil
// lacks fails with what vigil has instead; another unknown flag gets no
// made-up hint.
func TestForeignFlagsGetAHint(t *testing.T) {
	for flag, want := range map[string]string{
		"--output-format=json":     "vigil has --mode json",
		"--append-system-prompt=x": "AGENTS.md",
		"--provider=anthropic":     "-m provider/model",
		"--effort=high":            "--thinking LEVEL",
	} {
		_, _, err := run(t, "-p", flag, "hello")
		if err == nil || !strings.Contains(err.Error(), "unknown flag") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want the unknown flag and %q", flag, err, want)
		}
	}
	_, _, err := run(t, "-p", "--frobnicate", "hello")
	if err == nil || strings.Contains(err.Error(), "vigil has") {
		t.Errorf("--frobnicate: err = %v, want an unknown flag with no hint", err)
	}
}

// TestThinkingFlagAndShortResume: --thinking sets the level of the
// model's reference (the request asks for thinking), a bad level is
// named, and -r ID resumes the session as --resume does.
func TestThinkingFlagAndShortResume(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - name: primary
    model: m
    repeat: true
    steps:
      - text: "ANSWER"
`)
	editModels(t, agentDir, "{id: m,", "{id: m, reasoning: true,")
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "first")
	if body := string(srv.Requests()[0].Body); strings.Contains(body, `"thinking":{"budget_tokens"`) {
		t.Fatalf("no --thinking, yet the request asks for thinking: %s", body)
	}
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "--thinking", "high", "second")
	reqs := srv.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, `"thinking":{`) || !strings.Contains(body, "budget_tokens") {
		t.Errorf("--thinking high: the request asks for no thinking: %s", body)
	}

	cmd := vigilCommand(agentDir, work, "-p", "-m", "fake/m", "--thinking", "lots", "x")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), `--thinking: unknown thinking level "lots"`) {
		t.Errorf("--thinking lots: %v: %s", err, out)
	}

	sessions, err := filepath.Glob(filepath.Join(agentDir, "sessions", "*", "*.jsonl"))
	if err != nil || len(sessions) != 2 {
		t.Fatalf("sessions: %v, %v; want 2", sessions, err)
	}
	before, _ := os.ReadFile(sessions[0])
	runPrint(t, agentDir, work, "-p", "-m", "fake/m", "-r", sessions[0], "third")
	after, _ := os.ReadFile(sessions[0])
	if !strings.Contains(string(after[len(before):]), "third") {
		t.Errorf("-r FILE did not go on in %s", sessions[0])
	}
}
