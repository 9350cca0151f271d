package history_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// benchEnv is an environment like a developer's: mostly ordinary
// variables, a few secrets.
func benchEnv() []string {
	env := []string{
		"HOME=/home/ana", "PATH=/usr/local/go/bin:/usr/bin:/bin", "SHELL=/bin/bash", "EDITOR=vim",
		"LANG=en_US.UTF-8", "TERM=xterm-256color", "USER=ana", "GOPATH=/home/ana/go",
		"SSH_AUTH_SOCK=/tmp/ssh-XXXX/agent.42", "XDG_SESSION_TYPE=wayland",
		"ANTHROPIC_API_KEY=" + key("sk-ant-", "api03-", strings.Repeat("AbCd0123", 11)),
		"GITHUB_TOKEN=" + key("ghp_", "0123456789abcdefghijABCDEFGHIJ0123456789"),
		"DATABASE_PASSWORD=Tr0ub4dor&3-horse",
	}
	for i := range 20 {
		env = append(env, fmt.Sprintf("APP_SETTING_%d=value-%d", i, i))
	}
	return env
}

// benchOutput is about 5 KB of go test output.
func benchOutput() string {
	var sb strings.Builder
	for i := 0; sb.Len() < 5000; i++ {
		fmt.Fprintf(&sb, "=== RUN   TestParse/case_%03d\n--- PASS: TestParse/case_%03d (0.00s)\n", i, i)
	}
	sb.WriteString("--- FAIL: TestParseEmpty (0.00s)\n    parser_test.go:12: Parse(\"\") = nil, want an empty AST\nFAIL\n")
	return sb.String()
}

// BenchmarkUpdate renders one typical step delta (an assistant message
// with thinking, text and a tool call, and its 5 KB result) as an update,
// with the advisor's options and a redactor built from a typical
// environment.
func BenchmarkUpdate(b *testing.B) {
	delta := []session.Entry{
		{Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
			llm.Thinking("The test for empty input fails; run the package's tests to see the message.", "sig"),
			llm.Text("Let me run the parser tests."),
			call("toolu_01", "bash", map[string]any{"command": "go test ./parser/ -run TestParse -v", "timeout": 120}),
		}}, StopReason: llm.StopToolUse}},
		result("toolu_01", true, benchOutput()),
	}
	opts := history.AdvisorOptions(history.NewRedactor(benchEnv(), map[string]string{"webhook": "hooks-9f8e7d6c5b4a"}))
	var r history.Renderer
	b.ReportAllocs()
	for b.Loop() {
		if r.Update(delta, opts) == "" {
			b.Fatal("empty update")
		}
	}
}

// BenchmarkRedact measures the Redactor per kilobyte on prose, code, and
// tool output holding secrets.
func BenchmarkRedact(b *testing.B) {
	r := history.NewRedactor(benchEnv(), map[string]string{"webhook": "hooks-9f8e7d6c5b4a"})
	prose := "The parser returns nil for an empty input, so the caller dereferences a nil AST and panics. " +
		"Returning an empty AST keeps every caller working; the test expects exactly that. "
	code := "func (p *Parser) Parse(input string) (*AST, error) {\n\tif input == \"\" {\n\t\treturn &AST{}, nil\n\t}\n" +
		"\ttoken := p.lexer.Next()\n\tkey := cacheKey(input)\n\tcfg := map[string]string{\"mode\": \"strict\", \"url\": \"https://example.com/api\"}\n\t_ = cfg\n\treturn p.parse(token, key)\n}\n"
	secrets := "export GITHUB_TOKEN=" + key("ghp_", "0123456789abcdefghijABCDEFGHIJ0123456789") + "\n" +
		"curl -H 'Authorization: Bearer abcDEF0123456789ghiJKL' https://api.example.com\n" +
		"password: Tr0ub4dor&3-horse\nok\tpkg\t0.012s\n"
	for _, c := range []struct{ name, unit string }{{"prose", prose}, {"code", code}, {"secrets", secrets}} {
		text := strings.Repeat(c.unit, 1024/len(c.unit)+1)[:1024]
		b.Run(c.name+"/1KB", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				r.Redact(text)
			}
		})
	}
	big := strings.Repeat(code, 64<<10/len(code))
	b.Run("code/64KB", func(b *testing.B) {
		b.SetBytes(int64(len(big)))
		b.ReportAllocs()
		for b.Loop() {
			r.Redact(big)
		}
	})
}
