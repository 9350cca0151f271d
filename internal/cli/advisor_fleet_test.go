package cli_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/rules"
)

// startFleet runs a nats-server with JetStream in process and, unless
// noWorker, one fleet worker of tenant acme with the rules reviewer; it
// returns the server's URL.
func startFleet(t *testing.T, noWorker bool) (*server.Server, string) {
	t.Helper()
	ns := natstest.Start(t)
	if !noWorker {
		runFleetWorker(t, ns.ClientURL())
	}
	return ns, ns.ClientURL()
}

// runFleetWorker runs a worker of tenant acme with the rules reviewer
// until the test ends.
func runFleetWorker(t *testing.T, url string) {
	t.Helper()
	runFleetWorkerWith(t, url, fleet.RulesFactory(rules.DefaultSettings()))
}

// runFleetWorkerWith runs a worker of tenant acme with factory until
// the test ends.
func runFleetWorkerWith(t *testing.T, url string, factory fleet.Factory) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	w, err := fleet.NewWorker(nc, fleet.WorkerOptions{Tenant: "acme", Factory: factory, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
		nc.Close()
	})
}

// fleetScript is a primary that runs the same failing command until the
// advisor speaks.
const fleetScript = `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - tool_calls: [{name: bash, arguments: {command: "ls /nonexistent-folder"}}]
      - text: "FINAL: the folder is missing."
`

// TestRPCAdvisorOnAFleet: with advisor.fleet.url set, vigil's agent runs
// no advisor of its own: its steps go to a fleet worker (a real
// nats-server, the rules reviewer), and the worker's note reaches the
// primary's next requests within the run, as a local advisor's would
// (advisor.syncBacklog waits for the fleet's reviews).
func TestRPCAdvisorOnAFleet(t *testing.T) {
	_, url := startFleet(t, false)
	srv, agentDir, work := fakeSetup(t, fleetScript)
	writeProjectConfig(t, work, "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  fleet:\n    url: "+url+"\n    tenant: acme\n")
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "list the folder"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := p.waitFor("status", func(m map[string]any) bool { return m["id"] == "st" })
	text, _ := st["data"].(string)
	for _, want := range []string{"fleet nats://127.0.0.1:", "tenant acme", "Steps published: "} {
		if !strings.Contains(text, want) {
			t.Errorf("/advisor status %q lacks %q", text, want)
		}
	}
	if strings.Contains(text, "reviewed: 0,") || strings.Contains(text, " 0 steers, 0 cards") && strings.Contains(text, "delivered: 0 asides") {
		t.Errorf("/advisor status %q: want the fleet's reviews and a note counted", text)
	}
	t.Log(text)
	p.finish()
	landed := -1
	for i, r := range srv.Requests() {
		if strings.Contains(string(r.Body), "advisory") {
			landed = i + 1
			break
		}
	}
	if landed < 0 {
		t.Fatalf("no primary request of %d carries the fleet's advisory", len(srv.Requests()))
	}
	// Within the run of repeated failures: the boundary waits for the
	// review (syncBacklog), and a review counts as done only once its
	// note reached the host, so the note is in the next request.
	if landed > 4 {
		t.Errorf("the fleet's advisory first lands in request %d, want within the run of repeated failures", landed)
	}
}

// TestRPCAdvisorFleetUnreachable: a fleet that does not answer costs
// the agent nothing but a warning: the run finishes unreviewed.
func TestRPCAdvisorFleetUnreachable(t *testing.T) {
	ns, url := startFleet(t, true)
	natstest.Shutdown(t, ns)
	srv, agentDir, work := fakeSetup(t, fleetScript)
	writeProjectConfig(t, work, "advisor:\n  enabled: true\n  fleet:\n    url: "+url+"\n    tenant: acme\n")
	cmd := vigilCommand(agentDir, work, "-p", "-m", "fake/m", "list the folder")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("vigil -p: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "FINAL: the folder is missing.") || !strings.Contains(string(out), "advisor: the fleet (") {
		t.Errorf("output %q: want the answer and a warning naming the fleet", out)
	}
	if n := len(srv.Requests()); n != 5 {
		t.Errorf("%d model requests, want the primary's 5", n)
	}
}

// TestRPCAdvisorFleetReachedLate: a fleet that is down when vigil's
// agent starts is tried again in the background; once it answers, the
// session says so (a displayed advisor_notice entry) and its steps are
// reviewed from then on, the fleet's note reaching the primary.
func TestRPCAdvisorFleetReachedLate(t *testing.T) {
	ns, url := startFleet(t, true)
	port := ns.Addr().(*net.TCPAddr).Port
	natstest.Shutdown(t, ns)
	srv, agentDir, work := fakeSetup(t, fleetScript)
	writeProjectConfig(t, work, "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  fleet:\n    url: "+url+"\n    tenant: acme\n")
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := fmt.Sprint(p.waitFor("status while down", func(m map[string]any) bool { return m["id"] == "st" }))
	if !strings.Contains(st, "the fleet is not reached yet") {
		t.Errorf("/advisor status with the fleet down: %s", st)
	}
	// The fleet comes up on the same address.
	opts := natstest.Options(t)
	opts.Port = port
	natstest.StartWith(t, opts)
	runFleetWorker(t, url)
	p.waitFor("the notice that the fleet answers", func(m map[string]any) bool {
		return m["type"] == "custom_appended" && strings.Contains(fmt.Sprint(m["entry"]), "advisor_notice") && strings.Contains(fmt.Sprint(m["entry"]), "answers now")
	})
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "list the folder"})
	p.waitFor("prompt accepted", func(m map[string]any) bool { return m["id"] == "1" && m["success"] == true })
	p.waitFor("idle", isType("idle"))
	p.finish()
	if !strings.Contains(p.stderr.String(), "the session is not reviewed until the fleet answers") {
		t.Errorf("stderr lacks the warning that the fleet is down:\n%s", p.stderr.String())
	}
	landed := false
	for _, r := range srv.Requests() {
		landed = landed || strings.Contains(string(r.Body), "advisory")
	}
	if !landed {
		t.Fatalf("no primary request of %d carries the fleet's advisory", len(srv.Requests()))
	}
}

