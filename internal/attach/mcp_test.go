package attach

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

const mcpVigil = "/opt/bin/vigil"

// attachMCPOK attaches and fails the test on an error.
func attachMCPOK(t *testing.T, data string, a Agent, vigil string) *Result {
	t.Helper()
	res, err := AttachMCP([]byte(data), "f", a, vigil)
	if err != nil {
		t.Fatalf("attach: %v", err)
	}
	return res
}

func detachMCPOK(t *testing.T, data string, a Agent) *Result {
	t.Helper()
	res, err := DetachMCP([]byte(data), "f", a)
	if err != nil {
		t.Fatalf("detach: %v", err)
	}
	return res
}

func TestMCPClaudeCodeNewFile(t *testing.T) {
	res := attachMCPOK(t, "", ClaudeCode, mcpVigil)
	want := "{\n  \"mcpServers\": {\n    \"vigil\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/bin/vigil\",\n      \"args\": [\n        \"mcp\"\n      ]\n    }\n  }\n}\n"
	if string(res.Data) != want {
		t.Fatalf("new .mcp.json:\n%s\nwant:\n%s", res.Data, want)
	}
	if len(res.Changes) != 1 || res.Changes[0] != (Change{Event: "mcpServers.vigil", Action: Added, Now: mcpVigil + " mcp"}) {
		t.Errorf("changes %+v", res.Changes)
	}
	en, err := MCPEntryIn(res.Data, "f", ClaudeCode)
	if err != nil || en == nil || !en.Ours || en.Command != mcpVigil || strings.Join(en.Args, " ") != "mcp" {
		t.Errorf("entry %+v %v", en, err)
	}
	// Idempotent: a second attach changes nothing.
	if again := attachMCPOK(t, string(res.Data), ClaudeCode, mcpVigil); len(again.Changes) != 0 || string(again.Data) != want {
		t.Errorf("second attach: %+v", again.Changes)
	}
	if d := detachMCPOK(t, string(res.Data), ClaudeCode); string(d.Data) != "{}\n" || len(d.Changes) != 1 || d.Changes[0].Action != Removed {
		t.Errorf("detach: %q %+v", d.Data, d.Changes)
	}
}

// The user's ~/.claude.json holds Claude Code's own state and other
// servers: attach adds vigil's after them, and detach gives the bytes back.
func TestMCPClaudeCodeKeepsTheRest(t *testing.T) {
	orig := "{\n\t\"numStartups\": 3,\n\t\"mcpServers\": {\n\t\t\"github\": {\"type\": \"http\", \"url\": \"https://x/mcp\", \"x-unknown\": [1, {\"a\": null}]}\n\t},\n\t\"projects\": {\"/p\": {\"mcpServers\": {}}}\n}\n"
	res := attachMCPOK(t, orig, ClaudeCode, mcpVigil)
	got := string(res.Data)
	for _, s := range []string{`"numStartups": 3`, `"github": {"type": "http", "url": "https://x/mcp", "x-unknown": [1, {"a": null}]},`, "\n\t\t\"vigil\": {\n\t\t\t\"type\": \"stdio\",", `"projects": {"/p": {"mcpServers": {}}}`} {
		if !strings.Contains(got, s) {
			t.Errorf("attached file lacks %q:\n%s", s, got)
		}
	}
	if d := detachMCPOK(t, got, ClaudeCode); string(d.Data) != orig {
		t.Errorf("detach:\n%s\nwant the original:\n%s", d.Data, orig)
	}
	// A file with only vigil's server loses the emptied mcpServers too.
	only := "{\"theme\": \"dark\"}\n"
	if d := detachMCPOK(t, string(attachMCPOK(t, only, ClaudeCode, mcpVigil).Data), ClaudeCode); string(d.Data) != only {
		t.Errorf("detach of a compact file: %q, want %q", d.Data, only)
	}
}

