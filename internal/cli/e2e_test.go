package cli_test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/session"
)

// waitBound is how long an end-to-end test waits for an expected line
// before it fails; it is a bound on a hang, never a pause.
const waitBound = 90 * time.Second

// vigilProc is vigil running as a child process in RPC mode.
type vigilProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	stdin io.WriteCloser
	lines chan map[string]any
	seen  []map[string]any
	done  chan error
	dir   string // the working folder
	agent string // the agent folder
	// stderr is vigil's stderr; read it after finish.
	stderr *strings.Builder
}

// fakeSetup starts fakellm with script and writes an agent folder whose
// models.yml points the provider "fake" at it.
func fakeSetup(t *testing.T, script string) (*fakellm.Server, string, string) {
	t.Helper()
	srv := fakellm.StartTest(t, fakellm.MustParse(t, script))
	root := t.TempDir()
	agentDir := filepath.Join(root, "agent")
	work := filepath.Join(root, "work")
	for _, d := range []string{agentDir, work, filepath.Join(work, ".git")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The tests' project settings turn the advisor on: the folder is
	// trusted, as a user who wrote them would have it.
	if _, err := config.Trust(agentDir, work, false); err != nil {
		t.Fatal(err)
	}
	yml := fmt.Sprintf("providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n      - {id: m, contextWindow: 200000, maxTokens: 4096}\n", srv.URL())
	if err := os.WriteFile(filepath.Join(agentDir, "models.yml"), []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, agentDir, work
}

// vigilCommand returns the command that runs vigil with args in work, with
// agentDir as its agent folder (vigil is the test binary; see TestMain).
func vigilCommand(agentDir, work string, args ...string) *exec.Cmd {
	cmd := exec.Command(testVigil, args...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "VIGIL_AGENT_DIR="+agentDir, "HOME="+filepath.Dir(agentDir))
	return cmd
}

// exitStatus is the exit status of a command that ran and returned err,
// or ran false when it could not run.
func exitStatus(err error) (code int, ran bool) {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, true
	case errors.As(err, &ee):
		return ee.ExitCode(), true
	}
	return 0, false
}

// runPrint runs vigil in print mode in work and returns its stderr.
func runPrint(t *testing.T, agentDir, work string, args ...string) string {
	t.Helper()
	cmd := vigilCommand(agentDir, work, args...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("vigil %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stderr.String()
}

func startVigil(t *testing.T, agentDir, work string, args ...string) *vigilProc {
	t.Helper()
	cmd := vigilCommand(agentDir, work, append([]string{"--mode", "rpc", "-m", "fake/m"}, args...)...)
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
	p := &vigilProc{t: t, cmd: cmd, stdin: stdin, lines: make(chan map[string]any, 1024), done: make(chan error, 1), dir: work, agent: agentDir, stderr: &stderr}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 64*1024), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"type": "unparsed", "line": sc.Text()}
			}
			p.lines <- m
		}
		close(p.lines)
		p.done <- cmd.Wait()
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		if t.Failed() {
			t.Logf("vigil stderr:\n%s", stderr.String())
		}
	})
	return p
}

func (p *vigilProc) send(v map[string]any) {
	p.t.Helper()
	data, _ := json.Marshal(v)
	if _, err := p.stdin.Write(append(data, '\n')); err != nil {
		p.t.Fatalf("write command: %v", err)
	}
}

// waitFor reads output lines until one satisfies match, and returns it.
func (p *vigilProc) waitFor(what string, match func(map[string]any) bool) map[string]any {
	p.t.Helper()
	timeout := time.After(waitBound)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("vigil exited while waiting for %s; saw %s", what, p.summary())
			}
			p.seen = append(p.seen, m)
			if m["type"] == "response" && m["success"] == false || m["type"] == "prompt_error" {
				p.t.Logf("command failed: %v", m)
			}
			if match(m) {
				return m
			}
		case <-timeout:
			p.t.Fatalf("no %s within %s; saw %s", what, waitBound, p.summary())
		}
	}
}

func (p *vigilProc) summary() string {
	var types []string
	for _, m := range p.seen {
		types = append(types, fmt.Sprint(m["type"]))
	}
	return strings.Join(types, " ")
}

func isType(typ string) func(map[string]any) bool {
	return func(m map[string]any) bool { return m["type"] == typ }
}

