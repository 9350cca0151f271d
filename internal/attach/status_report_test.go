package attach

import (
	"context"
	"errors"
	"testing"
)

// TestAttachmentReportState: the State column of vigil status, for
// each kind of attachment.
func TestAttachmentReportState(t *testing.T) {
	hooks := []Entry{{Event: "Stop"}, {Event: "PreToolUse", URL: "http://127.0.0.1:1/h"}}
	for _, tc := range []struct {
		name string
		a    Attachment
		want string
	}{
		{"none", Attachment{Agent: Codex, File: "f"}, "not attached"},
		{"unreadable", Attachment{Agent: Codex, Err: errors.New("f:1:2: bad")}, "unreadable: f:1:2: bad"},
		{"partial", Attachment{Agent: ClaudeCode, Entries: hooks[:1], Missing: []string{"PreCompact", "SessionEnd"}}, "partly attached (missing PreCompact, SessionEnd; run vigil attach again)"},
		{"http", Attachment{Agent: ClaudeCode, Entries: hooks, Binaries: []Binary{{Path: "/bin/vigil-hook"}, {Path: "/bin/vigil", Exists: true}}},
			"attached: 2 hooks, /bin/vigil-hook (missing), /bin/vigil (1 over HTTP to vigil hookd)"},
		{"shared", Attachment{Agent: ClaudeCode, Entries: hooks[:1], Shared: true},
			"attached: 1 hook, ; this file is shared with the project and holds your vigil's path (and hookd's secret): run vigil attach again to move the hooks to settings.local.json, or vigil detach"},
		{"mcp", Attachment{Agent: Codex, MCP: &MCPStatus{File: "config.toml", Err: errors.New("config.toml:3: bad")}}, "not attached; MCP settings unreadable: config.toml:3: bad"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a.Report(context.Background(), "", t.TempDir()).State(); got != tc.want {
				t.Errorf("State() = %q, want %q", got, tc.want)
			}
		})
	}
}