func TestMCPClaudeCodeUpdatesTheBinary(t *testing.T) {
	first := string(attachMCPOK(t, "{\"a\": 1}\n", ClaudeCode, "/old/vigil").Data)
	withEnv := strings.Replace(first, `"args": [`, `"env": {"VIGIL_X": "1"}, "args": [`, 1)
	res := attachMCPOK(t, withEnv, ClaudeCode, mcpVigil)
	if len(res.Changes) != 1 || res.Changes[0].Action != Updated || res.Changes[0].Was != "/old/vigil" || res.Changes[0].Now != mcpVigil {
		t.Fatalf("changes %+v", res.Changes)
	}
	if want := strings.Replace(withEnv, "/old/vigil", mcpVigil, 1); string(res.Data) != want {
		t.Errorf("update changed more than the command:\n%s\nwant:\n%s", res.Data, want)
	}
}

// A server named vigil that is not vigil's (another command, or vigil's
// hook binary, or not stdio) is left alone by attach, with a warning,
// and by detach.
func TestMCPClaudeCodeForeignEntry(t *testing.T) {
	for _, entry := range []string{
		`{"command": "npx", "args": ["-y", "vigil-mcp"]}`,
		`{"command": "/opt/bin/vigil-hook", "args": ["mcp"]}`,
		`{"type": "http", "url": "https://vigil.example/mcp"}`,
		`{"type": "sse", "command": "/opt/bin/vigil", "args": ["mcp"]}`,
		`"vigil"`,
	} {
		orig := "{\"mcpServers\": {\"vigil\": " + entry + "}}\n"
		res := attachMCPOK(t, orig, ClaudeCode, mcpVigil)
		if string(res.Data) != orig || len(res.Changes) != 0 {
			t.Errorf("%s: attach changed it:\n%s", entry, res.Data)
		}
		if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "the MCP server mcpServers.vigil is not vigil's") || !strings.Contains(res.Warnings[0], "rename or remove it") {
			t.Errorf("%s: warnings %q", entry, res.Warnings)
		}
		if d := detachMCPOK(t, orig, ClaudeCode); string(d.Data) != orig || len(d.Changes) != 0 {
			t.Errorf("%s: detach changed it:\n%s", entry, d.Data)
		}
		if en, err := MCPEntryIn([]byte(orig), "f", ClaudeCode); err != nil || en == nil || en.Ours {
			t.Errorf("%s: entry %+v %v", entry, en, err)
		}
	}
}

func TestMCPClaudeCodeHostile(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"[1, 2]\n", "f:1:1: the file holds a list: want a JSON object"},
		{"{\"mcpServers\": [1]}\n", "f:1:16: mcpServers: want an object of servers, found a list"},
		{"{\"mcpServers\": {\"vigil\": {}, \"vigil\": {}}}\n", `f:1:30: "vigil" appears twice in one object`},
		{"{\"mcpServers\": {\"vigil\": {\"command\": \"/opt/bin/vigil\", \"command\": \"x\"}}}\n", `"command" appears twice`},
		{"{\"mcpServers\": {},}\n", "f:1:19: a comma before '}'"},
		{"// comment\n{}\n", "f:1:1: a comment"},
	} {
		_, err := AttachMCP([]byte(tc.data), "f", ClaudeCode, mcpVigil)
		var ye *yamlfile.Error
		if err == nil || !errors.As(err, &ye) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("attach %q: %v, want %q", tc.data, err, tc.want)
		}
	}
	// detach ignores an mcpServers that is not an object (nothing of vigil's).
	if d := detachMCPOK(t, "{\"mcpServers\": 3}\n", ClaudeCode); len(d.Changes) != 0 {
		t.Errorf("detach: %+v", d.Changes)
	}
}

const codexConfig = `# Codex settings
model = "gpt-5" # the default
instructions = """
Be terse.
[mcp_servers.vigil]
"""

[model_providers.fake]
name = "fake"
base_url = "http://127.0.0.1:1/v1"
`

