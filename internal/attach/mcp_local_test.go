package attach

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMCPLocalScope: a project's MCP server goes into Claude Code's
// local scope, "projects"[PROJECT]."mcpServers" of ~/.claude.json, not
// the shared PROJECT/.mcp.json (issue 28: the entry names this user's
// vigil binary); the rest of the file, other projects' entries
// included, keeps its bytes, and detach gives the file back.
func TestMCPLocalScope(t *testing.T) {
	const project = "/src/app"
	for _, original := range []string{
		"",
		"{\n  \"numStartups\": 3\n}\n",
		"{\n  \"projects\": {\n    \"/src/other\": {\n      \"mcpServers\": {}\n    },\n    \"/src/app\": {\n      \"allowedTools\": []\n    }\n  }\n}\n",
		"{\n  \"projects\": {\n    \"/src/app\": {\n      \"mcpServers\": {\n        \"docs\": {\"command\": \"docs-mcp\"}\n      }\n    }\n  }\n}\n",
	} {
		res, err := attachMCPJSON([]byte(original), "claude.json", mcpVigil, project)
		if err != nil {
			t.Fatalf("%q: %v", original, err)
		}
		var doc struct {
			Projects map[string]struct {
				MCPServers map[string]struct {
					Command string
					Args    []string
				} `json:"mcpServers"`
			}
			MCPServers map[string]any `json:"mcpServers"`
		}
		if err := json.Unmarshal(res.Data, &doc); err != nil {
			t.Fatalf("%q: the result is not JSON: %v\n%s", original, err, res.Data)
		}
		if got := doc.Projects[project].MCPServers["vigil"]; got.Command != mcpVigil || strings.Join(got.Args, " ") != "mcp" {
			t.Errorf("%q: the project's vigil entry is %+v:\n%s", original, got, res.Data)
		}
		if doc.MCPServers != nil {
			t.Errorf("%q: a top-level (user) entry was written:\n%s", original, res.Data)
		}
		if en, err := mcpEntryIn(res.Data, "claude.json", ClaudeCode, project); err != nil || en == nil || !en.Ours {
			t.Errorf("%q: mcpEntryIn = %+v, %v", original, en, err)
		}
		if en, _ := mcpEntryIn(res.Data, "claude.json", ClaudeCode, "/src/other"); en != nil {
			t.Errorf("%q: another project sees the entry", original)
		}
		again, err := attachMCPJSON(res.Data, "claude.json", mcpVigil, project)
		if err != nil || len(again.Changes) != 0 {
			t.Errorf("%q: attach again: %v, %v", original, again.Changes, err)
		}
		back, err := detachMCPJSON(res.Data, "claude.json", project)
		if err != nil {
			t.Fatal(err)
		}
		if original != "" && string(back.Data) != original {
			t.Errorf("detach gave\n%s\nwant the original\n%s", back.Data, original)
		}
	}
}
