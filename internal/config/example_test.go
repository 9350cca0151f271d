package config_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vigil-dev/vigil/internal/config"
)

func Example() {
	root, _ := os.MkdirTemp("", "config")
	defer os.RemoveAll(root)
	agentDir := filepath.Join(root, "agent")
	projectDir := filepath.Join(root, "project")

	os.MkdirAll(agentDir, 0o700)
	os.WriteFile(config.UserFile(agentDir), []byte(
		"modelRoles:\n  advisor: anthropic/claude-sonnet-5-5:medium\nadvisor:\n  immuneTurns: 2\n"), 0o644)
	os.MkdirAll(filepath.Join(projectDir, ".vigil"), 0o755)
	os.WriteFile(config.ProjectFile(projectDir), []byte("advisor:\n  syncBacklog: 1\n"), 0o644)

	// What /advisor on does.
	if err := config.Set(config.UserFile(agentDir), "advisor.enabled", true); err != nil {
		fmt.Println(err)
		return
	}

	s, err := config.Load(config.Options{AgentDir: agentDir, ProjectDir: projectDir})
	if err != nil {
		fmt.Println(err)
		return
	}
	ref, _ := s.Role(config.RoleAdvisor)
	fmt.Println("advisor:", s.Advisor.Enabled, ref)
	fmt.Println("immune turns:", s.Advisor.ImmuneTurns, "sync backlog:", s.Advisor.SyncBacklog.Threshold())
	data, _ := os.ReadFile(config.UserFile(agentDir))
	fmt.Print(string(data))
	// Output:
	// advisor: true anthropic/claude-sonnet-5-5:medium
	// immune turns: 2 sync backlog: 1
	// modelRoles:
	//   advisor: anthropic/claude-sonnet-5-5:medium
	// advisor:
	//   immuneTurns: 2
	//   enabled: true
}

func ExampleLoad_error() {
	root, _ := os.MkdirTemp("", "config")
	defer os.RemoveAll(root)
	os.WriteFile(config.UserFile(root), []byte("advisor:\n  enabled: true\n  immuneTurns: -1\n"), 0o644)
	_, err := config.Load(config.Options{AgentDir: root})
	fmt.Println(err.Error()[len(root)+1:])
	// Output:
	// config.yml:3:16: advisor.immuneTurns: must not be negative, got -1 (0 lets every concern interrupt)
}
