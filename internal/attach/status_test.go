package attach

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestStatus(t *testing.T) {
	root := t.TempDir()
	loc := Locations{Home: filepath.Join(root, "home"), CodexHome: filepath.Join(root, "codex"), Project: filepath.Join(root, "proj")}
	installed := filepath.Join(root, "bin", "vigil")
	write := func(file, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(installed, "#!/bin/sh\n")
	attached := func(a Agent, binary string) string {
		res, err := Attach([]byte(userSettings), "x", a, binary)
		if err != nil {
			t.Fatal(err)
		}
		return string(res.Data)
	}
	// The project's Claude Code settings run the installed vigil; Codex's
	// user hooks run one that has gone, and lack an event; the user's
	// Claude Code settings are not JSON.
	write(filepath.Join(loc.Project, ".claude", "settings.local.json"), attached(ClaudeCode, installed))
	fresh, err := Attach(nil, "x", Codex, "/gone/vigil")
	if err != nil {
		t.Fatal(err)
	}
	partial := strings.Replace(string(fresh.Data), `"Stop": [`, `"Gone": [`, 1)
	write(filepath.Join(loc.CodexHome, "hooks.json"), partial)
	write(filepath.Join(loc.Home, ".claude", "settings.json"), "{,}")

	got, err := Status(loc)
	if err != nil {
		t.Fatal(err)
	}
	entries := func(a Agent, binary string, skip string) []Entry {
		var out []Entry
		for _, h := range Hooks(a) {
			if h.Event != skip {
				out = append(out, Entry{Event: h.Event, Matcher: h.Matcher, Command: Command(binary, a), Binary: binary, Timeout: h.Timeout})
			}
		}
		return out
	}
	codexEntries := entries(Codex, "/gone/vigil", "Stop")
	codexEntries = append(codexEntries[:1], append([]Entry{{Event: "Gone", Command: "/gone/vigil hook codex", Binary: "/gone/vigil", Timeout: 45}}, codexEntries[1:]...)...)
	want := []Attachment{
		{Agent: ClaudeCode, Scope: Project, File: filepath.Join(loc.Project, ".claude", "settings.local.json"), Exists: true,
			Entries: entries(ClaudeCode, installed, ""), Binaries: []Binary{{Path: installed, Exists: true}},
			MCP: &MCPStatus{File: filepath.Join(loc.Home, ".claude.json"), Project: loc.Project}},
		{Agent: ClaudeCode, Scope: User, File: filepath.Join(loc.Home, ".claude", "settings.json"), Exists: true,
			MCP: &MCPStatus{File: filepath.Join(loc.Home, ".claude.json")}},
		{Agent: Codex, Scope: Project, File: filepath.Join(loc.Project, ".codex", "hooks.json"),
			MCP: &MCPStatus{File: filepath.Join(loc.Project, ".codex", "config.toml")}},
		{Agent: Codex, Scope: User, File: filepath.Join(loc.CodexHome, "hooks.json"), Exists: true,
			Entries: codexEntries, Missing: []string{"Stop"}, Binaries: []Binary{{Path: "/gone/vigil"}},
			MCP: &MCPStatus{File: filepath.Join(loc.CodexHome, "config.toml")}},
		{Agent: Pi, Scope: Project, File: filepath.Join(loc.Project, ".pi", "extensions", "vigil.ts")},
		{Agent: Pi, Scope: User, File: filepath.Join(loc.Home, ".pi", "agent", "extensions", "vigil.ts")},
		{Agent: Omp, Scope: Project, File: filepath.Join(loc.Project, ".omp", "extensions", "vigil.ts")},
		{Agent: Omp, Scope: User, File: filepath.Join(loc.Home, ".omp", "agent", "extensions", "vigil.ts")},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Attachment{}, "Err")); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for i, a := range got {
		bad := i == 1
		if (a.Err != nil) != bad {
			t.Errorf("%s %s: error %v", a.Agent, a.Scope, a.Err)
		}
		if a.Attached() != (len(want[i].Entries) > 0) {
			t.Errorf("%s %s: Attached() = %v", a.Agent, a.Scope, a.Attached())
		}
	}
	if err := got[1].Err; err == nil || !strings.HasPrefix(err.Error(), filepath.Join(loc.Home, ".claude", "settings.json")+":1:2:") {
		t.Errorf("error of a bad file: %v", err)
	}

	// Without a project, only the user's files; without a home, an error.
	loc.Project = ""
	if got, err := Status(loc); err != nil || len(got) != 4 || got[0].Scope != User || got[1].Scope != User || got[3].Agent != Omp {
		t.Errorf("Status without a project = %v, %v", got, err)
	}
	if _, err := Status(Locations{}); err == nil {
		t.Error("Status without a home folder: no error")
	}
}

func TestLocations(t *testing.T) {
	loc := Locations{Home: "/home/ann", Project: "/src/app"}
	for _, tc := range []struct {
		a    Agent
		s    Scope
		want string
	}{
		{ClaudeCode, Project, "/src/app/.claude/settings.local.json"},
		{ClaudeCode, User, "/home/ann/.claude/settings.json"},
		{Codex, Project, "/src/app/.codex/hooks.json"},
		{Codex, User, "/home/ann/.codex/hooks.json"},
	} {
		if got, err := loc.File(tc.a, tc.s); err != nil || got != tc.want {
			t.Errorf("File(%s, %s) = %s, %v; want %s", tc.a, tc.s, got, err, tc.want)
		}
	}
	loc.CodexHome = "/etc/codex"
	if got, _ := loc.File(Codex, User); got != "/etc/codex/hooks.json" {
		t.Errorf("with CODEX_HOME: %s", got)
	}
}

func TestTransientBinary(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	for _, tc := range []struct {
		binary string
		env    func(string) (string, bool)
		want   string // a fragment of the reason; "" for none
	}{
		{"/usr/local/bin/vigil", env(), ""},
		{"/home/ann/go/bin/vigil", env("GOCACHE", "/home/ann/.cache/go-build"), ""},
		{"/tmp/go-build1234/b001/exe/vigil", env(), "Go's builds"},
		{"/home/ann/.cache/go-build/ab/abcdef-d/vigil", env(), "Go's builds"},
		{"/tmp/vigil", env(), "temporary folder /tmp"},
		{"/var/scratch/x/vigil", env("TMPDIR", "/var/scratch"), "temporary folder /var/scratch"},
		{"/srv/cache/ab/vigil", env("GOCACHE", "/srv/cache"), "build cache /srv/cache"},
		{"/tmpfoo/vigil", env(), ""},
	} {
		got := TransientBinary(tc.binary, tc.env)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("TransientBinary(%s) = %q, want %q", tc.binary, got, tc.want)
		}
	}
}
