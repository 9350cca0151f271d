package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/config"
)

func TestSet(t *testing.T) {
	tests := []struct {
		name   string
		before string // "" for no file
		key    string
		value  any
		after  string
	}{
		{
			name: "toggle keeps comments, spacing and order",
			before: "# my settings\n" +
				"modelRoles:\n" +
				"  advisor: anthropic/claude-sonnet-5-5:medium   # the reviewer\n" +
				"\n" +
				"advisor:\n" +
				"  # off while I try things\n" +
				"  enabled: false    # toggled by /advisor\n" +
				"  immuneTurns: 2\n",
			key:   "advisor.enabled",
			value: true,
			after: "# my settings\n" +
				"modelRoles:\n" +
				"  advisor: anthropic/claude-sonnet-5-5:medium   # the reviewer\n" +
				"\n" +
				"advisor:\n" +
				"  # off while I try things\n" +
				"  enabled: true    # toggled by /advisor\n" +
				"  immuneTurns: 2\n",
		},
		{
			name:  "new file",
			key:   "advisor.enabled",
			value: true,
			after: "advisor:\n  enabled: true\n",
		},
		{
			name:   "file of comments",
			before: "# settings\n",
			key:    "advisor.enabled",
			value:  false,
			after:  "# settings\nadvisor:\n  enabled: false\n",
		},
		{
			name:   "new key at the end of its mapping",
			before: "advisor:\n    enabled: true\n    # immuneTurns: 5\n\n# tools\ntools:\n  bash: {timeoutSeconds: 60}\n",
			key:    "advisor.immuneTurns",
			value:  0,
			after:  "advisor:\n    enabled: true\n    immuneTurns: 0\n    # immuneTurns: 5\n\n# tools\ntools:\n  bash: {timeoutSeconds: 60}\n",
		},
		{
			name:   "new section at the end, before trailing comments",
			before: "advisor:\n  enabled: true\n# end\n",
			key:    "tools.bash.timeoutSeconds",
			value:  300,
			after:  "advisor:\n  enabled: true\ntools:\n  bash:\n    timeoutSeconds: 300\n# end\n",
		},
		{
			name:   "no final line break",
			before: "advisor:\n  enabled: true",
			key:    "advisor.subagents",
			value:  true,
			after:  "advisor:\n  enabled: true\n  subagents: true\n",
		},
		{
			name:   "empty value",
			before: "advisor:\n  enabled:\n  subagents: true\n",
			key:    "advisor.enabled",
			value:  true,
			after:  "advisor:\n  enabled: true\n  subagents: true\n",
		},
		{
			name:   "empty mapping",
			before: "advisor:   # later\nmodelRoles: {}\n",
			key:    "advisor.enabled",
			value:  true,
			after:  "advisor:   # later\n  enabled: true\nmodelRoles: {}\n",
		},
		{
			name:   "quoted string",
			before: "modelRoles:\n  advisor: 'anthropic/claude-opus-5-5' # big\n",
			key:    "modelRoles.advisor",
			value:  "local/qwen3-coder:high",
			after:  "modelRoles:\n  advisor: local/qwen3-coder:high # big\n",
		},
		{
			name:   "new role",
			before: "modelRoles:\n  default: anthropic/claude-opus-5-5\n",
			key:    "modelRoles.advisor",
			value:  "openrouter/anthropic/claude-x:low",
			after:  "modelRoles:\n  default: anthropic/claude-opus-5-5\n  advisor: openrouter/anthropic/claude-x:low\n",
		},
		{
			name:   "a number for a string setting",
			before: "advisor:\n  syncBacklog: off\n",
			key:    "advisor.syncBacklog",
			value:  3,
			after:  "advisor:\n  syncBacklog: \"3\"\n",
		},
		{
			name:  "a named string",
			key:   "advisor.mode",
			value: config.ModePeriodic,
			after: "advisor:\n  mode: periodic\n",
		},
		{
			name:   "windows line ends",
			before: "advisor:\r\n  enabled: false\r\n",
			key:    "advisor.immuneTurns",
			value:  1,
			after:  "advisor:\r\n  enabled: false\r\n  immuneTurns: 1\r\n",
		},
		{
			name:   "flow mappings are re-rendered",
			before: "tools: {bash: {timeoutSeconds: 5}}\n",
			key:    "tools.output.maxLines",
			value:  100,
			after:  "tools: {bash: {timeoutSeconds: 5}, output: {maxLines: 100}}\n",
		},
		{
			name:   "unchanged",
			before: "advisor:\n  enabled:   true\n",
			key:    "advisor.enabled",
			value:  true,
			after:  "advisor:\n  enabled:   true\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "agent", "config.yml")
			if tt.before != "" {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := config.Set(path, tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.after {
				t.Errorf("file:\ngot  %q\nwant %q", got, tt.after)
			}
			if _, err := config.Parse(path, got); err != nil {
				t.Errorf("the result does not load: %v", err)
			}
		})
	}
}

func TestSetErrors(t *testing.T) {
	tests := []struct {
		name   string
		before string
		key    string
		value  any
		want   string
	}{
		{"unknown key", "", "advisor.enabeld", true, "set advisor.enabeld: no such setting"},
		{"a group", "", "advisor", true, "no such setting"},
		{"below a setting", "", "advisor.enabled.x", true, "no such setting"},
		{"below a role", "", "modelRoles.advisor.x", "a/b", "no such setting"},
		{"wrong type", "", "advisor.enabled", "yes", "want true or false"},
		{"wrong number type", "", "advisor.immuneTurns", 1.5, "want a whole number"},
		{"no value", "", "advisor.immuneTurns", nil, "no value"},
		{"bad value", "", "advisor.immuneTurns", -1, "advisor.immuneTurns: must not be negative"},
		{"unknown role", "", "modelRoles.reviewer", "a/b", `unknown model role "reviewer"`},
		{"broken file", "advisor:\n  enabeld: true\n", "advisor.enabled", true, "fix the file first"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "config.yml")
			if tt.before != "" {
				if err := os.WriteFile(path, []byte(tt.before), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			err := config.Set(path, tt.key, tt.value)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error with %q", err, tt.want)
			}
			got, _ := os.ReadFile(path)
			if string(got) != tt.before {
				t.Errorf("the file changed to %q", got)
			}
		})
	}
}

func TestSetFollowsSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "vigil.yml")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("advisor:\n  enabled: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.yml")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symbolic links:", err)
	}
	if err := config.Set(link, "advisor.enabled", true); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info, err)
	}
	got, _ := os.ReadFile(real)
	if string(got) != "advisor:\n  enabled: true\n" {
		t.Errorf("target holds %q", got)
	}
	if info, err := os.Stat(real); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept (%v)", info.Mode().Perm(), err)
	}
}

func TestSetThenLoad(t *testing.T) {
	agent := filepath.Join(t.TempDir(), "agent")
	if err := config.Set(config.UserFile(agent), "advisor.enabled", true); err != nil {
		t.Fatal(err)
	}
	if err := config.Set(config.UserFile(agent), "modelRoles.advisor", "anthropic/claude-sonnet-5-5:medium"); err != nil {
		t.Fatal(err)
	}
	s, err := config.Load(config.Options{AgentDir: agent})
	if err != nil {
		t.Fatal(err)
	}
	ref, ok := s.Role(config.RoleAdvisor)
	if !s.Advisor.Enabled || !ok || ref.Thinking != "medium" {
		t.Errorf("loaded %+v, role %v %v", s.Advisor, ref, ok)
	}
	if info, err := os.Stat(agent); err != nil || info.Mode().Perm() != 0o700 {
		t.Errorf("agent folder mode %v (%v), want 0700", info.Mode().Perm(), err)
	}
}
