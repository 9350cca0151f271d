package attach

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fastBin = "/usr/local/bin/vigil-hook"

func TestRecognisesTheHookBinary(t *testing.T) {
	for _, tc := range []struct {
		command string
		agent   Agent
		binary  string
		fast    bool
		rest    string
	}{
		{"/usr/local/bin/vigil-hook claude-code", ClaudeCode, fastBin, true, ""},
		{"'/Users/a b/vigil-hook' codex --debug", Codex, "/Users/a b/vigil-hook", true, " --debug"},
		{"vigil-hook codex", Codex, "vigil-hook", true, ""},
		{"/usr/local/bin/vigil-hook hook codex", Codex, fastBin, false, ""},
		{"/usr/local/bin/vigil-hook codex", ClaudeCode, "", false, ""},
		{"/usr/local/bin/vigil claude-code", ClaudeCode, "", false, ""},
		{"/usr/local/bin/vigil-hook", ClaudeCode, "", false, ""},
		{"/opt/hook claude-code", ClaudeCode, "", false, ""},
	} {
		binary, end, fast, ok := vigilBinary(tc.command, tc.agent)
		if binary != tc.binary || fast != tc.fast || ok != (tc.binary != "") || ok && tc.command[end:] != tc.rest {
			t.Errorf("vigilBinary(%q, %s) = %q, %d, %v, %v", tc.command, tc.agent, binary, end, fast, ok)
		}
	}
	if got := Command("/opt/my tools/vigil-hook", Codex); got != "'/opt/my tools/vigil-hook' codex" {
		t.Errorf("Command: %s", got)
	}
	if got := Command(bin, Codex); got != bin+" hook codex" {
		t.Errorf("Command: %s", got)
	}
}

// TestAttachSwitchesToTheHookBinary: attaching with the hook binary
// over vigil's `vigil hook` entries rewrites them in place to
// `vigil-hook AGENT` (extra words kept), attaching with vigil again
// turns them back, and detach removes either form.
func TestAttachSwitchesToTheHookBinary(t *testing.T) {
	in := `{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "/usr/local/bin/vigil hook codex --debug"}]}]}}`
	old, err := Attach([]byte(in), "hooks.json", Codex, bin)
	if err != nil {
		t.Fatal(err)
	}
	fast, err := Attach(old.Data, "hooks.json", Codex, fastBin)
	if err != nil {
		t.Fatal(err)
	}
	fresh, err := Attach([]byte(`{"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "/usr/local/bin/vigil-hook codex --debug"}]}]}}`), "hooks.json", Codex, fastBin)
	if err != nil {
		t.Fatal(err)
	}
	if string(fast.Data) != string(fresh.Data) {
		t.Errorf("switching to the hook binary\n%s\nis not attaching with it\n%s", fast.Data, fresh.Data)
	}
	if strings.Contains(string(fast.Data), " hook codex") || !strings.Contains(string(fast.Data), `"/usr/local/bin/vigil-hook codex --debug"`) {
		t.Errorf("after the switch:\n%s", fast.Data)
	}
	if len(fast.Changes) != len(Hooks(Codex))+1 {
		t.Errorf("changes %+v", fast.Changes)
	}
	for _, c := range fast.Changes {
		if c.Action != Updated || !strings.HasPrefix(c.Now, fastBin+" codex") || !strings.HasPrefix(c.Was, bin+" hook codex") {
			t.Errorf("change %+v", c)
		}
	}
	again, err := Attach(fast.Data, "hooks.json", Codex, fastBin)
	if err != nil || len(again.Changes) != 0 {
		t.Fatalf("attaching twice: %v %+v", err, again.Changes)
	}
	entries, err := Entries(fast.Data, "hooks.json", Codex)
	if err != nil || len(entries) != len(Hooks(Codex))+1 || entries[0].Binary != fastBin {
		t.Fatalf("entries %+v, %v", entries, err)
	}
	back, err := Attach(fast.Data, "hooks.json", Codex, bin)
	if err != nil || string(back.Data) != string(old.Data) {
		t.Fatalf("back to vigil hook: %v\n%s\nwant\n%s", err, back.Data, old.Data)
	}
	gone, err := Detach(fast.Data, "hooks.json", Codex)
	if err != nil || strings.Contains(string(gone.Data), "vigil") {
		t.Fatalf("detach: %v\n%s", err, gone.Data)
	}
}

func TestHookBinary(t *testing.T) {
	dir := t.TempDir()
	vigil := filepath.Join(dir, "vigil")
	if got := HookBinary(vigil); got != vigil {
		t.Fatalf("with no vigil-hook beside it: %s", got)
	}
	os.Mkdir(filepath.Join(dir, "vigil-hook"), 0o755)
	if got := HookBinary(vigil); got != vigil {
		t.Fatalf("a folder named vigil-hook: %s", got)
	}
	os.Remove(filepath.Join(dir, "vigil-hook"))
	os.WriteFile(filepath.Join(dir, "vigil-hook"), []byte("#!/bin/sh\n"), 0o644)
	if got := HookBinary(vigil); got != vigil {
		t.Fatalf("a vigil-hook that cannot run: %s", got)
	}
	os.Chmod(filepath.Join(dir, "vigil-hook"), 0o755)
	if got := HookBinary(vigil); got != filepath.Join(dir, "vigil-hook") {
		t.Fatalf("beside it: %s", got)
	}
}

// TestHookBinaryNeedsItsVigil: status calls a vigil-hook missing when
// the vigil it starts sidecars with is not beside it.
func TestHookBinaryNeedsItsVigil(t *testing.T) {
	dir := t.TempDir()
	fast := filepath.Join(dir, "vigil-hook")
	os.WriteFile(fast, []byte("#!/bin/sh\n"), 0o755)
	if binaryExists(fast) {
		t.Fatal("a vigil-hook with no vigil beside it can run")
	}
	os.WriteFile(filepath.Join(dir, "vigil"), []byte("#!/bin/sh\n"), 0o755)
	if !binaryExists(fast) {
		t.Fatal("a vigil-hook with its vigil cannot run")
	}
}
