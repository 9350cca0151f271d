package config_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
)

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// The roster walk: the user's file, then the project's from its root
// down; shared instructions add up, a later declaration of a name
// replaces the earlier, broken entries drop out with file, line and name
// while the healthy ones load, and tools beyond the read-only ones are
// refused with a warning.
func TestLoadRoster(t *testing.T) {
	root := t.TempDir()
	agent, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	sub := filepath.Join(proj, "svc")
	writeFile(t, filepath.Join(proj, ".git", "HEAD"), "")
	writeFile(t, filepath.Join(agent, "WATCHDOG.yml"), `
instructions: Be brief.
maxNotesPerUpdate: 2
advisors:
  - name: security
    model: anthropic/claude-opus-5-5
    instructions: Secrets and unsafe shell.
  - name: tests
    instructions: Tests must run.
    enabled: false
`)
	writeFile(t, filepath.Join(proj, ".vigil", "WATCHDOG.yml"), `
instructions: This repo is a Go service.
advisors:
  - name: security
    model: openai/gpt-6.1-sol
    instructions: Also check SQL.
    tools: [read, grep, bash, write]
  - name: "bad name!"
  - model: x/y
  - name: perf
    colour: red
  - name: scope
    maxNotesPerUpdate: 1
`)
	writeFile(t, filepath.Join(sub, "WATCHDOG.yml"), "maxNotesPerUpdate: 1\n")
	r, err := config.LoadRoster(config.RosterOptions{AgentDir: agent, Dir: sub, ProjectRoot: proj, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Instructions != "Be brief.\n\nThis repo is a Go service." {
		t.Errorf("shared instructions %q", r.Instructions)
	}
	if r.MaxNotesPerUpdate != 1 {
		t.Errorf("maxNotesPerUpdate %d, want the deepest file's 1", r.MaxNotesPerUpdate)
	}
	var names []string
	for _, a := range r.Advisors {
		names = append(names, a.Name)
	}
	if !slices.Equal(names, []string{"security", "tests", "scope"}) {
		t.Fatalf("advisors %q", names)
	}
	sec := r.Advisors[0]
	if sec.Model != "openai/gpt-6.1-sol" || sec.Instructions != "Also check SQL." || !slices.Equal(sec.Tools, []string{"read", "grep"}) || !strings.HasSuffix(sec.Source, ".vigil/WATCHDOG.yml:4") {
		t.Errorf("security = %+v, want the project's, with read and grep only", sec)
	}
	if r.Advisors[1].On() || !r.Advisors[0].On() || r.Advisors[2].MaxNotesPerUpdate != 1 {
		t.Errorf("enabled/maxNotes wrong: %+v", r.Advisors)
	}
	want := []string{
		"WATCHDOG.yml:4: advisor security asks for bash, write: vigil's advisors never write or execute, so it gets only read, grep",
		`WATCHDOG.yml:8: advisor "bad name!": a name is 1 to 64 letters`,
		"WATCHDOG.yml:9: an advisor has no name; left out",
		"WATCHDOG.yml:10: advisor perf is left out:",
	}
	joined := strings.Join(r.Warnings, "\n")
	for _, w := range want {
		if !strings.Contains(joined, w) {
			t.Errorf("warnings lack %q:\n%s", w, joined)
		}
	}
	if len(r.Warnings) != len(want) {
		t.Errorf("%d warnings, want %d:\n%s", len(r.Warnings), len(want), joined)
	}

	// Untrusted, the project's advisors are held back; its instructions
	// still apply.
	r, err = config.LoadRoster(config.RosterOptions{AgentDir: agent, Dir: sub, ProjectRoot: proj})
	if err != nil {
		t.Fatal(err)
	}
	names = names[:0]
	for _, a := range r.Advisors {
		names = append(names, a.Name+"="+a.Model)
	}
	if !slices.Equal(names, []string{"security=anthropic/claude-opus-5-5", "tests="}) {
		t.Errorf("untrusted advisors %q, want the user's only", names)
	}
	if j := strings.Join(r.Warnings, "\n"); !strings.Contains(j, "declares advisors security, scope; not run, because this folder is not trusted") || !strings.Contains(j, "vigil trust "+proj) {
		t.Errorf("untrusted warnings:\n%s", j)
	}
	if !strings.Contains(r.Instructions, "Go service") {
		t.Error("the project's shared instructions were dropped")
	}
}

// Broken files drop out whole with a warning; none is an error.
func TestLoadRosterBrokenFiles(t *testing.T) {
	for name, data := range map[string]string{
		"not a mapping":    "- a\n- b\n",
		"bad yaml":         "advisors: [\n",
		"advisors a map":   "advisors:\n  a: 1\n",
		"instructions map": "instructions:\n  a: 1\n",
	} {
		t.Run(name, func(t *testing.T) {
			agent := t.TempDir()
			writeFile(t, filepath.Join(agent, "WATCHDOG.yml"), data)
			r, err := config.LoadRoster(config.RosterOptions{AgentDir: agent})
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Warnings) == 0 || len(r.Advisors) != 0 || !strings.Contains(r.Warnings[0], "WATCHDOG.yml") {
				t.Errorf("roster %+v", r)
			}
		})
	}
	// A file vigil must not read (a FIFO, a bomb) is an error naming it.
	agent := t.TempDir()
	writeFile(t, filepath.Join(agent, "WATCHDOG.yml"), strings.Repeat("a: &a [x]\n", 1)+"b: "+strings.Repeat("*a ", 1)+"\n"+strings.Repeat("#", 2<<20))
	if _, err := config.LoadRoster(config.RosterOptions{AgentDir: agent}); err == nil || !strings.Contains(err.Error(), "WATCHDOG.yml") {
		t.Errorf("a 2 MiB roster: %v", err)
	}
}

// TestRosterCadence: an advisor's cadence is read, and one that is not a
// cadence leaves the advisor out with FILE:LINE.
func TestRosterCadence(t *testing.T) {
	agent := t.TempDir()
	writeFile(t, filepath.Join(agent, "WATCHDOG.yml"), "advisors:\n  - name: tests\n    cadence: final\n  - name: scope\n    cadence: 3\n  - name: odd\n    cadence: sometimes\n")
	r, err := config.LoadRoster(config.RosterOptions{AgentDir: agent})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Advisors) != 2 || r.Advisors[0].Cadence != "final" || r.Advisors[1].Cadence != "3" {
		t.Errorf("advisors %+v, want tests (final) and scope (3)", r.Advisors)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "WATCHDOG.yml:6:") || !strings.Contains(r.Warnings[0], `cadence "sometimes"`) {
		t.Errorf("warnings %q, want one for odd at line 6", r.Warnings)
	}
}
