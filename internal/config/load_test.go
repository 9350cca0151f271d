package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/yamlfile/hostiletest"
)

// setup writes the user and project files ("" for none) and returns the
// options that find them.
func setup(t *testing.T, user, project string) config.Options {
	t.Helper()
	root := t.TempDir()
	opts := config.Options{AgentDir: filepath.Join(root, "agent"), ProjectDir: filepath.Join(root, "proj"), TrustProject: true}
	write := func(path, content string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if user != "" {
		write(config.UserFile(opts.AgentDir), user)
	}
	if project != "" {
		write(config.ProjectFile(opts.ProjectDir), project)
	}
	return opts
}

func TestLoad(t *testing.T) {
	tests := []struct {
		name          string
		user, project string
		want          func(s *config.Settings) // changes from the defaults
	}{
		{"no files", "", "", func(s *config.Settings) {}},
		{"empty files", "\n", "# nothing yet\n", func(s *config.Settings) {}},
		{"null document", "~\n", "", func(s *config.Settings) {}},
		{
			"user file",
			"modelRoles:\n  advisor: anthropic/claude-sonnet-5-5:medium\nadvisor:\n  enabled: true\n",
			"",
			func(s *config.Settings) {
				s.ModelRoles["advisor"] = "anthropic/claude-sonnet-5-5:medium"
				s.Advisor.Enabled = true
			},
		},
		{
			"project wins",
			"advisor: {enabled: true, immuneTurns: 1}\n",
			"advisor:\n  enabled: false\n",
			func(s *config.Settings) { s.Advisor.ImmuneTurns = 1 },
		},
		{
			"nested settings merge key by key",
			"tools:\n  bash:\n    timeoutSeconds: 60\n  output:\n    maxLines: 100\n",
			"tools:\n  output:\n    maxBytes: 1000\n",
			func(s *config.Settings) {
				s.Tools.Bash.TimeoutSeconds = 60
				s.Tools.Output = config.Output{MaxLines: 100, MaxBytes: 1000}
			},
		},
		{
			"model roles merge role by role",
			"modelRoles:\n  default: anthropic/claude-opus-5-5\n  advisor: anthropic/claude-sonnet-5-5\n",
			"modelRoles:\n  advisor: local/qwen3-coder:high\n  smol: openai/gpt-5-mini\n",
			func(s *config.Settings) {
				s.ModelRoles = map[string]string{
					"default": "anthropic/claude-opus-5-5",
					"advisor": "local/qwen3-coder:high",
					"smol":    "openai/gpt-5-mini",
				}
			},
		},
		{
			"null leaves the value below",
			"advisor:\n  immuneTurns: 0\n",
			"advisor:\n  immuneTurns:\nmodelRoles:\n",
			func(s *config.Settings) { s.Advisor.ImmuneTurns = 0 },
		},
		{
			"sync backlog bare or quoted",
			"advisor: {syncBacklog: 3}\n",
			"",
			func(s *config.Settings) { s.Advisor.SyncBacklog = "3" },
		},
		{
			"periodic mode",
			"advisor:\n  mode: periodic\n  periodic: {everyToolCalls: 0, everyMinutes: 5}\n",
			"",
			func(s *config.Settings) {
				s.Advisor.Mode = config.ModePeriodic
				s.Advisor.Periodic.EveryToolCalls, s.Advisor.Periodic.EveryMinutes = 0, 5
			},
		},
		{
			"promotion candidates, and an empty list",
			"advisor:\n  promotion: [anthropic/claude-opus-5-5, \"openai/gpt-6-sol:high\"]\n",
			"advisor:\n  promotion: []\n",
			func(s *config.Settings) { s.Advisor.Promotion = []string{} },
		},
		{
			"periodic review settings",
			"advisor:\n  allowPromptInjection: false\n  periodic:\n    reviewTimeoutSeconds: 60\n    reviewInstructions: |\n      Flag any edit under vendor/.\n",
			"",
			func(s *config.Settings) {
				s.Advisor.AllowPromptInjection = false
				s.Advisor.Periodic.ReviewTimeoutSeconds = 60
				s.Advisor.Periodic.ReviewInstructions = "Flag any edit under vendor/.\n"
			},
		},
		{
			"review instructions of 4,000 characters, padded",
			"advisor:\n  periodic:\n    reviewInstructions: \"  " + strings.Repeat("é", config.MaxReviewInstructions) + "  \"\n",
			"",
			func(s *config.Settings) {
				s.Advisor.Periodic.ReviewInstructions = "  " + strings.Repeat("é", config.MaxReviewInstructions) + "  "
			},
		},
		{
			"JSON is YAML",
			`{"compaction": {"enabled": false, "thresholdPercent": 80}}`,
			"",
			func(s *config.Settings) { s.Compaction.Enabled, s.Compaction.ThresholdPercent = false, 80 },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := config.Load(setup(t, tt.user, tt.project))
			if err != nil {
				t.Fatal(err)
			}
			want := config.Default()
			tt.want(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("settings (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name          string
		user, project string
		want          string // FILE is replaced by the file's path
	}{
		{"unknown key", "advisr:\n  enabled: true\n", "", "user:1:1: advisr: unknown key (the top level takes modelRoles, advisor, compaction, tools, ui; keys are case-sensitive)"},
		{"unknown nested key", "advisor:\n  enable: true\n", "", "user:2:3: advisor.enable: unknown key (advisor takes enabled, subagents, reviewer, gate, mode, cadence, effort, syncBacklog, syncTimeoutSeconds, immuneTurns, maxNotesPerUpdate, periodic, allowPromptInjection, promotion, consult, roster, fleet; "},
		{"wrong type", "advisor:\n  enabled: yes\n", "", `user:2:12: advisor.enabled: want true or false, got "yes"`},
		{"number wanted", "tools:\n  bash:\n    timeoutSeconds: 2m\n", "", `user:3:21: tools.bash.timeoutSeconds: want a whole number, got "2m"`},
		{"mapping wanted", "advisor: true\n", "", "user:1:10: advisor: boolean was used where mapping is expected"},
		{"roles mapping wanted", "modelRoles: [a/b]\n", "", "user:1:13: modelRoles: sequence was used where mapping is expected"},
		{"string wanted", "modelRoles: {advisor: [a/b]}\n", "", "modelRoles.advisor: want a string, got a list"},
		{"syntax", "advisor:\n  enabled: [true\n", "", "user:2:"},
		{"not a mapping", "- a\n", "", "user:1:1: "},
		{"duplicate key", "advisor: {}\nadvisor: {}\n", "", `user:2:1: mapping key "advisor" already defined`},
		{"number as a key", "compaction:\n  10: 1\n  enabled: false\n", "", "user:2:3: key 10 is not a name"},
		{"boolean as a key", "advisor: {true: 1}\n", "", "user:1:11: key true is not a name"},
		{"two documents", "a: 1\n---\nb: 2\n", "", "user:2:1: holds more than one YAML document"},
		{"unknown role", "modelRoles:\n  reviewer: a/b\n", "", `user:2:13: modelRoles.reviewer: unknown model role "reviewer"`},
		{"bad model reference", "modelRoles:\n  advisor: /claude\n", "", "user:2:12: modelRoles.advisor: parse model reference \"/claude\": empty provider"},
		{"empty model reference", "modelRoles:\n  advisor: ''\n", "", "user:2:12: modelRoles.advisor: parse model reference: empty"},
		{"bad mode", "advisor: {mode: sometimes}\n", "", `user:1:17: advisor.mode: mode is "sometimes", want continuous or periodic`},
		{"bad sync backlog", "advisor:\n  syncBacklog: 2\n", "", `user:2:16: advisor.syncBacklog: syncBacklog is "2", want off, 1, 3 or 5`},
		{"sync backlog as a boolean", "advisor:\n  syncBacklog: false\n", "", `advisor.syncBacklog: syncBacklog is "false"`},
		{"negative immune turns", "advisor:\n  immuneTurns: -1\n", "", "user:2:16: advisor.immuneTurns: must not be negative, got -1"},
		{"zero sync timeout", "advisor:\n  syncTimeoutSeconds: 0\n", "", "advisor.syncTimeoutSeconds: must be at least 1"},
		{"tool calls out of range", "advisor:\n  periodic: {everyToolCalls: 1001}\n", "", "advisor.periodic.everyToolCalls: must be 0 (off) to 1000"},
		{"minutes out of range", "advisor:\n  periodic: {everyMinutes: -1}\n", "", "advisor.periodic.everyMinutes: must be 0 (off) to 1440"},
		{"review instructions too long", "advisor:\n  periodic:\n    reviewInstructions: " + strings.Repeat("x", config.MaxReviewInstructions+1) + "\n", "", "user:3:25: advisor.periodic.reviewInstructions: must be at most 4000 characters, got 4001"},
		{"review timeout out of range", "advisor:\n  periodic: {reviewTimeoutSeconds: 0}\n", "", "advisor.periodic.reviewTimeoutSeconds: must be 1 to 3600, got 0"},
		{"consult timeout out of range", "advisor:\n  consult: {timeoutSeconds: 0}\n", "", "advisor.consult.timeoutSeconds: must be 1 to 3600, got 0"},
		{"consult cap out of range", "advisor:\n  consult: {maxPerRun: 101}\n", "", "advisor.consult.maxPerRun: must be 1 to 100, got 101"},
		{"promotion not a list", "advisor:\n  promotion: fake/big\n", "", "advisor.promotion"},
		{"promotion bad reference", "advisor:\n  promotion:\n    - fake/big\n    - \"fake/\"\n", "", "user:4:7: advisor.promotion[1]:"},
		{"allow prompt injection wrong type", "advisor:\n  allowPromptInjection: no\n", "", `user:2:25: advisor.allowPromptInjection: want true or false, got "no"`},
		{
			"periodic with no trigger, across files",
			"advisor:\n  periodic: {everyToolCalls: 0, everyMinutes: 0}\n",
			"advisor:\n  mode: periodic\n",
			"project:2:9: advisor.mode: the periodic mode needs everyToolCalls or everyMinutes above 0",
		},
		{"threshold percent", "compaction: {thresholdPercent: 100}\n", "", "compaction.thresholdPercent: must be at most 99"},
		{"negative reserve", "compaction: {reserveTokens: -1}\n", "", "compaction.reserveTokens: must not be negative"},
		{"negative keep", "compaction: {keepRecentTokens: -1}\n", "", "compaction.keepRecentTokens: must not be negative"},
		{"bash timeout", "tools:\n  bash:\n    timeoutSeconds: 0\n", "", "user:3:21: tools.bash.timeoutSeconds: must be at least 1, got 0"},
		{"max lines", "tools: {output: {maxLines: 0}}\n", "", "tools.output.maxLines: must be at least 1"},
		{"max bytes", "tools: {output: {maxBytes: -5}}\n", "", "tools.output.maxBytes: must be at least 1"},
		{"project file errors name the project file", "", "tools: {bash: {timeoutSeconds: -1}}\n", "project:1:32: tools.bash.timeoutSeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := setup(t, tt.user, tt.project)
			_, err := config.Load(opts)
			if err == nil {
				t.Fatal("got no error")
			}
			want := strings.NewReplacer("user:", config.UserFile(opts.AgentDir)+":", "project:", config.ProjectFile(opts.ProjectDir)+":").Replace(tt.want)
			if !strings.Contains(err.Error(), want) {
				t.Errorf("got  %v\nwant %s", err, want)
			}
		})
	}
}

func TestLoadUnreadable(t *testing.T) {
	opts := setup(t, "", "")
	if err := os.MkdirAll(config.UserFile(opts.AgentDir), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(opts); err == nil || !strings.Contains(err.Error(), "read settings") {
		t.Errorf("got %v, want a read error", err)
	}
}

func TestLoadSkipsEmptyOptions(t *testing.T) {
	got, err := config.Load(config.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(config.Default(), got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestRole(t *testing.T) {
	s, err := config.Parse("config.yml", []byte("modelRoles:\n  advisor: anthropic/claude-sonnet-5-5:high\n  default: llama3:8b\n"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		role   string
		want   string
		wantOK bool
	}{
		{config.RoleAdvisor, "anthropic/claude-sonnet-5-5:high", true},
		{config.RoleDefault, "llama3:8b", true},
		{config.RoleSmol, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.role, func(t *testing.T) {
			ref, ok := s.Role(tt.role)
			if ok != tt.wantOK || (ok && ref.String() != tt.want) {
				t.Errorf("Role(%q) = %v, %v; want %s, %v", tt.role, ref, ok, tt.want, tt.wantOK)
			}
		})
	}
}

func TestSyncBacklogThreshold(t *testing.T) {
	tests := []struct {
		in   config.SyncBacklog
		want int
	}{{"off", 0}, {"1", 1}, {"3", 3}, {"5", 5}, {"", 0}, {"2", 0}}
	for _, tt := range tests {
		if got := tt.in.Threshold(); got != tt.want {
			t.Errorf("SyncBacklog(%q).Threshold() = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func TestDurations(t *testing.T) {
	s := config.Default()
	if got := s.Tools.Bash.Timeout().Seconds(); got != 120 {
		t.Errorf("bash timeout %vs, want 120s", got)
	}
	if got := s.Advisor.SyncTimeout().Seconds(); got != 30 {
		t.Errorf("sync timeout %vs, want 30s", got)
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte("modelRoles:\n  advisor: anthropic/claude:medium\nadvisor:\n  enabled: true\n  syncBacklog: 3\n"))
	f.Add([]byte("advisor: {mode: periodic, periodic: {everyToolCalls: 0, everyMinutes: 0}}\n"))
	f.Add([]byte("compaction:\n  thresholdPercent: 99\ntools: {bash: {timeoutSeconds: 1}}\n"))
	f.Add([]byte("a: 1\n---\nb: 2\n"))
	f.Add([]byte("~\n"))
	f.Add([]byte(`{"modelRoles": {"smol": "x/y:off"}}`))
	// Bombs cut to a size the fuzzer can grow past the limits.
	f.Add([]byte("advisor: " + strings.Repeat("[", 70) + "\n"))
	f.Add([]byte("a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nadvisor: {enabled: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]}\n"))
	f.Add([]byte("r: &r {enabled: true}\nadvisor: {<<: *r}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s *config.Settings
		var err error
		hostiletest.Bounded(t, func() { s, err = config.Parse("config.yml", data) })
		if err != nil {
			if !strings.HasPrefix(err.Error(), "config.yml") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		// Whatever loads is valid.
		for role := range s.ModelRoles {
			if _, ok := s.Role(role); !ok {
				t.Fatalf("role %q = %q does not parse", role, s.ModelRoles[role])
			}
		}
		a := s.Advisor
		if a.ImmuneTurns < 0 || a.SyncTimeoutSeconds < 1 || (a.SyncBacklog != config.SyncOff && a.SyncBacklog.Threshold() == 0) {
			t.Fatalf("invalid advisor settings loaded: %+v", a)
		}
		if a.Mode == config.ModePeriodic && a.Periodic.EveryToolCalls == 0 && a.Periodic.EveryMinutes == 0 {
			t.Fatalf("periodic mode with no trigger loaded")
		}
		if s.Tools.Bash.TimeoutSeconds < 1 || s.Tools.Output.MaxLines < 1 || s.Tools.Output.MaxBytes < 1 {
			t.Fatalf("invalid tool settings loaded: %+v", s.Tools)
		}
	})
}
