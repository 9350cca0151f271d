package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestDocsListEveryKey keeps docs/config.md complete: every key and every
// model role appears in it, in backquotes.
func TestDocsListEveryKey(t *testing.T) {
	data, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	for _, k := range keys() {
		if !strings.Contains(doc, "`"+k+"`") {
			t.Errorf("docs/config.md does not list `%s`", k)
		}
	}
	for _, r := range Roles() {
		if !strings.Contains(doc, "`"+r+"`") {
			t.Errorf("docs/config.md does not list the role `%s`", r)
		}
	}
}

// TestDocsExamples loads the two example files of docs/config.md, as the
// user and the project file, and checks what the page says they give.
func TestDocsExamples(t *testing.T) {
	data, err := os.ReadFile("../../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	var blocks []string
	for rest := string(data); ; {
		_, after, ok := strings.Cut(rest, "```yaml\n")
		if !ok {
			break
		}
		block, tail, _ := strings.Cut(after, "```\n")
		blocks = append(blocks, block)
		rest = tail
	}
	if len(blocks) < 2 {
		t.Fatalf("found %d yaml examples, want the user and the project file", len(blocks))
	}
	dir := t.TempDir()
	opts := Options{AgentDir: dir + "/agent", ProjectDir: dir + "/project"}
	for _, f := range []struct{ path, content string }{
		{UserFile(opts.AgentDir), blocks[0]},
		{ProjectFile(opts.ProjectDir), blocks[1]},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f.path, []byte(f.content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := Default()
	want.ModelRoles = map[string]string{
		"default": "anthropic/claude-opus-5-5:high",
		"smol":    "anthropic/claude-haiku-5-5",
		"advisor": "anthropic/claude-sonnet-5-5:medium",
	}
	want.Advisor.Enabled = true
	want.Advisor.ImmuneTurns = 2
	want.Advisor.SyncBacklog = "1"
	want.Advisor.SyncTimeoutSeconds = 60
	want.Compaction.KeepRecentTokens = 40000
	want.Tools.Bash.TimeoutSeconds = 300
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("the examples load as (-want +got):\n%s", diff)
	}

	// /advisor off changes that one line of the user example.
	if err := Set(UserFile(opts.AgentDir), "advisor.enabled", false); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(UserFile(opts.AgentDir))
	if err != nil {
		t.Fatal(err)
	}
	wantFile := strings.Replace(blocks[0], "enabled: true", "enabled: false", 1)
	if string(got) != wantFile {
		t.Errorf("after /advisor off:\n%s\nwant\n%s", got, wantFile)
	}
}
