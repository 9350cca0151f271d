package attach

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// newRequest is a request for agent's file under a throwaway home, with
// a project that is a git repository; it reports into out and warn.
func newRequest(t *testing.T, agent Agent, file func(home, project string) string) (r *Request, out, warn *bytes.Buffer) {
	t.Helper()
	home := t.TempDir()
	project := filepath.Join(home, "src", "app")
	if err := os.MkdirAll(filepath.Join(project, ".git", "info"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, warn = new(bytes.Buffer), new(bytes.Buffer)
	r = &Request{Agent: agent, File: file(home, project), Home: home, Binary: filepath.Join(home, "bin", "vigil-hook"), Out: out, Warn: warn}
	return r, out, warn
}

func claudeProjectFile(_, project string) string {
	return filepath.Join(project, ".claude", "settings.local.json")
}

func wantLines(t *testing.T, what, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, got)
		}
	}
}

// TestRequestClaudeCode attaches, attaches again, and detaches Claude
// Code in a project: the hooks in settings.local.json, listed in the
// repository's exclude file, the MCP server under the project in
// ~/.claude.json; and detach leaves no file of vigil's behind.
func TestRequestClaudeCode(t *testing.T) {
	r, out, warn := newRequest(t, ClaudeCode, claudeProjectFile)
	project := filepath.Dir(filepath.Dir(r.File))
	if err := r.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	claudeJSON := filepath.Join(r.Home, ".claude.json")
	wantLines(t, "attach", out.String(),
		"vigil attached to Claude Code in "+r.File+":\n  added:   ",
		"  command: "+Command(r.Binary, ClaudeCode)+"\n",
		"  git:     listed in "+filepath.Join(project, ".git", "info", "exclude"),
		"vigil's MCP server (ask_advisor) registered in "+claudeJSON+" (for "+project+" only, not shared) as ",
		"Claude Code reads hooks and MCP servers when a session starts")
	if warn.Len() != 0 {
		t.Errorf("attach warned: %s", warn)
	}

	out.Reset()
	if err := r.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := "vigil is already attached to Claude Code in " + r.File + ": nothing to change.\nIts MCP server (ask_advisor) is registered in " + claudeJSON + " (for " + project + " only, not shared).\n"; out.String() != want {
		t.Errorf("second attach said\n%s\nwant\n%s", out, want)
	}

	out.Reset()
	r.DryRun = true
	if err := r.Detach(); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "dry detach", out.String(), "dry run: "+r.File+" not written.\n", "dry run: "+claudeJSON+" not written.\n")
	if _, err := os.Stat(r.File); err != nil {
		t.Fatalf("dry run removed the hooks file: %v", err)
	}

	out.Reset()
	r.DryRun = false
	if err := r.Detach(); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "detach", out.String(),
		"vigil detached from Claude Code in "+r.File+":\n  removed: ",
		"  "+r.File+" held nothing else and is removed.\n",
		"  git:     no longer listed in ",
		"vigil's MCP server (ask_advisor) removed from "+claudeJSON)
	if _, err := os.Stat(r.File); !os.IsNotExist(err) {
		t.Errorf("detach left %s: %v", r.File, err)
	}

	out.Reset()
	if err := r.Detach(); err != nil {
		t.Fatal(err)
	}
	if want := "vigil is not attached to Claude Code in " + r.File + ": nothing to change.\n"; out.String() != want {
		t.Errorf("second detach said %q, want %q", out, want)
	}
}

// TestRequestCodexDryRun: a dry run writes nothing and says so, and
// attach without the MCP server ends with how to trust the hooks.
func TestRequestCodexDryRun(t *testing.T) {
	r, out, _ := newRequest(t, Codex, func(home, _ string) string { return filepath.Join(home, ".codex", "hooks.json") })
	r.DryRun = true
	if err := r.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "dry attach", out.String(), "+++ ", "dry run: "+r.File+" not written.\n", "dry run: "+filepath.Join(r.Home, ".codex", "config.toml")+" not written.\n")
	if _, err := os.Stat(filepath.Dir(r.File)); !os.IsNotExist(err) {
		t.Fatalf("dry run wrote into %s: %v", filepath.Dir(r.File), err)
	}

	out.Reset()
	r.DryRun, r.NoMCP = false, true
	if err := r.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "attach", out.String(), "vigil attached to Codex in "+r.File+":\n", codexTrustNote(r.File))
	if strings.Contains(out.String(), "MCP server") {
		t.Errorf("attach with NoMCP registered the MCP server:\n%s", out)
	}
}

// TestRequestHookd: a new hookd.json is written before the hooks that
// need it, and a dry run names it without writing it.
func TestRequestHookd(t *testing.T) {
	r, out, _ := newRequest(t, ClaudeCode, claudeProjectFile)
	wrote := 0
	r.HookURL, r.HookdFile, r.NewHookd = "http://127.0.0.1:1/hook/secret/claude-code", "/agent/hookd.json", func() error { wrote++; return nil }
	r.NoMCP, r.DryRun = true, true
	if err := r.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "dry attach", out.String(), "dry run: /agent/hookd.json (vigil hookd's address and secret) not written.\n")
	if wrote != 0 {
		t.Fatal("a dry run wrote hookd.json")
	}
	out.Reset()
	r.DryRun = false
	if err := r.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	if wrote != 1 {
		t.Fatalf("hookd.json written %d times, want 1", wrote)
	}
	wantLines(t, "attach", out.String(), "  http:    "+r.HookURL+" (vigil hookd;")
}

// TestRequestExtensionMoves: attaching pi for every project moves the
// extension an older vigil wrote into the project, and detaching
// removes the user's.
func TestRequestExtensionMoves(t *testing.T) {
	r, out, _ := newRequest(t, Pi, func(home, _ string) string {
		return filepath.Join(home, ".pi", "agent", "extensions", "vigil.ts")
	})
	project := filepath.Join(r.Home, "src", "app")
	old := &Request{Agent: Pi, File: filepath.Join(project, ".pi", "extensions", "vigil.ts"), Scope: Project, Binary: r.Binary, Out: new(bytes.Buffer), Warn: new(bytes.Buffer)}
	if err := old.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "project attach", old.Out.(*bytes.Buffer).String(), "pi loads a project's extensions when it runs in "+project+" itself")

	r.Scope, r.OldFile = User, old.File
	if err := r.Attach(context.Background()); err != nil {
		t.Fatal(err)
	}
	wantLines(t, "attach", out.String(),
		"vigil attached to pi in "+r.File+":\n  added:   vigil's extension (vigil.ts)\n",
		"  moved:   from "+old.File+" ("+movedWhy(Pi)+")\n",
		"It serves every project you run pi in.\n")
	if _, err := os.Stat(old.File); !os.IsNotExist(err) {
		t.Errorf("the project's extension is still there: %v", err)
	}

	out.Reset()
	r.OldFile = ""
	if err := r.Detach(); err != nil {
		t.Fatal(err)
	}
	if want := "vigil detached from pi in " + r.File + ":\n  removed: vigil's extension\n"; out.String() != want {
		t.Errorf("detach said %q, want %q", out, want)
	}
}
