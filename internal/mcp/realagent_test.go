package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/sidecar"
	"github.com/vigil-dev/vigil/llm/anthropic"
)

// serveEnv, in the environment of this test binary, makes it the MCP
// server itself (TestMain), asking the sidecar on that socket: the real
// agents start it as `vigil mcp` would be started.
const serveEnv = "VIGIL_MCP_TEST_SOCKET"

func TestMain(m *testing.M) {
	if sock := os.Getenv(serveEnv); sock != "" {
		err := Serve(context.Background(), "test", SidecarAsker(func() (sidecar.Info, bool) {
			return sidecar.Info{Socket: sock}, true
		}), os.Stdin, os.Stdout)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// claudeBin is the real Claude Code the internal/cli tests install
// (../shared/spec/real-agents-offline.md), or "" when it is not there.
func claudeBin(t *testing.T) string {
	if os.Getenv("VIGIL_SKIP_REAL_AGENTS") == "1" {
		t.Skip("VIGIL_SKIP_REAL_AGENTS=1")
	}
	root := os.Getenv("VIGIL_AGENTS_DIR")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skip("no cache folder for the real agents")
		}
		root = filepath.Join(cache, "vigil", "agents")
	}
	bin := filepath.Join(root, "claude-code@2.1.332", "node_modules", ".bin", "claude")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("Claude Code 2.1.332 is not installed (go test ./internal/cli/ -run ClaudeCode installs it)")
	}
	return bin
}