func TestMCPCodexAppendsAndDetachRestores(t *testing.T) {
	res := attachMCPOK(t, codexConfig, Codex, mcpVigil)
	want := codexConfig + "\n[mcp_servers.vigil]\ncommand = \"/opt/bin/vigil\"\nargs = [\"mcp\"]\n" + codexEnvVars
	if string(res.Data) != want {
		t.Fatalf("attached:\n%s\nwant:\n%s", res.Data, want)
	}
	if len(res.Changes) != 1 || res.Changes[0] != (Change{Event: "mcp_servers.vigil", Action: Added, Now: mcpVigil + " mcp"}) {
		t.Errorf("changes %+v", res.Changes)
	}
	if again := attachMCPOK(t, want, Codex, mcpVigil); len(again.Changes) != 0 || string(again.Data) != want {
		t.Errorf("second attach: %+v", again.Changes)
	}
	if d := detachMCPOK(t, want, Codex); string(d.Data) != codexConfig {
		t.Errorf("detach:\n%s\nwant the original:\n%s", d.Data, codexConfig)
	}
	// A new file; a file without a final newline.
	if got := string(attachMCPOK(t, "", Codex, mcpVigil).Data); got != "[mcp_servers.vigil]\ncommand = \"/opt/bin/vigil\"\nargs = [\"mcp\"]\n"+codexEnvVars {
		t.Errorf("new file:\n%s", got)
	}
	if got := string(attachMCPOK(t, `model = "x"`, Codex, mcpVigil).Data); !strings.HasPrefix(got, "model = \"x\"\n\n[mcp_servers.vigil]\n") {
		t.Errorf("no final newline:\n%s", got)
	}
	if d := detachMCPOK(t, "[mcp_servers.vigil]\ncommand = \"/opt/bin/vigil\"\nargs = [\"mcp\"]\n"+codexEnvVars, Codex); string(d.Data) != "" {
		t.Errorf("detach of vigil's only table: %q", d.Data)
	}
}

// vigil's table in the middle, with the user's own additions (a comment,
// an env sub-table, a timeout), and another table after it.
func TestMCPCodexEditsInPlace(t *testing.T) {
	orig := `model = "gpt-5"

[mcp_servers.docs]
command = "docs-mcp"

[mcp_servers.vigil] # vigil's advisor
command = '/old/vigil' # moved since
args = ["mcp"]
startup_timeout_sec = 20

[mcp_servers.vigil.env]
VIGIL_RUNTIME_DIR = "/run/v"

# the provider
[model_providers.fake]
name = "fake"
`
	res := attachMCPOK(t, orig, Codex, mcpVigil)
	want := strings.Replace(orig, `command = '/old/vigil' # moved since`, `command = "/opt/bin/vigil" # moved since`, 1)
	if string(res.Data) != want || len(res.Changes) != 1 || res.Changes[0].Action != Updated || res.Changes[0].Was != "/old/vigil" {
		t.Fatalf("update %+v:\n%s\nwant:\n%s", res.Changes, res.Data, want)
	}
	d := detachMCPOK(t, want, Codex)
	wantDetached := "model = \"gpt-5\"\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n\n# the provider\n[model_providers.fake]\nname = \"fake\"\n"
	if string(d.Data) != wantDetached {
		t.Errorf("detach:\n%s\nwant:\n%s", d.Data, wantDetached)
	}
}

func TestMCPCodexForeignEntry(t *testing.T) {
	for _, orig := range []string{
		"[mcp_servers.vigil]\ncommand = \"npx\"\nargs = [\"vigil-mcp\"]\n",
		"[mcp_servers.vigil]\nurl = \"https://vigil.example/mcp\"\n",
		"mcp_servers.vigil = 3\n",
	} {
		res := attachMCPOK(t, orig, Codex, mcpVigil)
		if string(res.Data) != orig || len(res.Changes) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "mcp_servers.vigil is not vigil's") {
			t.Errorf("%q: attach %+v %q", orig, res.Changes, res.Warnings)
		}
		if d := detachMCPOK(t, orig, Codex); string(d.Data) != orig {
			t.Errorf("%q: detach changed it", orig)
		}
	}
}

