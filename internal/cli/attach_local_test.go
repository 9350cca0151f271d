package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookdSecret is the secret of the throwaway home's hookd.json, "" when
// there is none.
func (h *attachHome) hookdSecret(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.home, "agent", "hookd.json"))
	if err != nil {
		return ""
	}
	var c struct{ Secret string }
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Secret
}

// TestAttachKeepsSecretsOutOfSharedFiles is item 7 of issue 28: attach
// --http wrote hookd's URL, with its per-user secret, into the
// project's .claude/settings.json, which teams commit. The hooks (and
// with them that URL and the path of the user's vigil binary) go into
// .claude/settings.local.json, which Claude Code reads for exactly
// this and does not share; settings.json is not touched.
func TestAttachKeepsSecretsOutOfSharedFiles(t *testing.T) {
	h := newAttachHome(t)
	shared := filepath.Join(h.project, ".claude", "settings.json")
	local := filepath.Join(h.project, ".claude", "settings.local.json")
	write(t, shared, "{\n  \"model\": \"opus\"\n}\n")
	out, errOut, code := h.run(t, h.sub, "attach", "claude-code", "--http", "--no-mcp", "--command", h.vigil)
	if code != 0 {
		t.Fatalf("attach --http: exit %d\n%s", code, errOut)
	}
	secret := h.hookdSecret(t)
	if secret == "" {
		t.Fatal("no hookd.json after attach --http")
	}
	wantIn(t, "output", out, "vigil attached to Claude Code in "+local+":\n")
	if got := readString(t, shared); got != "{\n  \"model\": \"opus\"\n}\n" {
		t.Errorf("settings.json changed:\n%s", got)
	}
	got := readString(t, local)
	wantIn(t, "settings.local.json", got, `"type": "http"`, secret, h.vigil+" hook claude-code")
	if b := backups(t, shared); len(b) != 0 {
		t.Errorf("backups of settings.json: %v", b)
	}
	// vigil made settings.local.json, so git does not know to leave it
	// out: the repository's info/exclude lists it.
	exclude := filepath.Join(h.project, ".git", "info", "exclude")
	if b, _ := os.ReadFile(exclude); !strings.Contains(string(b), "\n/.claude/settings.local.json\n") {
		t.Errorf("%s does not list settings.local.json:\n%s", exclude, b)
	}
	wantIn(t, "output", out, exclude)

	// Status and detach find the hooks there; detach removes the file it
	// leaves empty, which attach created.
	out, _, _ = h.run(t, h.sub, "status")
	wantIn(t, "status", out, local)
	out, errOut, code = h.run(t, h.sub, "detach", "claude-code")
	if code != 0 {
		t.Fatalf("detach: exit %d\n%s", code, errOut)
	}
	wantIn(t, "detach", out, "vigil detached from Claude Code in "+local+":\n")
	if _, err := os.Stat(local); err == nil {
		t.Errorf("detach left %s:\n%s", local, readString(t, local))
	}
	if b, _ := os.ReadFile(exclude); strings.Contains(string(b), "settings.local.json") {
		t.Errorf("detach left the line in %s:\n%s", exclude, b)
	}
}

// TestAttachMovesOldHooksOutOfSettingsJSON: a project attached by an
// older vigil has vigil's hooks (and hookd's secret) in
// .claude/settings.json. Attaching again moves them to
// settings.local.json; detach, with or without that, removes them from
// both; status reports them where they are.
func TestAttachMovesOldHooksOutOfSettingsJSON(t *testing.T) {
	h := newAttachHome(t)
	shared := filepath.Join(h.project, ".claude", "settings.json")
	local := filepath.Join(h.project, ".claude", "settings.local.json")
	original := "{\n  \"model\": \"opus\"\n}\n"
	old := "{\n  \"model\": \"opus\",\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [\n          {\"type\": \"http\", \"url\": \"http://127.0.0.1:4242/hook/" + strings.Repeat("ab", 24) + "/claude-code\", \"timeout\": 45}\n        ]\n      }\n    ],\n    \"SessionStart\": [\n      {\n        \"hooks\": [\n          {\"type\": \"command\", \"command\": \"" + h.vigil + " hook claude-code\", \"timeout\": 10}\n        ]\n      }\n    ]\n  }\n}\n"

	// Detach of what the old version wrote.
	write(t, shared, old)
	out, _, _ := h.run(t, h.sub, "status")
	wantIn(t, "status of the old attachment", out, shared)
	out, errOut, code := h.run(t, h.sub, "detach", "claude-code")
	if code != 0 {
		t.Fatalf("detach: exit %d\n%s", code, errOut)
	}
	wantIn(t, "detach", out, shared)
	if got := readString(t, shared); got != original {
		t.Errorf("after detach, settings.json:\n%s\nwant:\n%s", got, original)
	}

	// Attach over what the old version wrote: moved.
	write(t, shared, old)
	out, errOut, code = h.run(t, h.sub, "attach", "claude-code", "--no-mcp", "--command", h.vigil)
	if code != 0 {
		t.Fatalf("attach: exit %d\n%s", code, errOut)
	}
	wantIn(t, "attach", out, local, shared)
	if got := readString(t, shared); got != original {
		t.Errorf("after attach, settings.json:\n%s\nwant:\n%s", got, original)
	}
	wantIn(t, "settings.local.json", readString(t, local), h.vigil+" hook claude-code")
}