// The real Claude Code, offline against fakellm, with this server as its
// MCP server "vigil": its model calls mcp__vigil__ask_advisor, the
// question reaches the advisor runtime behind a sidecar's socket, and the
// advisor's answer, escaped, is the tool result of Claude Code's next
// model request.
func TestClaudeCodeAsksTheAdvisor(t *testing.T) {
	bin := claudeBin(t)
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - name: advisor
    model: adv
    steps:
      - text: "ADVISOR-ANSWER: run it on staging first & keep the <backup>."
  - name: done
    model: claude-fake-1
    match: ["ADVISOR-ANSWER"]
    steps:
      - text: "DONE: staging first."
  - name: ask
    model: claude-fake-1
    steps:
      - tool_calls: [{name: mcp__vigil__ask_advisor, arguments: {question: "Should I run the migration on prod now?"}}]
`))
	// The sidecar, with a real advisor runtime on the advisor model.
	d, err := os.MkdirTemp("", "vmcp")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(d)
	dir, err := sidecar.RuntimeDir(func(k string) (string, bool) { return d + "/run", k == "VIGIL_RUNTIME_DIR" })
	if err != nil {
		t.Fatal(err)
	}
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "adv"})
	if err != nil {
		t.Fatal(err)
	}
	host := sidecar.NewHost()
	rt, err := advisor.New(advisor.Options{Model: m, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	rt.Start(context.Background())
	defer rt.Stop()
	key := sidecar.Key{Agent: sidecar.AgentClaudeCode, Session: "real"}
	sc := sidecar.New(sidecar.Options{Key: key, Host: host, Advisor: rt, Transcript: "/t/real.jsonl", Follow: func(string) sidecar.Follower { return quietFollower{} }})
	sctx, stop := context.WithCancel(context.Background())
	served, ready := make(chan error, 1), make(chan byte, 1)
	go func() {
		served <- sidecar.Serve(sctx, sc, sidecar.ServeOptions{Dir: dir, Info: sidecar.Info{Key: key}, Ready: chanWriter(ready)})
	}()
	<-ready
	defer func() {
		stop()
		<-served
	}()

	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{ServerName: map[string]any{
		"type": "stdio", "command": self, "args": []string{}, "env": map[string]string{serveEnv: dir.Socket(key)},
	}}})
	if err != nil {
		t.Fatal(err)
	}
	home, work := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", "Migrate the users table.", "--mcp-config", string(cfg), "--strict-mcp-config",
		"--allowedTools", "mcp__vigil__ask_advisor", "--output-format", "stream-json", "--verbose")
	cmd.Dir = work
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL=" + srv.URL(), "ANTHROPIC_API_KEY=dummy", "ANTHROPIC_MODEL=claude-fake-1",
		"ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-fake-1", "ANTHROPIC_DEFAULT_SONNET_MODEL=claude-fake-1", "ANTHROPIC_DEFAULT_OPUS_MODEL=claude-fake-1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1"}
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("claude: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	var final string
	for _, r := range srv.Requests() {
		if r.Rule == "done" {
			final = string(r.Body)
		}
	}
	if final == "" {
		t.Fatalf("Claude Code never sent the advisor's answer back; stdout:\n%s", out.String())
	}
	if want := `"text":"ADVISOR-ANSWER: run it on staging first &amp; keep the &lt;backup&gt;."`; !strings.Contains(final, want) || !strings.Contains(final, `"type":"tool_result"`) {
		t.Errorf("Claude Code's last request lacks the tool result with the escaped answer %s:\n%s", want, final)
	}
	t.Logf("tool result in the last request: %s", final[max(0, strings.Index(final, "ADVISOR-ANSWER")-200):min(len(final), strings.Index(final, "ADVISOR-ANSWER")+120)])
	if st := rt.Status(); st.Consults != 1 {
		t.Errorf("advisor status %+v, want one consult", st)
	}
	if !strings.Contains(out.String(), "DONE: staging first.") {
		t.Errorf("Claude Code's output lacks its final answer:\n%s", out.String())
	}
}

// codexBin is the real Codex the internal/cli tests install, or skips.
func codexBin(t *testing.T) string {
	if os.Getenv("VIGIL_SKIP_REAL_AGENTS") == "1" {
		t.Skip("VIGIL_SKIP_REAL_AGENTS=1")
	}
	root := os.Getenv("VIGIL_AGENTS_DIR")
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			t.Skip("no cache folder for the real agents")
		}
		root = filepath.Join(cache, "vigil", "agents")
	}
	bin := filepath.Join(root, "codex@0.171.0", "node_modules", ".bin", "codex")
	if _, err := os.Stat(bin); err != nil {
		t.Skip("Codex 0.171.0 is not installed (go test ./internal/cli/ -run Codex installs it)")
	}
	return bin
}

// serveSidecar serves a sidecar with a real advisor runtime on the
// model adv of srv until the test ends, and returns its socket and the
// runtime.
func serveSidecar(t *testing.T, srv *fakellm.Server) (string, *advisor.Runtime) {
	t.Helper()
	d, err := os.MkdirTemp("", "vmcp")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	dir, err := sidecar.RuntimeDir(func(k string) (string, bool) { return d + "/run", k == "VIGIL_RUNTIME_DIR" })
	if err != nil {
		t.Fatal(err)
	}
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "adv"})
	if err != nil {
		t.Fatal(err)
	}
	host := sidecar.NewHost()
	rt, err := advisor.New(advisor.Options{Model: m, Host: host})
	if err != nil {
		t.Fatal(err)
	}
	rt.Start(context.Background())
	key := sidecar.Key{Agent: sidecar.AgentCodex, Session: "real"}
	sc := sidecar.New(sidecar.Options{Key: key, Host: host, Advisor: rt, Transcript: "/t/real.jsonl", Follow: func(string) sidecar.Follower { return quietFollower{} }})
	ctx, stop := context.WithCancel(context.Background())
	served, ready := make(chan error, 1), make(chan byte, 1)
	go func() {
		served <- sidecar.Serve(ctx, sc, sidecar.ServeOptions{Dir: dir, Info: sidecar.Info{Key: key}, Ready: chanWriter(ready)})
	}()
	<-ready
	t.Cleanup(func() {
		stop()
		<-served
		rt.Stop()
	})
	return dir.Socket(key), rt
}

// The real Codex, offline against fakellm, with this server in its
// mcp_servers as vigil: Codex offers the tool as ask_advisor in the
// mcp__vigil namespace; its model calls it, and the advisor's answer,
// escaped, is the function call's output in Codex's next request.
func TestCodexAsksTheAdvisor(t *testing.T) {
	bin := codexBin(t)
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - name: advisor
    model: adv
    steps:
      - text: "ADVISOR-ANSWER: run it on staging first & keep the <backup>."
  - name: done
    model: gpt-fake-1
    match: ["ADVISOR-ANSWER"]
    steps:
      - text: "DONE: staging first."
  - name: ask
    model: gpt-fake-1
    steps:
      - tool_calls: [{name: ask_advisor, namespace: mcp__vigil, arguments: {question: "Should I run the migration on prod now?"}}]
`))
	sock, rt := serveSidecar(t, srv)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	home := t.TempDir()
	codexHome := filepath.Join(home, ".codex")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := fmt.Sprintf(`model = "gpt-fake-1"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"

[mcp_servers.vigil]
command = %q
env = { %s = %q }
`, srv.URL(), self, serveEnv, sock)
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--skip-git-repo-check", "--json", "Migrate the users table.")
	cmd.Dir = home
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "CODEX_HOME=" + codexHome, "FAKE_API_KEY=dummy"}
	var out, errOut bytes.Buffer
	cmd.Stdin = strings.NewReader("")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("codex: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	var final string
	for _, r := range srv.Requests() {
		if r.Rule == "done" {
			final = string(r.Body)
		}
	}
	if final == "" {
		t.Fatalf("Codex never sent the advisor's answer back; stdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
	}
	i := strings.Index(final, "ADVISOR-ANSWER")
	t.Logf("the answer in Codex's last request: %s", final[max(0, i-200):min(len(final), i+120)])
	if !strings.Contains(final, "run it on staging first &amp; keep the &lt;backup&gt;.") || !strings.Contains(final, `"function_call_output"`) {
		t.Errorf("Codex's last request lacks the function call output with the escaped answer:\n%s", final)
	}
	if st := rt.Status(); st.Consults != 1 {
		t.Errorf("advisor status %+v, want one consult", st)
	}
}
