package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/fakellm"
)

// attachedSetup is one real agent run with vigil attached: the folders,
// the environment and fakellm serving both the agent and vigil's advisor.
type attachedSetup struct {
	srv      *fakellm.Server
	root     string
	work     string
	home     string
	agentDir string
	runDir   string
	vigil    string
	// hookBin is what the hooks run (--command): vigil unless a test
	// sets the small vigil-hook.
	hookBin string
	env     []string
}

// newAttached prepares a run: fakellm with script, a work folder with a
// check that always fails the same way, vigil's agent folder with the
// advisor on fakellm (model fake/adv) waiting for each review at the
// agent's tool boundaries (syncBacklog 1), and no immune turns, so that
// what lands where does not depend on timing.
func newAttached(t *testing.T, script string) *attachedSetup {
	t.Helper()
	s := &attachedSetup{srv: fakellm.StartTest(t, fakellm.MustParse(t, script)), vigil: builtVigil(t)}
	s.hookBin = s.vigil
	s.root = t.TempDir()
	s.work = filepath.Join(s.root, "work")
	s.home = filepath.Join(s.root, "home")
	s.agentDir = filepath.Join(s.home, ".vigil", "agent")
	// Unix socket paths are short: the runtime folder is not under root.
	run, err := os.MkdirTemp("", "vrun")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	s.runDir = filepath.Join(run, "r")
	for _, d := range []string{s.work, s.agentDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(s.work, "fail.sh"), "echo 'check.c:12: error: expected ; before }' >&2\nexit 1\n")
	write(t, filepath.Join(s.agentDir, "models.yml"), fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: adv, contextWindow: 200000, maxTokens: 4096}\n", s.srv.URL()))
	write(t, filepath.Join(s.agentDir, "config.yml"), "modelRoles:\n  advisor: fake/adv\nadvisor:\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n  immuneTurns: 0\n")
	s.env = []string{
		"HOME=" + s.home,
		"PATH=" + os.Getenv("PATH"),
		"VIGIL_AGENT_DIR=" + s.agentDir,
		"VIGIL_RUNTIME_DIR=" + s.runDir,
	}
	t.Cleanup(func() { s.stopSidecars(t) })
	return s
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// vigilCmd runs the built vigil with the setup's environment.
func (s *attachedSetup) vigilCmd(t *testing.T, extraEnv []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(s.vigil, args...)
	cmd.Dir = s.work
	cmd.Env = append(append([]string(nil), s.env...), extraEnv...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vigil %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stopSidecars ends the sidecars the run started, as SessionEnd would
// (print mode may exit before its SessionEnd hook reaches them).
func (s *attachedSetup) stopSidecars(t *testing.T) {
	matches, _ := filepath.Glob(filepath.Join(s.runDir, "*.json"))
	for _, m := range matches {
		b, err := os.ReadFile(m)
		if err != nil {
			continue
		}
		var pid int
		if i := bytes.Index(b, []byte(`"pid": `)); i >= 0 {
			fmt.Sscanf(string(b[i+len(`"pid": `):]), "%d", &pid)
		}
		if pid > 0 {
			if p, err := os.FindProcess(pid); err == nil {
				p.Signal(os.Interrupt)
			}
		}
	}
}

// primary returns the requests the agent (not the advisor) made, in
// order, as their raw bodies.
func (s *attachedSetup) primary(model string) []string {
	var out []string
	for _, r := range s.srv.Requests() {
		if r.Model == model {
			out = append(out, string(r.Body))
		}
	}
	return out
}

// firstWith is the index of the first body containing text, -1 if none.
func firstWith(bodies []string, text string) int {
	for i, b := range bodies {
		if strings.Contains(b, text) {
			return i
		}
	}
	return -1
}

func (s *attachedSetup) logs(t *testing.T) string {
	var b strings.Builder
	matches, _ := filepath.Glob(filepath.Join(s.runDir, "*.log"))
	for _, m := range matches {
		data, _ := os.ReadFile(m)
		fmt.Fprintf(&b, "== %s\n%s\n", filepath.Base(m), data)
	}
	return b.String()
}

// attachedAdvisorScript scripts vigil's advisor: a concern when it reviews the
// step whose text is "Attempt two.", another when it reviews the final
// claim, and nothing to add otherwise.
const attachedAdvisorScript = `
  - name: advisor-final
    model: adv
    match: ["Done. All checks pass."]
    steps:
      - tool_calls: [{name: advise, arguments: {note: "ADVICE-STOP the last run of fail.sh failed; do not claim success", severity: concern}}]
      - text: Noted.
  - name: advisor-repeat
    model: adv
    match: ["Attempt two."]
    steps:
      - tool_calls: [{name: advise, arguments: {note: "ADVICE-REPEAT fail.sh fails the same way every time; read check.c:12 before running it again", severity: concern}}]
      - text: Noted.
  - name: advisor-quiet
    model: adv
    repeat: true
    steps: [{text: "Nothing to add."}]
`

// checkRepeatRun asserts what the repeat scenario must show in the
// agent's requests: the concern about the repeated failure in the
// request right after the third run's result (the hook at that tool
// boundary waited for the review of the second), placed after that
// result; and the Stop block's concern in one more request, the last.
func checkRepeatRun(t *testing.T, s *attachedSetup, model string) {
	t.Helper()
	if logs := s.logs(t); strings.Contains(logs, "going on without it") {
		t.Errorf("the sidecar gave up waiting for the transcript:\n%s", logs)
	}
	bodies := s.primary(model)
	if len(bodies) != 5 {
		t.Fatalf("the agent made %d model requests, want 5 (4 scripted + 1 after the Stop block)\n%s", len(bodies), s.logs(t))
	}
	// The review of the second run's step is done by the time the hook
	// of the third run's boundary answers (it waits for it); whether the
	// concern already went with the second run's boundary depends on
	// whether the agent had written that result to its transcript when
	// it called the hook.
	i := firstWith(bodies, "ADVICE-REPEAT")
	if i != 2 && i != 3 {
		t.Fatalf("the repeat concern first reached request %d, want 3 or 4 (after the second or third run's result)\n%s", i+1, s.logs(t))
	}
	b := bodies[i]
	attempt := "Attempt two."
	if i == 3 {
		attempt = "Attempt three."
	}
	if at, after := strings.Index(b, "ADVICE-REPEAT"), strings.LastIndex(b, attempt); after < 0 || at < after || strings.Contains(b[at:], "Attempt") {
		t.Fatalf("the concern is not right after the last attempt's result in request %d", i+1)
	}
	if !strings.Contains(b, "&lt;advisory") && !strings.Contains(b, "<advisory") && !strings.Contains(b, `\u003cadvisory`) {
		t.Fatalf("the concern is not wrapped in an <advisory> element in request %d:\n%.2000s", i+1, b)
	}
	at := strings.Index(b, "ADVICE-REPEAT")
	t.Logf("request %d around the concern: %s", i+1, b[max(at-300, 0):min(at+100, len(b))])
	if i := firstWith(bodies, "ADVICE-STOP"); i != 4 {
		t.Fatalf("the Stop block's concern first reached request %d, want 5\n%s", i+1, s.logs(t))
	}
	at = strings.Index(bodies[4], "ADVICE-STOP")
	t.Logf("request 5 around the Stop block: %s", bodies[4][max(at-300, 0):min(at+100, len(bodies[4]))])
}

// The primary script the repeat scenario shares between agents: three
// runs of the failing check, a false claim, and the answer to the block.
func repeatScript(model, call string) string {
	return fmt.Sprintf(`rules:
%s
  - name: primary
    model: %s
    steps:
      - text: Attempt one.
        tool_calls: [%s]
      - text: Attempt two.
        tool_calls: [%s]
      - text: Attempt three.
        tool_calls: [%s]
      - text: Done. All checks pass.
      - text: You are right, fail.sh still fails; I could not fix check.c.
  - name: primary-unscripted
    model: %s
    repeat: true
    steps: [{text: "(unscripted request)"}]
`, attachedAdvisorScript, model, call, call, call, model)
}

func (s *attachedSetup) claude(t *testing.T, bin, prompt string) (string, error) {
	t.Helper()
	return s.claudeWith(t, bin, prompt, "Bash")
}

// claudeWith is claude with the tools allowed without asking.
func (s *attachedSetup) claudeWith(t *testing.T, bin, prompt, allowed string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-p", prompt, "--allowedTools", allowed, "--output-format", "stream-json", "--verbose")
	cmd.Dir = s.work
	cmd.Env = append(append([]string(nil), s.env...),
		"ANTHROPIC_BASE_URL="+s.srv.URL(), "ANTHROPIC_API_KEY=dummy", "ANTHROPIC_MODEL=claude-fake-1",
		"ANTHROPIC_DEFAULT_HAIKU_MODEL=claude-fake-1", "ANTHROPIC_DEFAULT_SONNET_MODEL=claude-fake-1", "ANTHROPIC_DEFAULT_OPUS_MODEL=claude-fake-1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%v\nstderr:\n%s", err, errOut.String())
	}
	return out.String(), nil
}

const claudeBash = `{name: Bash, arguments: {command: "sh fail.sh", description: "Run the check"}}`

// TestClaudeCodeAttached drives the real Claude Code in print mode with
// vigil attached by `vigil attach claude-code`: the advisor's concern
// about a repeated failure reaches the agent's next model request at the
// tool boundary, and a concern about its false claim blocks its Stop so
// that it takes one more turn.
func TestClaudeCodeAttached(t *testing.T) {
	bin := realAgent(t, "claude-code")
	s := newAttached(t, repeatScript("claude-fake-1", claudeBash))
	s.vigilCmd(t, nil, "attach", "claude-code", "--project", s.work, "--command", s.vigil)
	out, err := s.claude(t, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(out, "I could not fix check.c") {
		t.Fatalf("the agent's last answer is not the scripted one:\n%s", out)
	}
	checkRepeatRun(t, s, "claude-fake-1")
	// The advisor's transcript is in vigil's folder for that session.
	advs, _ := filepath.Glob(filepath.Join(s.agentDir, "sessions", "*", "*", "__advisor.jsonl"))
	if len(advs) != 1 {
		t.Fatalf("advisor transcripts: %v", advs)
	}
	if b, _ := os.ReadFile(advs[0]); !bytes.Contains(b, []byte("ADVICE-REPEAT")) {
		t.Fatalf("the advisor transcript lacks its note:\n%s", b)
	}
}

// TestClaudeCodeAttachedFastHook is TestClaudeCodeAttached with the
// hooks running the small vigil-hook beside vigil, as `vigil attach`
// installs them when it finds it there: the same notes at the same
// places, the sidecar started by vigil-hook with the vigil beside it.
func TestClaudeCodeAttachedFastHook(t *testing.T) {
	bin := realAgent(t, "claude-code")
	s := newAttached(t, repeatScript("claude-fake-1", claudeBash))
	s.hookBin = builtVigilHook(t)
	out := s.vigilCmd(t, nil, "attach", "claude-code", "--project", s.work, "--command", s.hookBin)
	if !strings.Contains(out, "command: "+s.hookBin+" claude-code\n") {
		t.Fatalf("attach said:\n%s", out)
	}
	settings, _ := os.ReadFile(filepath.Join(s.work, ".claude", "settings.local.json"))
	if bytes.Contains(settings, []byte(" hook claude-code")) || !bytes.Contains(settings, []byte(s.hookBin+" claude-code")) {
		t.Fatalf("the settings do not run vigil-hook:\n%s", settings)
	}
	got, err := s.claude(t, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(got, "I could not fix check.c") {
		t.Fatalf("the agent's last answer is not the scripted one:\n%s", got)
	}
	checkRepeatRun(t, s, "claude-fake-1")
	if hl, _ := os.ReadFile(filepath.Join(s.runDir, "hook.log")); len(hl) > 0 {
		t.Errorf("vigil-hook failed open:\n%s", hl)
	}
}

// TestCodexAttachedFastHook is TestCodexAttached with the hooks running
// vigil-hook: its sidecar, started by vigil-hook, still ends with codex.
func TestCodexAttachedFastHook(t *testing.T) {
	bin := realAgent(t, "codex")
	s := newAttached(t, repeatScript("gpt-fake-1", `{name: exec_command, arguments: {cmd: "sh fail.sh"}}`))
	s.hookBin = builtVigilHook(t)
	out, err := s.codex(t, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(out, "I could not fix check.c") {
		t.Fatalf("the agent's last answer is not the scripted one:\n%s", out)
	}
	checkRepeatRun(t, s, "gpt-fake-1")
	s.awaitSidecarsGone(t, 10*time.Second)
}

// TestClaudeCodeAttachedHTTP is TestClaudeCodeAttached with
// `vigil attach claude-code --http`: the tool, Stop, PreCompact and
// SessionEnd events reach vigil hookd as HTTP hooks (no process per
// event), started by the SessionStart command hook.
func TestClaudeCodeAttachedHTTP(t *testing.T) {
	bin := realAgent(t, "claude-code")
	s := newAttached(t, repeatScript("claude-fake-1", claudeBash))
	out := s.vigilCmd(t, nil, "attach", "claude-code", "--http", "--project", s.work, "--command", s.vigil)
	if !strings.Contains(out, "http:") {
		t.Fatalf("attach --http said:\n%s", out)
	}
	settings, _ := os.ReadFile(filepath.Join(s.work, ".claude", "settings.local.json"))
	if !bytes.Contains(settings, []byte(`"type": "http"`)) {
		t.Fatalf("no HTTP hooks in the settings:\n%s", settings)
	}
	t.Cleanup(func() {
		if data, err := os.ReadFile(filepath.Join(s.runDir, "hookd.pid")); err == nil {
			var pid int
			fmt.Sscanf(string(data), "%d", &pid)
			if p, err := os.FindProcess(pid); err == nil && pid > 0 {
				p.Signal(os.Interrupt)
			}
		}
	})
	got, err := s.claude(t, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(got, "I could not fix check.c") {
		t.Fatalf("the agent's last answer is not the scripted one:\n%s", got)
	}
	checkRepeatRun(t, s, "claude-fake-1")
	if logs := s.logs(t); !strings.Contains(logs, "serving Claude Code's HTTP hooks") {
		t.Fatalf("vigil hookd did not serve:\n%s", logs)
	}
}

// TestClaudeCodeAttachedPeriodic runs the attached advisor in the
// periodic mode (advisor.mode periodic, a review every 2 tool calls): a
// review forks the transcript onto the advisor's model, whose CORRECTION
// reaches the agent once, right after a tool result (at a tool boundary,
// or as a Stop block when the run has no tool call left).
func TestClaudeCodeAttachedPeriodic(t *testing.T) {
	bin := realAgent(t, "claude-code")
	script := fmt.Sprintf(`rules:
  - name: fork
    model: adv
    steps:
      - text: "CORRECTION\nPERIODIC-FIX fail.sh failed the same way twice; read check.c:12 instead of running it again."
  - name: fork-again
    model: adv
    repeat: true
    steps: [{text: "NO_CHANGE"}]
  - name: primary
    model: claude-fake-1
    steps:
      - text: Attempt one.
        tool_calls: [%[1]s]
      - text: Attempt two.
        tool_calls: [%[1]s]
      - text: Attempt three.
        tool_calls: [%[1]s]
      - text: Attempt four.
        tool_calls: [%[1]s]
      - text: Attempt five.
        tool_calls: [%[1]s]
      - text: I will read check.c next time.
  - name: primary-unscripted
    model: claude-fake-1
    repeat: true
    steps: [{text: "Understood: reading check.c next."}]
`, claudeBash)
	s := newAttached(t, script)
	write(t, filepath.Join(s.agentDir, "config.yml"), "modelRoles:\n  advisor: fake/adv\nadvisor:\n  mode: periodic\n  syncTimeoutSeconds: 30\n  periodic:\n    everyToolCalls: 2\n")
	s.vigilCmd(t, nil, "attach", "claude-code", "--project", s.work, "--command", s.vigil)
	if _, err := s.claude(t, bin, "Make ./fail.sh pass."); err != nil {
		t.Fatalf("claude: %v\n%s", err, s.logs(t))
	}
	bodies := s.primary("claude-fake-1")
	i := firstWith(bodies, "PERIODIC-FIX")
	if i < 2 {
		t.Fatalf("the correction first reached request %d of %d, want it after a review of two tool calls\n%s", i+1, len(bodies), s.logs(t))
	}
	if at, res := strings.Index(bodies[i], "PERIODIC-FIX"), strings.LastIndex(bodies[i], "tool_result"); res < 0 || at < res {
		t.Fatalf("the correction is not after the last tool result in request %d", i+1)
	}
	// Delivered once (a Stop block's reason Claude Code shows twice in
	// the request: as feedback, and as the hook's "blocking error").
	if logs := s.logs(t); !strings.Contains(logs, " 1 notes delivered") {
		t.Fatalf("want the correction delivered once:\n%s", logs)
	}
	forks := 0
	for _, r := range s.srv.Requests() {
		if r.Model == "adv" {
			forks++
			if !strings.Contains(string(r.Body), "Attempt two.") || !strings.Contains(string(r.Body), "NO_CHANGE") {
				t.Fatalf("a fork lacks the transcript or the review prompt:\n%.3000s", r.Body)
			}
		}
	}
	if forks < 1 || forks > 2 {
		t.Fatalf("%d forks, want 1 or 2 (5 tool calls, a review every 2, one at a time)", forks)
	}
	t.Logf("the correction reached request %d of %d after %d forks\n%s", i+1, len(bodies), forks, s.logs(t))
}

// TestClaudeCodeAttachedPeriodicRoster runs the attached advisor in the
// periodic mode with a WATCHDOG.yml roster: tests forks onto the advisor
// model, scope onto a model of its own, each with its own instructions.
// Both review the same two calls, and both corrections, each naming its
// advisor, reach the agent in the same request, once each.
func TestClaudeCodeAttachedPeriodicRoster(t *testing.T) {
	bin := realAgent(t, "claude-code")
	script := fmt.Sprintf(`rules:
  - name: fork-tests
    model: adv
    match: ["OWN-TESTS"]
    steps:
      - text: "CORRECTION\nFIX-TESTS fail.sh failed the same way twice; read check.c:12 instead of running it again."
  - name: fork-scope
    model: adv2
    match: ["OWN-SCOPE"]
    steps:
      - text: "CORRECTION\nFIX-SCOPE the user asked only for fail.sh; leave the other files alone."
  - name: fork-again
    model: adv
    repeat: true
    steps: [{text: "NO_CHANGE"}]
  - name: fork-again-scope
    model: adv2
    repeat: true
    steps: [{text: "NO_CHANGE"}]
  - name: primary
    model: claude-fake-1
    steps:
      - text: Attempt one.
        tool_calls: [%[1]s]
      - text: Attempt two.
        tool_calls: [%[1]s]
      - text: Attempt three.
        tool_calls: [%[1]s]
      - text: Attempt four.
        tool_calls: [%[1]s]
      - text: I will read check.c next time.
  - name: primary-unscripted
    model: claude-fake-1
    repeat: true
    steps: [{text: "Understood: reading check.c next."}]
`, claudeBash)
	s := newAttached(t, script)
	write(t, filepath.Join(s.agentDir, "models.yml"), fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: adv, contextWindow: 200000, maxTokens: 4096}\n      - {id: adv2, contextWindow: 100000, maxTokens: 4096}\n", s.srv.URL()))
	write(t, filepath.Join(s.agentDir, "config.yml"), "modelRoles:\n  advisor: fake/adv\nadvisor:\n  mode: periodic\n  syncTimeoutSeconds: 30\n  periodic:\n    everyToolCalls: 2\n")
	write(t, filepath.Join(s.agentDir, "WATCHDOG.yml"), "maxNotesPerUpdate: 2\nadvisors:\n  - {name: tests, instructions: OWN-TESTS}\n  - {name: scope, model: fake/adv2, instructions: OWN-SCOPE}\n")
	s.vigilCmd(t, nil, "attach", "claude-code", "--project", s.work, "--command", s.vigil)
	if _, err := s.claude(t, bin, "Make ./fail.sh pass."); err != nil {
		t.Fatalf("claude: %v\n%s", err, s.logs(t))
	}
	bodies := s.primary("claude-fake-1")
	i, j := firstWith(bodies, "FIX-TESTS"), firstWith(bodies, "FIX-SCOPE")
	if i < 2 || j != i {
		t.Fatalf("the corrections first reached requests %d and %d of %d, want the same one, after a review of two tool calls\n%s", i+1, j+1, len(bodies), s.logs(t))
	}
	if !strings.Contains(bodies[i], `advisor=\"tests\"`) || !strings.Contains(bodies[i], `advisor=\"scope\"`) {
		t.Fatalf("the corrections do not name their advisors:\n%.3000s", bodies[i])
	}
	if logs := s.logs(t); !strings.Contains(logs, " 2 notes delivered") {
		t.Fatalf("want the two corrections delivered once each:\n%s", logs)
	}
	for _, r := range s.srv.Requests() {
		body := string(r.Body)
		if r.Model == "adv" && strings.Contains(body, "OWN-SCOPE") || r.Model == "adv2" && strings.Contains(body, "OWN-TESTS") {
			t.Fatalf("a fork on %s holds another advisor's instructions", r.Model)
		}
	}
	t.Logf("the corrections reached request %d of %d\n%s", i+1, len(bodies), s.logs(t))
}

// TestClaudeCodeSidecarKilled kills vigil's sidecar from inside the
// agent's run (its second command): the agent still finishes normally.
func TestClaudeCodeSidecarKilled(t *testing.T) {
	bin := realAgent(t, "claude-code")
	kill := `{name: Bash, arguments: {command: "for f in \"$VIGIL_RUNTIME_DIR\"/*.json; do kill -9 $(sed -n 's/.*\"pid\": *\\([0-9]*\\).*/\\1/p' \"$f\"); done; echo killed", description: "Kill the sidecar"}}`
	script := fmt.Sprintf(`rules:
%s
  - name: primary
    model: claude-fake-1
    steps:
      - text: Attempt one.
        tool_calls: [%s]
      - text: Now the kill.
        tool_calls: [%s]
      - text: Attempt three.
        tool_calls: [%s]
      - text: Finished; the check still fails.
  - name: primary-unscripted
    model: claude-fake-1
    repeat: true
    steps: [{text: "(unscripted request)"}]
`, attachedAdvisorScript, claudeBash, kill, claudeBash)
	s := newAttached(t, script)
	s.vigilCmd(t, nil, "attach", "claude-code", "--project", s.work, "--command", s.vigil)
	out, err := s.claude(t, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(out, "Finished; the check still fails.") {
		t.Fatalf("the agent did not finish normally:\n%s", out)
	}
	if n := len(s.primary("claude-fake-1")); n != 4 {
		t.Fatalf("the agent made %d requests, want the 4 scripted", n)
	}
	if !strings.Contains(out, "killed") {
		t.Fatalf("the kill command did not run:\n%s", out)
	}
	// The next hook found no sidecar and started another.
	if logs := s.logs(t); strings.Count(logs, "watching ") < 2 {
		t.Fatalf("want two sidecar starts (one after the kill):\n%s", logs)
	}
}

func (s *attachedSetup) codex(t *testing.T, bin, prompt string) (string, error) {
	t.Helper()
	codexHome := filepath.Join(s.root, "codex-home")
	write(t, filepath.Join(codexHome, "config.toml"), fmt.Sprintf(`model = "gpt-fake-1"
model_provider = "fake"
approval_policy = "never"
sandbox_mode = "danger-full-access"

[model_providers.fake]
name = "fake"
base_url = "%s/v1"
env_key = "FAKE_API_KEY"
wire_api = "responses"
`, s.srv.URL()))
	s.vigilCmd(t, []string{"CODEX_HOME=" + codexHome}, "attach", "codex", "--command", s.hookBin)
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust", "--json", prompt)
	cmd.Dir = s.work
	cmd.Env = append(append([]string(nil), s.env...), "CODEX_HOME="+codexHome, "FAKE_API_KEY=dummy")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%v\nstderr:\n%s", err, errOut.String())
	}
	return out.String(), nil
}

// TestCodexAttached is TestClaudeCodeAttached for the real Codex.
func TestCodexAttached(t *testing.T) {
	bin := realAgent(t, "codex")
	s := newAttached(t, repeatScript("gpt-fake-1", `{name: exec_command, arguments: {cmd: "sh fail.sh"}}`))
	out, err := s.codex(t, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(out, "I could not fix check.c") {
		t.Fatalf("the agent's last answer is not the scripted one:\n%s", out)
	}
	checkRepeatRun(t, s, "gpt-fake-1")
	// Codex has no SessionEnd hook: its sidecar stops on its own once
	// the codex process has gone and the transcript is quiet.
	s.awaitSidecarsGone(t, 10*time.Second)
}

// awaitSidecarsGone waits, looking every 50 ms for at most within, until
// the sidecars recorded now have exited and removed their records.
func (s *attachedSetup) awaitSidecarsGone(t *testing.T, within time.Duration) {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(s.runDir, "*.json"))
	if len(matches) == 0 {
		t.Fatalf("no sidecar recorded after the run:\n%s", s.logs(t))
	}
	start := time.Now()
	for {
		left, _ := filepath.Glob(filepath.Join(s.runDir, "*.json"))
		if len(left) == 0 {
			t.Logf("%d sidecar(s) stopped %v after the agent exited", len(matches), time.Since(start).Round(time.Millisecond))
			return
		}
		if time.Since(start) > within {
			t.Fatalf("%d sidecar(s) still running %v after the agent exited:\n%s", len(left), within, s.logs(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestCodexSidecarKilled is TestClaudeCodeSidecarKilled for the real
// Codex: its sidecar killed from inside the run, it finishes normally.
func TestCodexSidecarKilled(t *testing.T) {
	bin := realAgent(t, "codex")
	run := `{name: exec_command, arguments: {cmd: "sh fail.sh"}}`
	kill := `{name: exec_command, arguments: {cmd: "for f in \"$VIGIL_RUNTIME_DIR\"/*.json; do kill -9 $(sed -n 's/.*\"pid\": *\\([0-9]*\\).*/\\1/p' \"$f\"); done; echo killed"}}`
	script := fmt.Sprintf(`rules:
%s
  - name: primary
    model: gpt-fake-1
    steps:
      - text: Attempt one.
        tool_calls: [%s]
      - text: Now the kill.
        tool_calls: [%s]
      - text: Attempt three.
        tool_calls: [%s]
      - text: Finished; the check still fails.
  - name: primary-unscripted
    model: gpt-fake-1
    repeat: true
    steps: [{text: "(unscripted request)"}]
`, attachedAdvisorScript, run, kill, run)
	s := newAttached(t, script)
	out, err := s.codex(t, bin, "Make ./fail.sh pass.")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(out, "Finished; the check still fails.") || !strings.Contains(out, "killed") {
		t.Fatalf("the agent did not finish normally:\n%s", out)
	}
	if n := len(s.primary("gpt-fake-1")); n != 4 {
		t.Fatalf("the agent made %d requests, want the 4 scripted", n)
	}
	if logs := s.logs(t); strings.Count(logs, "watching ") < 2 {
		t.Fatalf("want two sidecar starts (one after the kill):\n%s", logs)
	}
}

// askScript scripts an agent that asks vigil's advisor once through the
// MCP server vigil attach registered (call is its tool call), and the
// advisor's answer to that consult.
func askScript(model, call string) string {
	return fmt.Sprintf(`rules:
  - name: advisor-consult
    model: adv
    match: ["The agent asks you, with its ask_advisor tool"]
    steps:
      - text: "ADVISOR-ANSWER: run it on staging first & keep the <backup>."
  - name: advisor-quiet
    model: adv
    repeat: true
    steps: [{text: "Nothing to add."}]
  - name: done
    model: %[1]s
    match: ["ADVISOR-ANSWER"]
    repeat: true
    steps: [{text: "DONE: staging first."}]
  - name: ask
    model: %[1]s
    steps:
      - text: Asking the advisor.
        tool_calls: [%[2]s]
  - name: primary-unscripted
    model: %[1]s
    repeat: true
    steps: [{text: "(unscripted request)"}]
`, model, call)
}

// checkAsked asserts that the agent's request after its ask_advisor call
// holds the advisor's answer, escaped, as the tool's result, and that the
// advisor's transcript has the consult.
func checkAsked(t *testing.T, s *attachedSetup, model, resultKind string) {
	t.Helper()
	bodies := s.primary(model)
	i := firstWith(bodies, "ADVISOR-ANSWER")
	if i < 1 {
		t.Fatalf("no request of the agent's holds the advisor's answer (%d requests)\n%s", len(bodies), s.logs(t))
	}
	b := bodies[i]
	at := strings.Index(b, "ADVISOR-ANSWER")
	t.Logf("request %d around the answer: %s", i+1, b[max(at-300, 0):min(at+120, len(b))])
	if !strings.Contains(b, "run it on staging first &amp; keep the &lt;backup&gt;.") || !strings.Contains(b, resultKind) {
		t.Fatalf("request %d lacks the escaped answer as a %s:\n%.3000s", i+1, resultKind, b)
	}
	advs, _ := filepath.Glob(filepath.Join(s.agentDir, "sessions", "*", "*", "__advisor.jsonl"))
	if len(advs) != 1 {
		t.Fatalf("advisor transcripts: %v\n%s", advs, s.logs(t))
	}
	if data, _ := os.ReadFile(advs[0]); !bytes.Contains(data, []byte("Should I run the migration on prod now?")) || !bytes.Contains(data, []byte("ADVISOR-ANSWER")) {
		t.Fatalf("the advisor transcript lacks the consult:\n%s", data)
	}
}

// TestClaudeCodeAttachedAsksTheAdvisor: `vigil attach claude-code` alone
// (no hand-written MCP config) registers vigil's MCP server in the
// project's local scope (~/.claude.json, under the project: not the
// shared .mcp.json, issue 28); the real Claude Code starts it, its model calls
// mcp__vigil__ask_advisor, and the answer of the advisor behind the
// sidecar the hooks started comes back as the tool result.
func TestClaudeCodeAttachedAsksTheAdvisor(t *testing.T) {
	bin := realAgent(t, "claude-code")
	s := newAttached(t, askScript("claude-fake-1", `{name: mcp__vigil__ask_advisor, arguments: {question: "Should I run the migration on prod now?"}}`))
	out := s.vigilCmd(t, nil, "attach", "claude-code", "--project", s.work, "--command", s.vigil)
	mcpJSON := filepath.Join(s.home, ".claude.json")
	if !strings.Contains(out, "registered in "+mcpJSON+" (for "+s.work+" only, not shared)") {
		t.Fatalf("attach said:\n%s", out)
	}
	got, err := s.claudeWith(t, bin, "Migrate the users table.", "Bash,mcp__vigil__ask_advisor")
	if err != nil {
		t.Fatalf("claude: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(got, "DONE: staging first.") {
		t.Fatalf("the agent's last answer is not the scripted one:\n%s\n%s", got, s.logs(t))
	}
	checkAsked(t, s, "claude-fake-1", `"type":"tool_result"`)
	if st := s.vigilCmd(t, nil, "status"); !strings.Contains(st, "ask_advisor: MCP server in "+mcpJSON) {
		t.Errorf("vigil status does not show the MCP server:\n%s", st)
	}
}

// TestCodexAttachedAsksTheAdvisor is TestClaudeCodeAttachedAsksTheAdvisor
// for the real Codex: `vigil attach codex` adds [mcp_servers.vigil] to
// its config.toml, and Codex offers the tool in the mcp__vigil namespace.
func TestCodexAttachedAsksTheAdvisor(t *testing.T) {
	bin := realAgent(t, "codex")
	s := newAttached(t, askScript("gpt-fake-1", `{name: ask_advisor, namespace: mcp__vigil, arguments: {question: "Should I run the migration on prod now?"}}`))
	out, err := s.codex(t, bin, "Migrate the users table.")
	if err != nil {
		t.Fatalf("codex: %v\n%s", err, s.logs(t))
	}
	if !strings.Contains(out, "DONE: staging first.") {
		t.Fatalf("the agent's last answer is not the scripted one:\n%s\n%s", out, s.logs(t))
	}
	cfg, _ := os.ReadFile(filepath.Join(s.root, "codex-home", "config.toml"))
	if !bytes.Contains(cfg, []byte("[mcp_servers.vigil]\ncommand = \""+s.vigil+"\"\nargs = [\"mcp\"]\nenv_vars = [")) {
		t.Fatalf("config.toml lacks vigil's MCP server:\n%s", cfg)
	}
	checkAsked(t, s, "gpt-fake-1", `"function_call_output"`)
}
