package cli_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMCPAskSecretEgress is issue 28's egress test for ask_advisor asked
// through `vigil mcp`: an attached agent's question that quotes secrets
// (an environment variable's value, a key shape, a connection string's
// key, a password assignment) reaches the advisor's model redacted.
func TestMCPAskSecretEgress(t *testing.T) {
	seeds := map[string]string{
		"env":      "mcp-egress-" + "7d1f-live-token",
		"github":   "ghp_" + "McpEgressT0kenAbCdEfGhIjKlMn0123456789",
		"azure":    "McpEgressAzur3AccountK3y" + "0123456789abcdefGHIJ+/kl==",
		"password": "Tr0ub4dor" + "-mcp-3",
	}
	s := newAttached(t, `
rules:
  - name: consult
    model: adv
    match: ["The agent asks you"]
    steps: [{text: "ANSWER-mcp: rotate them first."}]
  - name: advisor-quiet
    model: adv
    repeat: true
    steps: [{text: "Nothing to add."}]
`)
	env := []string{"MCP_EGRESS_TOKEN=" + seeds["env"]}
	transcript := filepath.Join(s.root, "s1.jsonl")
	write(t, transcript, "")
	start, _ := json.Marshal(map[string]any{"session_id": "s1", "hook_event_name": "SessionStart", "source": "startup", "cwd": s.work, "transcript_path": transcript})
	hook := exec.Command(s.vigil, "hook", "claude-code")
	hook.Dir, hook.Env, hook.Stdin = s.work, append(append([]string(nil), s.env...), env...), bytes.NewReader(start)
	if out, err := hook.CombinedOutput(); err != nil {
		t.Fatalf("hook SessionStart: %v\n%s", err, out)
	}

	question := "Deploy with token " + seeds["env"] + " and " + seeds["github"] +
		", storage DefaultEndpointsProtocol=https;AccountName=x;AccountKey=" + seeds["azure"] + ";EndpointSuffix=core.windows.net" +
		" and DB_PASSWORD=" + seeds["password"] + "?"
	answer := mcpAsk(t, s, question)
	if !strings.Contains(answer, "ANSWER-mcp: rotate them first.") {
		t.Fatalf("ask_advisor answered %s\nlogs:\n%s", answer, s.logs(t))
	}
	var asked string
	for _, r := range s.srv.Requests() {
		body := string(r.Body)
		if r.Model != "adv" {
			continue
		}
		for name, secret := range seeds {
			if strings.Contains(body, secret) {
				t.Errorf("an advisor request holds the %s secret", name)
			}
		}
		if r.Rule == "consult" {
			asked = body
		}
	}
	for _, want := range []string{
		"Deploy with token [REDACTED:MCP_EGRESS_TOKEN] and [REDACTED:github-token]",
		"AccountKey=[REDACTED:azure-account-key];",
		"DB_PASSWORD=[REDACTED:secret-assignment]",
	} {
		if !strings.Contains(asked, want) {
			t.Errorf("the consult request lacks %q:\n%s", want, asked)
		}
	}
}

// mcpAsk runs `vigil mcp --agent claude-code --session s1` as an agent
// would, asks question with ask_advisor and returns the response line.
// A server still running after a minute is killed: a hang detector.
func mcpAsk(t *testing.T, s *attachedSetup, question string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, s.vigil, "mcp", "--agent", "claude-code", "--session", "s1")
	cmd.Dir, cmd.Env = s.work, s.env
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	call, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "ask_advisor", "arguments": map[string]any{"question": question}}})
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"egress","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		string(call),
	} {
		if _, err := stdin.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0","id":2,`) {
			return sc.Text()
		}
	}
	t.Fatalf("vigil mcp ended without answering the call: %v\nstderr: %s", sc.Err(), stderr.String())
	return ""
}
