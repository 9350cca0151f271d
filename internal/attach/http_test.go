package attach

import (
	"encoding/json"
	"strings"
	"testing"
)

const hookURL = "http://127.0.0.1:45123/hook/5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e/claude-code"

func TestAttachHTTP(t *testing.T) {
	res, err := AttachWith([]byte(userSettings), "settings.json", ClaudeCode, bin, hookURL)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(res.Data) {
		t.Fatalf("invalid JSON:\n%s", res.Data)
	}
	entries, err := Entries(res.Data, "settings.json", ClaudeCode)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, e := range entries {
		switch {
		case e.URL == hookURL && e.Command == "":
			kinds[e.Event] = "http"
		case e.URL == "" && e.Binary == bin:
			kinds[e.Event] = "command"
		default:
			t.Fatalf("entry %+v", e)
		}
	}
	want := map[string]string{"PostToolUse": "http", "PostToolUseFailure": "http", "Stop": "http", "SessionEnd": "http", "PreCompact": "http", "SessionStart": "command", "UserPromptSubmit": "command"}
	for ev, k := range want {
		if kinds[ev] != k {
			t.Errorf("%s: %q, want %q", ev, kinds[ev], k)
		}
	}
	if !strings.Contains(string(res.Data), `"type": "http"`) || strings.Contains(string(res.Data), `hook claude-code", "timeout"`) {
		t.Logf("%s", res.Data)
	}
	// Again: nothing changes.
	again, err := AttachWith(res.Data, "settings.json", ClaudeCode, bin, hookURL)
	if err != nil || len(again.Changes) != 0 || string(again.Data) != string(res.Data) {
		t.Fatalf("second attach: %v %v", again.Changes, err)
	}
	// Without --http the HTTP hooks become commands again, in place.
	back, err := Attach(res.Data, "settings.json", ClaudeCode, bin)
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := Attach([]byte(userSettings), "settings.json", ClaudeCode, bin)
	if string(back.Data) != string(plain.Data) {
		t.Fatalf("back to commands:\n%s\nwant\n%s", back.Data, plain.Data)
	}
	// Detach removes the HTTP hooks too, and gives back the original.
	gone, err := Detach(res.Data, "settings.json", ClaudeCode)
	if err != nil || string(gone.Data) != userSettings {
		t.Fatalf("detach: %v\n%s", err, gone.Data)
	}
	if _, err := AttachWith(nil, "hooks.json", Codex, bin, hookURL); err == nil {
		t.Fatal("Codex got HTTP hooks")
	}
}

func TestVigilURL(t *testing.T) {
	for url, want := range map[string]bool{
		hookURL: true,
		"http://localhost:9/hook/abc/claude-code":      true,
		"http://127.0.0.1:9/hook/abc/codex":            false,
		"http://example.com:9/hook/abc/claude-code":    false,
		"https://127.0.0.1:9/hook/abc/claude-code":     false,
		"http://127.0.0.1:9/hooks/abc/claude-code":     false,
		"http://127.0.0.1:9/hook//claude-code":         false,
		"http://127.0.0.1:9/hook/abc/claude-code/x":    false,
		"http://127.0.0.1.evil.com/hook/a/claude-code": false,
	} {
		if got := vigilURL(url, ClaudeCode); got != want {
			t.Errorf("vigilURL(%q) = %v", url, got)
		}
	}
}