// finish closes stdin and waits for vigil to exit cleanly.
func (p *vigilProc) finish() {
	p.t.Helper()
	p.stdin.Close()
	for m := range p.lines {
		p.seen = append(p.seen, m)
	}
	if err := <-p.done; err != nil {
		p.t.Fatalf("vigil exited with %v", err)
	}
}

func (p *vigilProc) sessionFile() string {
	p.t.Helper()
	p.send(map[string]any{"type": "get_state", "id": "state"})
	r := p.waitFor("get_state reply", func(m map[string]any) bool { return m["id"] == "state" })
	data, _ := r["data"].(map[string]any)
	f, _ := data["session_file"].(string)
	if f == "" {
		p.t.Fatalf("get_state gave no session file: %v", r)
	}
	return f
}

// checkTree reads a session file and checks it is one valid tree.
func checkTree(t *testing.T, path string) []session.Entry {
	t.Helper()
	_, entries, err := session.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	ids := map[string]bool{}
	roots := 0
	for _, e := range entries {
		if e.ParentID == "" {
			roots++
		} else if !ids[e.ParentID] {
			t.Errorf("%s: entry %s has parent %s, which does not come before it", path, e.ID, e.ParentID)
		}
		ids[e.ID] = true
	}
	if len(entries) > 0 && roots != 1 {
		t.Errorf("%s: %d roots, want 1", path, roots)
	}
	return entries
}

func TestRPCBashToolAndAnswer(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "echo hi-from-bash"}}]
      - text: "The command printed hi-from-bash."
`)
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "run echo"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	end := p.waitFor("tool_end", isType("tool_end"))
	if !strings.Contains(fmt.Sprint(end["summary"]), "hi-from-bash") {
		t.Errorf("tool_end = %v, want the command's output", end)
	}
	msg := p.waitFor("the answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "printed hi-from-bash")
	})
	_ = msg
	p.waitFor("idle", isType("idle"))
	file := p.sessionFile()
	p.finish()
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "hi-from-bash") {
		t.Errorf("second model request lacks the tool result: %d requests", len(reqs))
	}
	checkTree(t, file)
}

func TestRPCSteerInterruptsSleep(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "sleep 3600"}}]
      - text: "Stopped, as asked."
`)
	// The command outlives the test's wait bound many times over, so a tool_end at all
	// shows that the interrupting steer ended it: an event, not a wall-clock bound (a
	// 100 ms bound failed by chance under -race on a loaded 2-core machine).
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "wait a while"})
	p.waitFor("tool_start", isType("tool_start"))
	p.send(map[string]any{"type": "steer", "message": "STEER-stop-sleeping", "interrupt": true})
	end := p.waitFor("tool_end", isType("tool_end"))
	if end["interrupted"] != true {
		t.Errorf("tool_end = %v, want interrupted", end)
	}
	p.waitFor("idle", isType("idle"))
	p.finish()
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	body := string(reqs[1].Body)
	result, steer := strings.Index(body, "tool_result"), strings.Index(body, "STEER-stop-sleeping")
	if result < 0 || steer < 0 || steer < result {
		t.Errorf("second request: tool result at %d, steer at %d; want the steer after the result", result, steer)
	}
}

func TestRPCFollowUpWaitsForTurnEnd(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "cat gate"}}]
      - text: "first turn done"
      - text: "follow-up answered"
`)
	gate := filepath.Join(work, "gate")
	if err := exec.Command("mkfifo", gate).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "read the gate"})
	p.waitFor("tool_start", isType("tool_start"))
	p.send(map[string]any{"type": "follow_up", "id": "2", "message": "FOLLOW-UP-question"})
	p.waitFor("follow_up accepted", func(m map[string]any) bool { return m["id"] == "2" })
	if err := os.WriteFile(gate, []byte("open\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.waitFor("second turn start", func(m map[string]any) bool { return m["type"] == "turn_start" && m["turn"] == float64(2) })
	p.waitFor("idle", isType("idle"))
	p.finish()
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests, want 3", len(reqs))
	}
	if strings.Contains(string(reqs[1].Body), "FOLLOW-UP-question") {
		t.Error("the follow-up reached the model before the turn ended")
	}
	if !strings.Contains(string(reqs[2].Body), "FOLLOW-UP-question") {
		t.Error("the follow-up never reached the model")
	}
}

func TestRPCAbortStopsStreamAndIsRecorded(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - text: "this reply stalls in the middle and never ends"
        chunk: 4
        fault: {stall: true, cut_after: 6}
`)
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "talk"})
	p.waitFor("a streamed delta", isType("message_delta"))
	p.send(map[string]any{"type": "abort"})
	perr := p.waitFor("prompt_error", isType("prompt_error"))
	if !strings.Contains(fmt.Sprint(perr["error"]), "interrupted") {
		t.Errorf("prompt_error = %v, want it to say the user interrupted", perr)
	}
	file := p.sessionFile()
	p.finish()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.ToLower(string(data)), "interrupt") {
		t.Errorf("session does not record the interrupt:\n%s", data)
	}
	checkTree(t, file)
}