// TestAttachHTTPDryRunWritesNothing is item 18 of issue 28: attach
// --http --dry-run wrote hookd.json.
func TestAttachHTTPDryRunWritesNothing(t *testing.T) {
	h := newAttachHome(t)
	out, errOut, code := h.run(t, h.sub, "attach", "claude-code", "--http", "--dry-run", "--command", h.vigil)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, errOut)
	}
	wantIn(t, "dry run", out, "not written")
	if _, err := os.Stat(filepath.Join(h.home, "agent", "hookd.json")); err == nil {
		t.Error("the dry run wrote hookd.json")
	}
	if _, err := os.Stat(filepath.Join(h.project, ".claude")); err == nil {
		t.Error("the dry run wrote the project's settings")
	}
}

// TestDetachCleansUp is item 18 of issue 28: detach left {} files and
// backups behind. A hooks file attach created is removed once detach
// empties it; detach writes no backup of its own (it removes only
// vigil's entries), removes attach's backups it has made redundant
// (the file is back to their content), and says where the others are.
func TestDetachCleansUp(t *testing.T) {
	h := newAttachHome(t)
	hooks := filepath.Join(h.codexHome, "hooks.json")
	if _, errOut, code := h.run(t, h.sub, "attach", "codex", "--no-mcp", "--command", h.vigil); code != 0 {
		t.Fatalf("attach codex: %s", errOut)
	}
	if _, errOut, code := h.run(t, h.sub, "detach", "codex"); code != 0 {
		t.Fatalf("detach codex: %s", errOut)
	}
	if _, err := os.Stat(hooks); err == nil {
		t.Errorf("detach left %s:\n%s", hooks, readString(t, hooks))
	}
	if b := backups(t, hooks); len(b) != 0 {
		t.Errorf("detach left backups %v", b)
	}

	// A file that was there before: back to it, with no backup left
	// that holds what it holds now.
	local := filepath.Join(h.project, ".claude", "settings.local.json")
	original := "{\n  \"permissions\": {\"allow\": [\"Bash(ls:*)\"]}\n}\n"
	write(t, local, original)
	if _, errOut, code := h.run(t, h.sub, "attach", "claude-code", "--no-mcp", "--command", h.vigil); code != 0 {
		t.Fatalf("attach: %s", errOut)
	}
	// A second attach with another binary: its backup holds vigil's
	// entries, which detach does not give back.
	if _, errOut, code := h.run(t, h.sub, "attach", "claude-code", "--no-mcp", "--command", filepath.Join(h.home, "bin", "vigil2")); code != 0 {
		t.Fatalf("attach again: %s", errOut)
	}
	if b := backups(t, local); len(b) != 2 {
		t.Fatalf("backups after two attaches: %v", b)
	}
	out, errOut, code := h.run(t, h.sub, "detach", "claude-code")
	if code != 0 {
		t.Fatalf("detach: %s", errOut)
	}
	if got := readString(t, local); got != original {
		t.Errorf("after detach:\n%s\nwant:\n%s", got, original)
	}
	left := backups(t, local)
	if len(left) != 1 || readString(t, left[0]) == original {
		t.Errorf("backups left %v: want only the one that holds something else", left)
	}
	if len(left) == 1 {
		wantIn(t, "detach output", out, left[0])
	}
}

// TestAttachProjectWritesNothingShared: attach --http of a project,
// MCP server included, puts neither hookd's secret nor the user's vigil
// path in a file under the project that is meant to be committed
// (anything but .claude/settings.local.json); an .mcp.json where an
// older vigil registered its server loses that entry (and goes, left
// empty), and detach takes it out of both places.
func TestAttachProjectWritesNothingShared(t *testing.T) {
	h := newAttachHome(t)
	mcpJSON := filepath.Join(h.project, ".mcp.json")
	write(t, mcpJSON, "{\n  \"mcpServers\": {\n    \"vigil\": {\"type\": \"stdio\", \"command\": \""+h.vigil+"\", \"args\": [\"mcp\"]}\n  }\n}\n")
	out, errOut, code := h.run(t, h.sub, "attach", "claude-code", "--http", "--command", h.vigil)
	if code != 0 {
		t.Fatalf("attach: exit %d\n%s", code, errOut)
	}
	secret := h.hookdSecret(t)
	wantIn(t, "attach", out, "removed from "+mcpJSON)
	if _, err := os.Stat(mcpJSON); err == nil {
		t.Errorf("%s is left:\n%s", mcpJSON, readString(t, mcpJSON))
	}
	filepath.Walk(h.project, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() || filepath.Base(path) == "settings.local.json" || strings.Contains(path, ".vigil-backup-") {
			return nil
		}
		b, _ := os.ReadFile(path)
		if strings.Contains(string(b), secret) || strings.Contains(string(b), h.vigil) {
			t.Errorf("%s holds hookd's secret or the user's vigil path:\n%s", path, b)
		}
		return nil
	})
	claudeJSON := readString(t, filepath.Join(h.home, ".claude.json"))
	wantIn(t, "~/.claude.json", claudeJSON, h.project, h.vigil)
	out, _, _ = h.run(t, h.sub, "status", "--json")
	wantIn(t, "status", out, `"project":"`+h.project+`","registered":true`)
	if _, errOut, code := h.run(t, h.sub, "detach", "claude-code"); code != 0 {
		t.Fatalf("detach: %s", errOut)
	}
	if got := readString(t, filepath.Join(h.home, ".claude.json")); strings.Contains(got, h.vigil) {
		t.Errorf("detach left vigil in ~/.claude.json:\n%s", got)
	}
}