func writeProjectConfig(t *testing.T, work, cfg string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestSidecarAdvisorOnAFleet: the sidecar of an attached agent (Claude
// Code's hooks, driven here with its transcript and events) publishes
// the session's steps to the fleet and answers a tool boundary with the
// worker's note.
func TestSidecarAdvisorOnAFleet(t *testing.T) {
	_, url := startFleet(t, false)
	s := newBenchSidecarWith(t, "advisor:\n  syncBacklog: \"1\"\n  fleet:\n    url: "+url+"\n    tenant: acme\n", "")
	var reply string
	for i := 1; i <= 5 && !strings.Contains(reply, "advisory"); i++ {
		n := strconv.Itoa(i)
		call := "toolu_f" + n
		s.appendLines(t,
			s.line("assistant", "fa"+n, map[string]any{"id": "msg_f" + n, "role": "assistant", "model": "claude-fake-1", "type": "message",
				"content":     []any{map[string]any{"type": "tool_use", "id": call, "name": "Bash", "input": map[string]any{"command": "ls /nonexistent-folder"}}},
				"stop_reason": "tool_use"}),
			s.line("user", "fr"+n, map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "is_error": true, "content": "ls: cannot access '/nonexistent-folder': No such file or directory\nExit code 2"}}}))
		reply = s.hook(t, s.event("PostToolUseFailure", fmt.Sprintf(`"tool_name":"Bash","tool_use_id":%q,"tool_input":{"command":"ls /nonexistent-folder"},"error":"Exit code 2"`, call)))
	}
	if !strings.Contains(reply, "advisory") {
		t.Fatalf("no tool boundary of 5 answered with the fleet's advisory; last %q", reply)
	}
}

// TestRPCAdvisorAskOnAFleet: with the advisor on a fleet, the agent's
// ask_advisor goes to the worker that owns its session, after the step
// before it was reviewed there; the worker's model advisor answers, and
// the escaped answer is the tool result of the agent's next request.
func TestRPCAdvisorAskOnAFleet(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, vigilAskScript)
	ns := natstest.Start(t)
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "adv"})
	if err != nil {
		t.Fatal(err)
	}
	runFleetWorkerWith(t, ns.ClientURL(), func(info fleet.SessionInfo, h advisor.Host) (*advisor.Runtime, error) {
		return advisor.New(advisor.Options{Model: m, ModelName: "fake/adv", Host: h, Start: info.Start, ConsultMaxPerRun: 5})
	})
	writeProjectConfig(t, work, "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  fleet:\n    url: "+ns.ClientURL()+"\n    tenant: acme\n")
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "migrate the users table"})
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "FINAL-answer")
	})
	p.waitFor("idle", isType("idle"))
	p.finish()
	var primary []string
	consult := ""
	for _, r := range srv.Requests() {
		switch {
		case r.Model == "m":
			primary = append(primary, string(r.Body))
		case r.Rule == "consult":
			consult = string(r.Body)
		}
	}
	if len(primary) != 3 || consult == "" {
		t.Fatalf("%d agent requests, consult %t", len(primary), consult != "")
	}
	if !strings.Contains(primary[0], `"name":"ask_advisor"`) {
		t.Errorf("the agent on a fleet was not offered ask_advisor")
	}
	if step, q := strings.Index(consult, "echo migrating"), strings.Index(consult, "QUESTION-prod-or-staging?"); step < 0 || q < step {
		t.Errorf("the worker's consult holds the step at %d and the question at %d; want the step first", step, q)
	}
	if want := `"ANSWER-staging first \u0026amp; keep the \u0026lt;backup\u0026gt;.","type":"text"}],"type":"tool_result"`; !strings.Contains(primary[2], want) {
		t.Errorf("the agent's next request lacks the escaped answer %q", want)
	}
}