func TestMCPCodexRefusals(t *testing.T) {
	inline := "mcp_servers = { vigil = { command = \"/old/vigil\", args = [\"mcp\"] } }\n"
	// A header inside a multi-line string before the real (inline) entry:
	// editing the text would change the string, which the check catches.
	tricky := "note = '''\n[mcp_servers.vigil]\ncommand = \"/old/vigil\"\n'''\n[mcp_servers]\nvigil = { command = \"/old/vigil\", args = [\"mcp\"] }\n"
	for _, tc := range []struct {
		data   string
		detach bool
		want   string
	}{
		{"model = \n", false, "f:1:"},
		{"model = \"a\"\nmodel = \"b\"\n", false, "f:2:"},
		{"mcp_servers = 3\n", false, "mcp_servers: want a table of servers"},
		{inline, false, "not written as a [mcp_servers.vigil] table: edit its command by hand"},
		{inline, true, "not written as a [mcp_servers.vigil] table: remove it by hand"},
		{tricky, false, "without changing something else: edit it by hand"},
		{tricky, true, "without changing something else: edit it by hand"},
		{"model = \"a\"\n", true, ""},
	} {
		var err error
		if tc.detach {
			_, err = DetachMCP([]byte(tc.data), "f", Codex)
		} else {
			_, err = AttachMCP([]byte(tc.data), "f", Codex, mcpVigil)
		}
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.data, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%q (detach %v): %v, want %q", tc.data, tc.detach, err, tc.want)
		}
	}
}

