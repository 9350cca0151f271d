package fakellm

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// A tool call's namespace reaches the Responses API's function_call item
// (as Codex reads a call of an MCP tool), and no other API's reply.
func TestToolCallNamespace(t *testing.T) {
	s := StartTest(t, MustParse(t, `
rules:
  - steps:
      - tool_calls: [{name: ask_advisor, namespace: mcp__vigil, arguments: {question: q}}]
    repeat: true
`))
	post := func(path, body string) string {
		t.Helper()
		resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %d %s %v", path, resp.StatusCode, b, err)
		}
		return string(b)
	}
	var r struct {
		Output []struct {
			Type, Name, Namespace string
		} `json:"output"`
	}
	if err := json.Unmarshal([]byte(post("/v1/responses", `{"model": "m", "input": "hi"}`)), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Output) != 1 || r.Output[0].Type != "function_call" || r.Output[0].Name != "ask_advisor" || r.Output[0].Namespace != "mcp__vigil" {
		t.Errorf("responses output %+v", r.Output)
	}
	if body := post("/v1/messages", `{"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]}`); strings.Contains(body, "namespace") || !strings.Contains(body, `"ask_advisor"`) {
		t.Errorf("anthropic reply %s", body)
	}
}
