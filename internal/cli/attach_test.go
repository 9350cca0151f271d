package cli_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// attachHome is a throwaway home folder with a project (a git repository
// with a subfolder) and an installed vigil binary.
type attachHome struct {
	home, codexHome, project, sub, vigil string
}

func newAttachHome(t *testing.T) *attachHome {
	t.Helper()
	root := t.TempDir()
	h := &attachHome{
		home:      root,
		codexHome: filepath.Join(root, "codex-home"),
		project:   filepath.Join(root, "src", "app"),
		vigil:     filepath.Join(root, "bin", "vigil"),
	}
	h.sub = filepath.Join(h.project, "internal", "x")
	for _, d := range []string{filepath.Join(h.project, ".git"), h.sub, filepath.Dir(h.vigil)} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(h.vigil, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// run runs vigil in folder with HOME and CODEX_HOME inside the throwaway
// home, so no test touches a real settings file.
func (h *attachHome) run(t *testing.T, folder string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := vigilCommand(filepath.Join(h.home, "agent"), folder, args...)
	cmd.Env = append(cmd.Env, "HOME="+h.home, "CODEX_HOME="+h.codexHome, "TMPDIR="+os.TempDir())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code, ran := exitStatus(err)
	if !ran {
		t.Fatal(err)
	}
	return out.String(), errb.String(), code
}

func readString(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func wantIn(t *testing.T, what, text string, fragments ...string) {
	t.Helper()
	for _, f := range fragments {
		if !strings.Contains(text, f) {
			t.Errorf("%s lacks %q:\n%s", what, f, text)
		}
	}
}

func backups(t *testing.T, file string) []string {
	t.Helper()
	found, err := filepath.Glob(file + ".vigil-backup-*")
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func TestAttachClaudeCodeProject(t *testing.T) {
	h := newAttachHome(t)
	// The project's settings that are not shared (issue 28): the hooks
	// name this user's vigil.
	settings := filepath.Join(h.project, ".claude", "settings.local.json")
	// The project's MCP server is not shared either: Claude Code's local
	// scope, in ~/.claude.json under the project.
	mcpJSON := filepath.Join(h.home, ".claude.json")
	mcpWhere := mcpJSON + " (for " + h.project + " only, not shared)"
	original := "{\n  \"permissions\": {\n    \"allow\": [\"Bash(go test:*)\"]\n  },\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]\n      }\n    ]\n  }\n}\n"
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(original), 0o640); err != nil {
		t.Fatal(err)
	}

	// From a subfolder, the project is the git root.
	out, errOut, code := h.run(t, h.sub, "attach", "claude-code", "--command", h.vigil)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	wantIn(t, "output", out,
		"vigil attached to Claude Code in "+settings+":\n",
		"  added:   PostToolUse, PostToolUseFailure, Stop, SessionStart, UserPromptSubmit, SessionEnd, PreCompact\n",
		"  command: "+h.vigil+" hook claude-code\n",
		"  backup:  "+settings+".vigil-backup-",
		"sessions already running keep the ones they had",
		"vigil's MCP server (ask_advisor) registered in "+mcpWhere+" as mcpServers.vigil: "+h.vigil+" mcp\n")
	wantIn(t, ".claude.json", readString(t, mcpJSON), `"`+h.project+`": {`, `"command": "`+h.vigil+`"`, `"args": [`, `"mcp"`)
	if _, err := os.Stat(filepath.Join(h.project, ".mcp.json")); err == nil {
		t.Error("attach wrote the project's shared .mcp.json")
	}
	got := readString(t, settings)
	wantIn(t, "settings", got, `"command": "say done"`, `"Bash(go test:*)"`, `"command": "`+h.vigil+` hook claude-code",`, `"timeout": 45`)
	if b := backups(t, settings); len(b) != 1 || readString(t, b[0]) != original {
		t.Errorf("backups %v", b)
	}
	if info, err := os.Stat(settings); err != nil || info.Mode().Perm() != 0o640 {
		t.Errorf("mode after attach: %v %v", info.Mode(), err)
	}

	// Again: nothing to do, nothing written.
	out, errOut, code = h.run(t, h.project, "attach", "claude-code", "--command", h.vigil)
	if code != 0 || out != "vigil is already attached to Claude Code in "+settings+": nothing to change.\nIts MCP server (ask_advisor) is registered in "+mcpWhere+".\n" {
		t.Errorf("second attach: exit %d\n%s%s", code, out, errOut)
	}
	if readString(t, settings) != got || len(backups(t, settings)) != 1 {
		t.Error("the second attach wrote something")
	}

	// Detach restores the original, byte for byte.
	out, errOut, code = h.run(t, h.sub, "detach", "claude-code")
	if code != 0 {
		t.Fatalf("detach: exit %d\n%s", code, errOut)
	}
	wantIn(t, "detach output", out, "vigil detached from Claude Code in "+settings+":\n", "  removed: Stop, PostToolUse, PostToolUseFailure, SessionStart,")
	if b := backups(t, settings); len(b) != 0 {
		t.Errorf("backups left after detach gave back the original: %v", b)
	}
	if readString(t, settings) != original {
		t.Errorf("after detach:\n%s\nwant the original:\n%s", readString(t, settings), original)
	}
	wantIn(t, "detach output", out, "vigil's MCP server (ask_advisor) removed from "+mcpWhere)
	if got := readString(t, mcpJSON); got != "{}\n" {
		t.Errorf("detach left in %s:\n%s", mcpJSON, got)
	}
	out, _, code = h.run(t, h.sub, "detach", "claude-code")
	if code != 0 || !strings.HasPrefix(out, "vigil is not attached to Claude Code in "+settings) {
		t.Errorf("second detach: exit %d\n%s", code, out)
	}
}

func TestAttachChoosesTheFile(t *testing.T) {
	h := newAttachHome(t)
	other := filepath.Join(h.home, "elsewhere")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		file string
	}{
		{[]string{"claude-code", "--user"}, filepath.Join(h.home, ".claude", "settings.json")},
		{[]string{"claude-code", "--project", other}, filepath.Join(other, ".claude", "settings.local.json")},
		{[]string{"codex"}, filepath.Join(h.codexHome, "hooks.json")},
	} {
		out, errOut, code := h.run(t, h.sub, append(append([]string{"attach"}, tc.args...), "--command", h.vigil)...)
		if code != 0 {
			t.Fatalf("%v: exit %d\n%s", tc.args, code, errOut)
		}
		wantIn(t, "output", out, " in "+tc.file+":\n")
		entries := readString(t, tc.file)
		agent := tc.args[0]
		wantIn(t, tc.file, entries, `"command": "`+h.vigil+` hook `+agent+`"`)
		if agent == "codex" {
			wantIn(t, "codex output", out, "/hooks", "--dangerously-bypass-hook-trust", `[hooks.state."`+tc.file+`:EVENT:GROUP:HANDLER"]`)
			if strings.Contains(entries, "PostToolUseFailure") || strings.Contains(entries, "SessionEnd") {
				t.Errorf("Codex got Claude Code's events:\n%s", entries)
			}
		}
		if _, _, code := h.run(t, h.sub, append([]string{"detach"}, tc.args...)...); code != 0 {
			t.Errorf("detach %v: exit %d", tc.args, code)
		}
		// A file only vigil's hooks need goes once empty; the user's
		// Claude Code settings stay.
		if filepath.Base(tc.file) == "settings.json" {
			if got := readString(t, tc.file); got != "{}\n" {
				t.Errorf("after detach %v:\n%s", tc.args, got)
			}
		} else if _, err := os.Stat(tc.file); err == nil {
			t.Errorf("after detach %v, %s is left:\n%s", tc.args, tc.file, readString(t, tc.file))
		}
	}
	if _, err := os.Stat(filepath.Join(h.project, ".claude")); err == nil {
		t.Error("the project's settings were written")
	}
}

func TestAttachDryRun(t *testing.T) {
	h := newAttachHome(t)
	hooks := filepath.Join(h.codexHome, "hooks.json")
	out, errOut, code := h.run(t, h.sub, "attach", "codex", "--command", h.vigil, "--dry-run")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	wantIn(t, "dry run", out, "--- /dev/null\n+++ "+hooks+"\n@@ ", "+    \"Stop\": [\n", "dry run: "+hooks+" not written.\n")
	if _, err := os.Stat(h.codexHome); err == nil {
		t.Error("a dry run created files")
	}

	if _, _, code := h.run(t, h.sub, "attach", "codex", "--command", h.vigil); code != 0 {
		t.Fatal("attach failed")
	}
	before := readString(t, hooks)
	out, _, code = h.run(t, h.sub, "detach", "codex", "--dry-run")
	if code != 0 {
		t.Fatalf("detach --dry-run: exit %d", code)
	}
	wantIn(t, "detach dry run", out, "--- "+hooks+"\n+++ /dev/null\n", "-            \"command\": \""+h.vigil+" hook codex\",\n", "not written")
	if readString(t, hooks) != before || len(backups(t, hooks)) != 0 {
		t.Error("detach --dry-run wrote something")
	}
}

func TestAttachUpdatesTheBinary(t *testing.T) {
	h := newAttachHome(t)
	if _, _, code := h.run(t, h.project, "attach", "claude-code", "--command", h.vigil); code != 0 {
		t.Fatal("attach failed")
	}
	moved := filepath.Join(h.home, "opt", "my tools", "vigil")
	out, errOut, code := h.run(t, h.project, "attach", "claude-code", "--command", moved)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	wantIn(t, "output", out, "  updated: PostToolUse, PostToolUseFailure, Stop,", "  Stop was: "+h.vigil+" hook claude-code\n", "  command: '"+moved+"' hook claude-code\n")
	wantIn(t, "stderr", errOut, "no such file yet")
	settings := readString(t, filepath.Join(h.project, ".claude", "settings.local.json"))
	if strings.Contains(settings, h.vigil+" hook") || strings.Count(settings, `hook claude-code"`) != 7 {
		t.Errorf("settings after the move:\n%s", settings)
	}
}

func TestAttachRefusals(t *testing.T) {
	h := newAttachHome(t)
	settings := filepath.Join(h.project, ".claude", "settings.json")
	bad := "{\n  \"model\": \"opus\",\n}\n"
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(settings, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		// The test binary is one go test built: it will not stay.
		{[]string{"attach", "claude-code"}, 2, "pass --command PATH"},
		{[]string{"attach", "claude-code", "--command", filepath.Join(h.home, "bin", "advisor")}, 2, "its file name must start with vigil"},
		{[]string{"attach", "codex", "--project", h.project, "--command", h.vigil}, 2, "--project is for claude-code"},
		{[]string{"attach", "claude-code", "--user", "--project", h.project, "--command", h.vigil}, 2, "give one"},
		{[]string{"attach", "cursor", "--command", h.vigil}, 2, `must be one of "claude-code","codex"`},
		{[]string{"attach", "claude-code", "--project", filepath.Join(h.home, "typo"), "--command", h.vigil}, 2, "typo"},
		{[]string{"attach", "claude-code", "--command", h.vigil}, 1, "vigil: " + settings + ":3:1: a comma before '}': JSON allows no trailing comma\n"},
		{[]string{"detach", "claude-code"}, 1, settings + ":3:1: a comma before '}'"},
	} {
		_, errOut, code := h.run(t, h.sub, tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", tc.args, code, tc.code, tc.want, errOut)
		}
	}
	if readString(t, settings) != bad || len(backups(t, settings)) != 0 {
		t.Error("a refused command wrote something")
	}
}

// vigil attach codex registers vigil's MCP server in $CODEX_HOME/config.toml
// beside the hooks: a dry run shows it, attaching again changes nothing,
// vigil status shows it, and detach gives back the file as it was.
func TestAttachCodexMCP(t *testing.T) {
	h := newAttachHome(t)
	config := filepath.Join(h.codexHome, "config.toml")
	original := "# mine\nmodel = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n"
	write := func(text string) {
		t.Helper()
		if err := os.MkdirAll(h.codexHome, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(config, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(original)
	out, errOut, code := h.run(t, h.sub, "attach", "codex", "--command", h.vigil, "--dry-run")
	if code != 0 {
		t.Fatalf("dry run: exit %d\n%s", code, errOut)
	}
	wantIn(t, "dry run", out, "--- "+config+"\n+++ "+config+"\n", "+[mcp_servers.vigil]\n", "+command = \""+h.vigil+"\"\n", "+args = [\"mcp\"]\n", "dry run: "+config+" not written.\n")
	if readString(t, config) != original {
		t.Fatal("the dry run wrote config.toml")
	}
	out, errOut, code = h.run(t, h.sub, "attach", "codex", "--command", h.vigil)
	if code != 0 {
		t.Fatalf("attach: exit %d\n%s", code, errOut)
	}
	wantIn(t, "attach", out, "vigil's MCP server (ask_advisor) registered in "+config+" as mcp_servers.vigil: "+h.vigil+" mcp\n", "  backup:  "+config+".vigil-backup-")
	got := readString(t, config)
	if !strings.HasPrefix(got, original+"\n[mcp_servers.vigil]\n") {
		t.Errorf("config.toml:\n%s", got)
	}
	out, _, _ = h.run(t, h.sub, "attach", "codex", "--command", h.vigil)
	wantIn(t, "second attach", out, "nothing to change", "Its MCP server (ask_advisor) is registered in "+config)
	if readString(t, config) != got {
		t.Error("the second attach changed config.toml")
	}
	out, _, _ = h.run(t, h.sub, "status", "--json")
	wantIn(t, "status", out, `"mcp":{"file":"`+config+`","registered":true,"command":["`+h.vigil+`","mcp"]}`)
	out, _, _ = h.run(t, h.sub, "status")
	wantIn(t, "status", out, "ask_advisor: MCP server in "+config)
	out, errOut, code = h.run(t, h.sub, "detach", "codex")
	if code != 0 {
		t.Fatalf("detach: exit %d\n%s", code, errOut)
	}
	wantIn(t, "detach", out, "vigil's MCP server (ask_advisor) removed from "+config)
	if readString(t, config) != original {
		t.Errorf("after detach:\n%s\nwant:\n%s", readString(t, config), original)
	}

	// A server named vigil that is not vigil's: attach installs the hooks,
	// leaves it and says so; detach leaves it too.
	foreign := original + "\n[mcp_servers.vigil]\ncommand = \"npx\"\nargs = [\"vigil-mcp\"]\n"
	write(foreign)
	out, errOut, code = h.run(t, h.sub, "attach", "codex", "--command", h.vigil)
	if code != 0 {
		t.Fatalf("attach with a foreign vigil: exit %d\n%s", code, errOut)
	}
	wantIn(t, "stderr", errOut, "vigil: warning: "+config+": the MCP server mcp_servers.vigil is not vigil's (runs npx vigil-mcp): vigil leaves it alone")
	wantIn(t, "attach", out, "vigil attached to Codex in ")
	if strings.Contains(out, "registered in") || readString(t, config) != foreign {
		t.Errorf("attach touched the foreign server:\n%s", out)
	}
	out, _, _ = h.run(t, h.sub, "status")
	wantIn(t, "status", out, "the MCP server vigil in "+config+" is not vigil's")
	if _, _, code := h.run(t, h.sub, "detach", "codex"); code != 0 || readString(t, config) != foreign {
		t.Errorf("detach: exit %d, config:\n%s", code, readString(t, config))
	}

	// --no-mcp installs the hooks only.
	write(original)
	if _, _, code := h.run(t, h.sub, "attach", "codex", "--command", h.vigil, "--no-mcp"); code != 0 || readString(t, config) != original {
		t.Errorf("--no-mcp: exit %d, config:\n%s", code, readString(t, config))
	}
}

// A ~/.claude.json (where a project's MCP server goes) that is not valid JSON stops attach before it
// writes anything, hooks included, with the place of the fault.
func TestAttachRefusesABadMCPFile(t *testing.T) {
	h := newAttachHome(t)
	// The file the project's (unshared) MCP server goes into.
	mcpJSON := filepath.Join(h.home, ".claude.json")
	bad := "{\"mcpServers\": {\"a\": 1,}}\n"
	if err := os.WriteFile(mcpJSON, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := h.run(t, h.sub, "attach", "claude-code", "--command", h.vigil)
	if code != 1 || !strings.Contains(errOut, mcpJSON+":1:24: a comma before '}'") {
		t.Errorf("exit %d:\n%s", code, errOut)
	}
	if _, err := os.Stat(filepath.Join(h.project, ".claude")); err == nil {
		t.Error("the hooks were written")
	}
	if readString(t, mcpJSON) != bad {
		t.Error(".mcp.json changed")
	}
}