func TestMCPBinary(t *testing.T) {
	dir := t.TempDir()
	hook := filepath.Join(dir, "vigil-hook")
	if err := os.WriteFile(hook, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if got := MCPBinary(hook); got != filepath.Join(dir, "vigil") {
		t.Errorf("MCPBinary(%s) = %s", hook, got)
	}
	if got := MCPBinary(mcpVigil); got != mcpVigil {
		t.Errorf("MCPBinary(%s) = %s", mcpVigil, got)
	}
}

// The plans on files: a project's .mcp.json attach created is removed
// when detach leaves it empty (backed up first), a dry run's diff shows
// it, and Status reports the entry at each scope.
func TestMCPPlansAndStatus(t *testing.T) {
	root := t.TempDir()
	l := Locations{Home: filepath.Join(root, "home"), Project: filepath.Join(root, "p")}
	for _, d := range []string{l.Home, l.Project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The project's shared .mcp.json, where an older vigil registered
	// (issue 28: vigil now registers the project's server in its
	// unshared local scope, in ~/.claude.json).
	mcpJSON := l.SharedMCPFile(ClaudeCode, Project)
	localJSON, _ := l.MCPFile(ClaudeCode, Project)
	codexTOML, _ := l.MCPFile(Codex, User)
	userJSON, _ := l.MCPFile(ClaudeCode, User)
	if mcpJSON != filepath.Join(l.Project, ".mcp.json") || localJSON != userJSON || l.MCPProject(ClaudeCode, Project) != l.Project || codexTOML != filepath.Join(l.Home, ".codex", "config.toml") || userJSON != filepath.Join(l.Home, ".claude.json") {
		t.Fatalf("files %s %s %s %s", mcpJSON, localJSON, codexTOML, userJSON)
	}
	if f, err := l.MCPFile(Pi, User); f != "" || err != nil {
		t.Errorf("pi: %q %v", f, err)
	}
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		a    Agent
		file string
	}{{ClaudeCode, mcpJSON}, {Codex, codexTOML}} {
		p, err := PlanMCPAttach(tc.file, tc.a, mcpVigil)
		if err != nil {
			t.Fatal(err)
		}
		if d := p.Diff(); !strings.Contains(d, "--- /dev/null\n+++ "+tc.file) || !strings.Contains(d, mcpVigil) {
			t.Errorf("dry run diff:\n%s", d)
		}
		if _, err := p.Write(now); err != nil {
			t.Fatal(err)
		}
		if tc.a == Codex {
			if info, _ := os.Stat(tc.file); info.Mode().Perm() != 0o600 {
				t.Errorf("new config.toml mode %v", info.Mode())
			}
		}
	}
	ats, err := Status(l)
	if err != nil {
		t.Fatal(err)
	}
	registered := map[string]bool{}
	for _, at := range ats {
		if at.MCP != nil && at.MCP.Registered() {
			registered[string(at.Agent)+"/"+string(at.Scope)+" "+at.MCP.File] = true
		}
		if (at.Agent == Pi || at.Agent == Omp) && at.MCP != nil {
			t.Errorf("%s has MCP status", at.Agent)
		}
	}
	if len(registered) != 2 || !registered["claude-code/project "+mcpJSON] || !registered["codex/user "+codexTOML] {
		t.Errorf("registered: %v", registered)
	}
	for _, tc := range []struct {
		a    Agent
		file string
	}{{ClaudeCode, mcpJSON}, {Codex, codexTOML}} {
		p, err := PlanMCPDetach(tc.file, tc.a)
		if err != nil {
			t.Fatal(err)
		}
		if !p.Remove || !strings.Contains(p.Diff(), "+++ /dev/null") {
			t.Errorf("%s: remove %v, diff:\n%s", tc.file, p.Remove, p.Diff())
		}
		backup, err := p.Write(now)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(tc.file); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s still there: %v", tc.file, err)
		}
		if backup != "" {
			t.Errorf("backup %s: detach keeps none (it removes only vigil's entry)", backup)
		}
	}
	// ~/.claude.json is Claude Code's own file: never removed.
	if err := os.WriteFile(userJSON, []byte("{\"mcpServers\": {\"vigil\": {\"command\": \"/opt/bin/vigil\", \"args\": [\"mcp\"]}}}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := PlanMCPDetach(userJSON, ClaudeCode)
	if err != nil || p.Remove || string(p.Data) != "{}\n" {
		t.Errorf("user detach: %v remove %v %q", err, p.Remove, p.Data)
	}
}

// codexEnvVars is the env_vars line of vigil's Codex entry.
const codexEnvVars = "env_vars = [\"VIGIL_RUNTIME_DIR\", \"XDG_RUNTIME_DIR\", \"TMPDIR\"]\n"

// FuzzMCP checks, for any input, both agents' MCP edits: they never
// panic; an attach that succeeds leaves a file that reads, which a second
// attach does not change and which registers vigil's server unless a
// server named vigil was there; and detach then gives back the input
// byte for byte when it had no such server (and, for TOML, ends its last
// line; for JSON, had no "mcpServers" that detach would leave empty).
func FuzzMCP(f *testing.F) {
	for _, s := range []string{
		"", "{}", "{\"mcpServers\": {\"x\": {}}}\n", codexConfig, "a = 1\n\n", "\n",
		"[mcp_servers.vigil]\ncommand = \"npx\"\n", "x = '''\n[mcp_servers.vigil]\n'''\n",
		"[mcp_servers]\nvigil = 1\n", "{\"mcpServers\": {\"vigil\": {\"command\": \"/v/vigil\", \"args\": [\"mcp\"]}}}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, a := range []Agent{ClaudeCode, Codex} {
			before, berr := MCPEntryIn(data, "f", a)
			res, err := AttachMCP(data, "f", a, mcpVigil)
			if err != nil {
				continue
			}
			en, err := MCPEntryIn(res.Data, "f", a)
			if err != nil {
				t.Fatalf("%s: attach wrote a file that does not read: %v\n%q", a, err, res.Data)
			}
			if before == nil && berr == nil && (en == nil || !en.Ours || en.Command != mcpVigil) {
				t.Fatalf("%s: attach did not register vigil: %+v\n%q", a, en, res.Data)
			}
			again, err := AttachMCP(res.Data, "f", a, mcpVigil)
			if err != nil || len(again.Changes) != 0 {
				t.Fatalf("%s: second attach: %v %+v", a, err, again)
			}
			if before != nil || berr != nil || (a == Codex && len(data) > 0 && !bytes.HasSuffix(data, []byte("\n"))) {
				continue
			}
			d, err := DetachMCP(res.Data, "f", a)
			if err != nil {
				t.Fatalf("%s: detach: %v\n%q", a, err, res.Data)
			}
			want := data
			if a == ClaudeCode && (len(bytes.TrimSpace(data)) == 0 || bytes.Contains(data, []byte("mcpServers"))) {
				// A new file leaves {} (PlanMCPDetach removes it); an
				// mcpServers that detach empties goes, as "hooks" does.
				continue
			}
			if !bytes.Equal(d.Data, want) {
				t.Fatalf("%s: detach after attach:\n%q\nwant:\n%q", a, d.Data, want)
			}
		}
	})
}
