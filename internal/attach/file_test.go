package attach

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var noon = time.Date(2026, 11, 30, 12, 0, 5, 0, time.Local)

func TestWriteNewFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "proj", ".claude", "settings.json")
	p, err := PlanAttach(file, ClaudeCode, bin, "")
	if err != nil {
		t.Fatal(err)
	}
	if p.Exists || !p.Changed() {
		t.Fatalf("plan of a missing file: exists %v, changed %v", p.Exists, p.Changed())
	}
	backup, err := p.Write(noon)
	if err != nil {
		t.Fatal(err)
	}
	if backup != "" {
		t.Errorf("backup %s of a file that did not exist", backup)
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(p.Data) {
		t.Errorf("wrote\n%s\nwant\n%s", got, p.Data)
	}
	assertMode(t, file, 0o644)
	assertFiles(t, filepath.Dir(file), "settings.json")
}

func TestWriteKeepsModeAndBacksUp(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	if err := os.WriteFile(file, []byte(userSettings), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := PlanAttach(file, ClaudeCode, bin, "")
	if err != nil {
		t.Fatal(err)
	}
	backup, err := p.Write(noon)
	if err != nil {
		t.Fatal(err)
	}
	if want := file + ".vigil-backup-20261130-120005"; backup != want {
		t.Errorf("backup %s, want %s", backup, want)
	}
	assertContent(t, backup, userSettings)
	assertMode(t, backup, 0o600)
	assertContent(t, file, string(p.Data))
	assertMode(t, file, 0o600)

	// A second attach in the same second keeps the first backup.
	p2, err := PlanAttach(file, ClaudeCode, "/elsewhere/vigil", "")
	if err != nil {
		t.Fatal(err)
	}
	second, err := p2.Write(noon)
	if err != nil {
		t.Fatal(err)
	}
	if second != backup+"-2" {
		t.Errorf("second backup %s, want %s-2", second, backup)
	}
	assertContent(t, backup, userSettings)
	assertContent(t, second, string(p.Data))

	// Detach keeps no backup: it takes out vigil's entries only.
	d, err := PlanDetach(file, ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	if third, err := d.Write(noon); err != nil || third != "" {
		t.Errorf("detach: backup %q, %v; want none", third, err)
	}
	assertContent(t, file, userSettings)
	assertFiles(t, dir, "settings.json", "settings.json.vigil-backup-20261130-120005", "settings.json.vigil-backup-20261130-120005-2")
	// The backup that holds what the file holds again goes; the other
	// stays.
	kept, err := d.PruneBackups()
	if err != nil || len(kept) != 1 || kept[0] != second {
		t.Errorf("PruneBackups kept %v, %v; want %s", kept, err, second)
	}
	assertFiles(t, dir, "settings.json", "settings.json.vigil-backup-20261130-120005-2")
}

func TestWriteThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "dotfiles", "claude-settings.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "settings.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	p, err := PlanAttach(link, ClaudeCode, bin, "")
	if err != nil {
		t.Fatal(err)
	}
	backup, err := p.Write(noon)
	if err != nil {
		t.Fatal(err)
	}
	if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", info, err)
	}
	assertContent(t, real, string(p.Data))
	if filepath.Dir(backup) != filepath.Dir(real) {
		t.Errorf("backup %s is not beside %s", backup, real)
	}
}

func TestWriteRefusesAFileChangedMeanwhile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(file, []byte(userSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := PlanAttach(file, ClaudeCode, bin, "")
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(userSettings, "opus", "sonnet", 1)
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Write(noon); err == nil || !strings.Contains(err.Error(), "changed while vigil was editing it") {
		t.Fatalf("Write = %v, want a refusal", err)
	}
	assertContent(t, file, edited)
	assertFiles(t, filepath.Dir(file), "settings.json")
}

func TestMalformedFileIsNeverWritten(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "settings.json")
	bad := "{\n  \"model\": \"opus\",\n  // my note\n}\n"
	if err := os.WriteFile(file, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, plan := range []func() (*Plan, error){
		func() (*Plan, error) { return PlanAttach(file, ClaudeCode, bin, "") },
		func() (*Plan, error) { return PlanDetach(file, ClaudeCode) },
	} {
		_, err := plan()
		if want := file + ":3:3: a comment"; err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("error %v, want one starting %s", err, want)
		}
	}
	assertContent(t, file, bad)
	assertFiles(t, dir, "settings.json")
}

func TestDiff(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hooks.json")
	in := "{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"say done\"}]\n      }\n    ]\n  }\n}\n"
	if err := os.WriteFile(file, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Attach([]byte(in), file, Codex, bin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, res.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := PlanDetach(file, Codex)
	if err != nil {
		t.Fatal(err)
	}
	want := "--- " + file + "\n+++ " + file + "\n" + `@@ -3,60 +3,6 @@
     "Stop": [
       {
         "hooks": [{"type": "command", "command": "say done"}]
-      },
-      {
-        "hooks": [
-          {
-            "type": "command",
-            "command": "/usr/local/bin/vigil hook codex",
-            "timeout": 45
-          }
-        ]
-      }
-    ],
-    "PostToolUse": [
`
	if got := p.Diff(); !strings.HasPrefix(got, want) {
		t.Errorf("diff:\n%s\nwant it to start with:\n%s", got, want)
	}
	// A new file's diff comes from /dev/null.
	p, err = PlanAttach(filepath.Join(t.TempDir(), "hooks.json"), Codex, bin, "")
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Diff(); !strings.HasPrefix(d, "--- /dev/null\n") || !strings.Contains(d, "\n+{\n") {
		t.Errorf("diff of a new file:\n%s", d)
	}
	// No change, no diff.
	p.Result = &Result{Data: p.Old}
	if d := p.Diff(); d != "" {
		t.Errorf("diff without changes: %q", d)
	}
}

func assertContent(t *testing.T, file, want string) {
	t.Helper()
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("%s (-want +got):\n%s", file, diff)
	}
}

func assertMode(t *testing.T, file string, want os.FileMode) {
	t.Helper()
	info, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != want {
		t.Errorf("%s: mode %v, want %v", file, info.Mode().Perm(), want)
	}
}

// assertFiles checks that dir holds exactly names: no temporary file left.
func assertFiles(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if diff := cmp.Diff(names, got); diff != "" {
		t.Errorf("files in %s (-want +got):\n%s", dir, diff)
	}
}
