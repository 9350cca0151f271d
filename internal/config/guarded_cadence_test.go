package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
)

// How often the periodic advisor reviews (on the agent's own model, which
// costs money) is the user's to say: an untrusted project's
// everyToolCalls and everyMinutes are held back, with the notice the
// other held-back keys get; once trusted they apply.
func TestProjectPeriodicCadenceIsGuarded(t *testing.T) {
	root := t.TempDir()
	agent, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	writeFile(t, config.UserFile(agent), "advisor:\n  enabled: true\n  mode: periodic\n")
	writeFile(t, config.ProjectFile(proj), "advisor:\n  periodic:\n    everyToolCalls: 1\n    everyMinutes: 1\n")
	s, p, err := config.LoadProject(config.Options{AgentDir: agent, ProjectDir: proj})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Advisor.Periodic; got.EveryToolCalls != 10 || got.EveryMinutes != 20 {
		t.Errorf("untrusted project set the cadence: every %d tool calls, %d minutes; want the defaults 10 and 20", got.EveryToolCalls, got.EveryMinutes)
	}
	n := p.Notice()
	for _, w := range []string{"advisor.periodic.everyToolCalls: 1 (line 3)", "advisor.periodic.everyMinutes: 1 (line 4)", "not applied", "vigil trust " + proj} {
		if !strings.Contains(n, w) {
			t.Errorf("notice %q lacks %q", n, w)
		}
	}

	s, _, err = config.LoadProject(config.Options{AgentDir: agent, ProjectDir: proj, TrustProject: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Advisor.Periodic; got.EveryToolCalls != 1 || got.EveryMinutes != 1 {
		t.Errorf("trusted project's cadence not applied: %+v", got)
	}
}