func TestRPCCompactBranchForkAndTask(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - name: summary
    match: ["summar"]
    repeat: true
    steps:
      - text: "SUMMARY: the user asked twice; nothing else happened."
  - name: child
    match: ["CHILD-TASK"]
    steps:
      - text: "child says 42"
  - name: main
    steps:
      - text: "first answer"
      - tool_calls: [{name: task, arguments: {prompt: "CHILD-TASK: compute the answer", description: "compute"}}]
      - text: "the child said 42"
`)
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "hello"})
	first := p.waitFor("first answer", isType("message_end"))
	p.waitFor("idle", isType("idle"))
	entry, _ := first["entry"].(map[string]any)
	firstID, _ := entry["id"].(string)

	p.send(map[string]any{"type": "prompt", "id": "2", "message": "ask the child"})
	end := p.waitFor("task result", func(m map[string]any) bool { return m["type"] == "tool_end" && m["tool"] == "task" })
	if !strings.Contains(fmt.Sprint(end["summary"]), "child says 42") {
		t.Errorf("task tool_end = %v, want the child's answer", end)
	}
	p.waitFor("idle", isType("idle"))
	file := p.sessionFile()
	subs, _ := filepath.Glob(filepath.Join(strings.TrimSuffix(file, ".jsonl"), "*.jsonl"))
	if len(subs) == 0 {
		t.Error("the task subagent wrote no session in the artifacts folder")
	}
	for _, s := range subs {
		checkTree(t, s)
	}

	p.send(map[string]any{"type": "command", "id": "c", "command": "/compact"})
	p.waitFor("history_rewritten", func(m map[string]any) bool { return m["type"] == "history_rewritten" && m["reason"] == "compaction" })
	p.waitFor("compact reply", func(m map[string]any) bool { return m["id"] == "c" && m["success"] == true })

	p.send(map[string]any{"type": "command", "id": "b", "command": "/branch " + firstID})
	p.waitFor("branch reply", func(m map[string]any) bool { return m["id"] == "b" && m["success"] == true })
	p.send(map[string]any{"type": "command", "id": "f", "command": "/fork"})
	fork := p.waitFor("fork reply", func(m map[string]any) bool { return m["id"] == "f" })
	if fork["success"] != true {
		t.Fatalf("fork failed: %v", fork)
	}
	forked := p.sessionFile()
	p.finish()

	entries := checkTree(t, file)
	var compactions int
	for _, e := range entries {
		if e.Type() == session.TypeCompaction {
			compactions++
		}
	}
	if compactions != 1 {
		t.Errorf("%d compaction entries, want 1", compactions)
	}
	if forked == file {
		t.Error("fork did not switch to a new session file")
	}
	checkTree(t, forked)
}

func TestJSONModePrintsEvents(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - text: "json mode answer"
`)
	out, err := vigilCommand(agentDir, work, "-m", "fake/m", "-p", "hi", "--mode", "json").Output()
	if err != nil {
		t.Fatalf("vigil: %v\n%s", err, out)
	}
	var types []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("line %q is not JSON: %v", line, err)
		}
		types = append(types, fmt.Sprint(m["type"]))
	}
	got := strings.Join(types, " ")
	for _, want := range []string{"turn_start", "step_start", "message_end", "step_end", "turn_end", "idle"} {
		if !strings.Contains(got, want) {
			t.Errorf("events %q lack %s", got, want)
		}
	}
}

// TestPrintModeNeedsAModel: with no model configured and no key set, vigil
// says which variables to set and how to name a model.
func TestPrintModeNeedsAModel(t *testing.T) {
	isolate(t)
	_, _, err := run(t, "-p", "hi")
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"no model configured", "no API key is set: set ANTHROPIC_API_KEY or OPENAI_API_KEY", "--model provider/model", "modelRoles.default"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("err = %v, want it to say %q", err, want)
		}
	}
}
