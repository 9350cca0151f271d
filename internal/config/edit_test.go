package config

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSetKeyShapes(t *testing.T) {
	tests := []struct {
		name    string
		before  string
		key     string
		text    string
		after   string
		wantErr string
	}{
		{"explicit null", "advisor: ~\n", "advisor.enabled", "true", "advisor:\n  enabled: true\n", ""},
		{"block scalar value", "modelRoles:\n  advisor: |\n    a/b\n", "modelRoles.advisor", "c/d", "modelRoles:\n  advisor: c/d\n", ""},
		{"value over two lines", "modelRoles:\n  advisor: a/\n    b\ntools: {}\n", "modelRoles.advisor", "c/d", "modelRoles:\n  advisor: c/d\ntools: {}\n", ""},
		{"flow top", "{advisor: {enabled: true}}\n", "compaction.enabled", "false", "{advisor: {enabled: true}, compaction: {enabled: false}}\n", ""},
		{"indented top", "  advisor:\n    enabled: true\n", "tools.bash.timeoutSeconds", "5", "  advisor:\n    enabled: true\n  tools:\n    bash:\n      timeoutSeconds: 5\n", ""},
		{"document marker", "---\nadvisor: {}\n", "advisor.enabled", "true", "---\nadvisor: {enabled: true}\n", ""},
		{"a value in the way", "advisor: 5\n", "advisor.enabled", "true", "", "advisor holds a value, not a mapping"},
		{"top is a list", "- 1\n", "advisor.enabled", "true", "", "not a mapping of settings"},
		{"aliases", "a: &x\n  enabled: true\nadvisor: *x\n", "advisor.enabled", "false", "", "edit it by hand"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := setKey([]byte(tt.before), strings.Split(tt.key, "."), tt.text)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("got %q, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.after {
				t.Errorf("got  %q\nwant %q", got, tt.after)
			}
		})
	}
}

func TestYAMLString(t *testing.T) {
	tests := []struct{ in, want string }{
		{"anthropic/claude-sonnet-5-5:medium", "anthropic/claude-sonnet-5-5:medium"},
		{"off", "off"},
		{"périodique", "périodique"},
		{"3", `"3"`},
		{"true", `"true"`},
		{"", `""`},
		{"a: b", `"a: b"`},
		{"x # y", `"x # y"`},
		{" padded", `" padded"`},
		{"[a]", `"[a]"`},
		{"*alias", `"*alias"`},
		{"two\nlines", `"two\nlines"`},
		{"<&>", "<&>"},
	}
	for _, tt := range tests {
		if got := yamlString(tt.in); got != tt.want {
			t.Errorf("yamlString(%q) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

func TestKeys(t *testing.T) {
	want := []string{
		"modelRoles",
		"advisor.enabled", "advisor.subagents", "advisor.reviewer", "advisor.gate", "advisor.mode", "advisor.cadence", "advisor.effort", "advisor.syncBacklog",
		"advisor.syncTimeoutSeconds", "advisor.immuneTurns", "advisor.maxNotesPerUpdate",
		"advisor.periodic.everyToolCalls", "advisor.periodic.everyMinutes",
		"advisor.periodic.reviewInstructions", "advisor.periodic.reviewTimeoutSeconds", "advisor.allowPromptInjection", "advisor.promotion",
		"advisor.consult.timeoutSeconds", "advisor.consult.maxPerRun", "advisor.roster",
		"advisor.fleet.url", "advisor.fleet.tenant", "advisor.fleet.creds", "advisor.fleet.tlsCA", "advisor.fleet.tlsCert", "advisor.fleet.tlsKey", "advisor.fleet.backlog", "advisor.fleet.publishTimeoutMs",
		"compaction.enabled", "compaction.thresholdTokens", "compaction.thresholdPercent",
		"compaction.reserveTokens", "compaction.keepRecentTokens",
		"tools.bash.timeoutSeconds", "tools.output.maxLines", "tools.output.maxBytes", "tools.allowOutsideRoots", "tools.loopGuard",
		"tools.approval",
		"ui.inline",
	}
	if diff := cmp.Diff(want, keys()); diff != "" {
		t.Errorf("keys (-want +got):\n%s", diff)
	}
}

// fuzzEdits are settings FuzzSetKey writes, with the change each makes.
var fuzzEdits = []struct {
	key, text string
	apply     func(*Settings)
}{
	{"advisor.enabled", "true", func(s *Settings) { s.Advisor.Enabled = true }},
	{"advisor.immuneTurns", "7", func(s *Settings) { s.Advisor.ImmuneTurns = 7 }},
	{"modelRoles.advisor", "a/b:high", func(s *Settings) { s.ModelRoles["advisor"] = "a/b:high" }},
	{"tools.output.maxBytes", "99", func(s *Settings) { s.Tools.Output.MaxBytes = 99 }},
	{"compaction.enabled", "false", func(s *Settings) { s.Compaction.Enabled = false }},
}

func FuzzSetKey(f *testing.F) {
	f.Add([]byte("advisor:\n  enabled: false # c\n"), uint8(0))
	f.Add([]byte("# x\nmodelRoles:\n  advisor: 'x/y'\n\ntools: {output: {maxBytes: 5}}\n"), uint8(2))
	f.Add([]byte("tools:\n  output:\n    maxLines: 3\n  bash:\n    timeoutSeconds: 4\n"), uint8(3))
	f.Add([]byte("compaction:\r\n  enabled: true\r\n"), uint8(4))
	f.Add([]byte("advisor:\n  immuneTurns:\n"), uint8(1))
	f.Add([]byte(""), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, which uint8) {
		before, err := Parse("config.yml", data)
		if err != nil {
			return
		}
		edit := fuzzEdits[int(which)%len(fuzzEdits)]
		out, err := setKey(data, strings.Split(edit.key, "."), edit.text)
		if err != nil {
			return // a layout it refuses to touch
		}
		after, err := Parse("config.yml", out)
		if err != nil {
			t.Fatalf("the edited file does not load: %v\nbefore %q\nafter  %q", err, data, out)
		}
		edit.apply(before)
		if diff := cmp.Diff(before, after); diff != "" {
			t.Fatalf("setting %s=%s changed more (-want +got):\n%s\nbefore %q\nafter  %q", edit.key, edit.text, diff, data, out)
		}
	})
}
