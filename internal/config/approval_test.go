package config_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
)

// tools.approval is auto by default, takes ask, refuses anything else
// with the file and line, and a project file cannot change the user's
// until the folder is trusted (a cloned repository must not turn the
// UI's questions off).
func TestToolsApproval(t *testing.T) {
	if got := config.Default().Tools.Approval; got != config.ApprovalAuto {
		t.Errorf("default tools.approval %q, want auto", got)
	}
	root := t.TempDir()
	agent, proj := filepath.Join(root, "agent"), filepath.Join(root, "proj")
	opts := config.Options{AgentDir: agent, ProjectDir: proj}

	writeFile(t, config.UserFile(agent), "tools:\n  approval: yes\n")
	_, err := config.Load(opts)
	if err == nil || !strings.Contains(err.Error(), config.UserFile(agent)+":2") || !strings.Contains(err.Error(), `approval is "yes", want auto (tools run unasked) or ask`) {
		t.Errorf("a bad value: %v", err)
	}

	writeFile(t, config.UserFile(agent), "tools:\n  approval: ask\n")
	writeFile(t, config.ProjectFile(proj), "tools:\n  approval: auto\n")
	s, p, err := config.LoadProject(opts)
	if err != nil {
		t.Fatal(err)
	}
	if s.Tools.Approval != config.ApprovalAsk {
		t.Errorf("an untrusted project set tools.approval to %q", s.Tools.Approval)
	}
	if n := p.Notice(); !strings.Contains(n, "tools.approval: auto (line 2)") || !strings.Contains(n, "not applied") {
		t.Errorf("notice %q does not name the held-back tools.approval", n)
	}
	if _, err := config.Trust(agent, proj, false); err != nil {
		t.Fatal(err)
	}
	if s, _, err = config.LoadProject(opts); err != nil || s.Tools.Approval != config.ApprovalAuto {
		t.Errorf("a trusted project's tools.approval: %q (%v), want auto", s.Tools.Approval, err)
	}
}
