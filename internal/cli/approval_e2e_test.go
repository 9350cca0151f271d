package cli_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/fakellm"
)

// approvalScript calls bash three times, then writes a file, then
// answers: the approval mode allows the first call once, the second for
// the session (so the third does not ask), and denies the write.
const approvalScript = `
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo ONE > one.txt; echo ONE-ran"}}]
      - tool_calls: [{id: call_2, name: bash, arguments: {command: "echo TWO-ran"}}]
      - tool_calls:
          - {id: call_r, name: read, arguments: {path: one.txt}}
          - {id: call_3, name: bash, arguments: {command: "echo THREE-ran"}}
      - tool_calls: [{id: call_4, name: write, arguments: {path: denied.txt, content: "never"}}]
      - text: "ANSWER-after-denial"
`

// TestRPCApprovalOnceAlwaysDeny drives vigil --mode rpc --approval ask:
// each bash and write call waits for an approve command; always stops the
// asking for bash; read never asks; the denied write does not happen and
// its refusal, with the client's message, reaches the model.
func TestRPCApprovalOnceAlwaysDeny(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, approvalScript)
	p := startVigil(t, agentDir, work, "--approval", "ask")
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "go"})
	answer := func(call, decision, message string) {
		t.Helper()
		req := p.waitFor("approval_request for "+call, isType("approval_request"))
		if req["tool_call_id"] != call {
			t.Fatalf("approval_request %v, want %s", req, call)
		}
		cmd := map[string]any{"type": "approve", "id": "a-" + call, "tool_call_id": call, "decision": decision}
		if message != "" {
			cmd["message"] = message
		}
		p.send(cmd)
		end := p.waitFor("approval_end for "+call, isType("approval_end"))
		if end["tool_call_id"] != call || end["decision"] != decision {
			t.Fatalf("approval_end %v, want %s %s", end, call, decision)
		}
	}
	answer("call_1", "once", "")
	answer("call_2", "always", "")
	answer("call_4", "deny", "MSG-write it in notes.txt instead")
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "approve", "id": "late", "tool_call_id": "call_4", "decision": "once"})
	late := p.waitFor("the late approve's reply", func(m map[string]any) bool { return m["id"] == "late" })
	if late["success"] != false || !strings.Contains(fmt.Sprint(late["error"]), "no such call waits for approval") {
		t.Errorf("a late approve: %v", late)
	}
	p.finish()

	asked := 0
	for _, m := range p.seen {
		if m["type"] == "approval_request" {
			asked++
		}
		if m["type"] == "tool_end" && m["tool_call_id"] == "call_4" && m["denied"] != true {
			t.Errorf("the write's tool_end %v, want denied", m)
		}
	}
	if asked != 3 {
		t.Errorf("%d approval requests, want 3 (call_3 runs under always, read never asks)", asked)
	}
	reqs := srv.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5", len(reqs))
	}
	for i, want := range []string{"ONE-ran", "TWO-ran", "THREE-ran"} {
		if !strings.Contains(string(reqs[i+1].Body), want) {
			t.Errorf("request %d lacks %s", i+2, want)
		}
	}
	last := string(reqs[4].Body)
	if !strings.Contains(last, agent.DeniedText) || !strings.Contains(last, "MSG-write it in notes.txt instead") {
		t.Errorf("the last request lacks the refusal and the message:\n%s", last)
	}
	if _, err := os.Stat(filepath.Join(work, "denied.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied write happened (%v)", err)
	}
}

// TestRPCApprovalOffByDefault: without --approval ask, RPC mode runs
// unattended, and approve says the mode is off.
func TestRPCApprovalOffByDefault(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "echo RAN-unasked"}}]
      - text: "done"
`)
	p := startVigil(t, agentDir, work)
	p.send(map[string]any{"type": "approve", "id": "a", "tool_call_id": "x", "decision": "once"})
	r := p.waitFor("approve's reply", func(m map[string]any) bool { return m["id"] == "a" })
	if r["success"] != false || !strings.Contains(fmt.Sprint(r["error"]), "--approval ask") {
		t.Errorf("approve with the mode off: %v", r)
	}
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "go"})
	end := p.waitFor("tool_end", isType("tool_end"))
	if !strings.Contains(fmt.Sprint(end["summary"]), "RAN-unasked") {
		t.Errorf("tool_end %v", end)
	}
	p.waitFor("idle", isType("idle"))
	p.finish()
}

// TestPrintApprovalAskDenies: vigil -p --approval ask has no one to ask:
// it says so on stderr, denies the call, and the model reads why.
func TestPrintApprovalAskDenies(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "echo x > ran.txt"}}]
      - text: "ANSWER-denied"
`)
	cmd := vigilCommand(agentDir, work, "-p", "--approval", "ask", "-m", "fake/m", "go")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || strings.TrimSpace(string(out)) != "ANSWER-denied" {
		t.Fatalf("vigil = %q, %v\n%s", out, err, stderr.String())
	}
	for _, want := range []string{"--approval ask in print mode: no one can approve", "vigil: denied bash"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	if _, err := os.Stat(filepath.Join(work, "ran.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied command ran (%v)", err)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), agent.DeniedText) || !strings.Contains(string(reqs[1].Body), "print mode with --approval ask") {
		t.Errorf("the second request lacks the refusal: %q", requestBodies(reqs))
	}

	bad := vigilCommand(agentDir, work, "-p", "--approval", "never", "-m", "fake/m", "go")
	if out, err := bad.CombinedOutput(); err == nil || !strings.Contains(string(out), "--approval never: want ask") {
		t.Errorf("--approval never: %v\n%s", err, out)
	}
}

// TestRPCApprovalAlwaysLastsTheSession: an always outlives a /model
// switch (the agent is rebuilt on the same session) and ends with /new.
func TestRPCApprovalAlwaysLastsTheSession(t *testing.T) {
	_, agentDir, work := fakeSetup(t, `
rules:
  - steps:
      - tool_calls: [{id: call_1, name: bash, arguments: {command: "echo A"}}]
      - text: "first done"
      - tool_calls: [{id: call_2, name: bash, arguments: {command: "echo B"}}]
      - text: "second done"
      - tool_calls: [{id: call_3, name: bash, arguments: {command: "echo C"}}]
      - text: "third done"
`)
	p := startVigil(t, agentDir, work, "--approval", "ask")
	run := func(id string, answer string) {
		t.Helper()
		p.send(map[string]any{"type": "prompt", "id": id, "message": "go " + id})
		// This prompt's turn first: a /model before it rebuilds the agent,
		// which may report idle once more after its reply.
		p.waitFor("turn_start", isType("turn_start"))
		if answer != "" {
			req := p.waitFor("approval_request", isType("approval_request"))
			p.send(map[string]any{"type": "approve", "id": "a" + id, "tool_call_id": req["tool_call_id"], "decision": answer})
		}
		p.waitFor("idle", isType("idle"))
	}
	command := func(line string) {
		t.Helper()
		p.send(map[string]any{"type": "command", "id": line, "command": line})
		if r := p.waitFor(line+"'s reply", func(m map[string]any) bool { return m["id"] == line }); r["success"] != true {
			t.Fatalf("%s: %v", line, r)
		}
	}
	run("1", "always")
	command("/model fake/m")
	run("2", "")
	command("/new")
	run("3", "once")
	p.finish()
	var asked []any
	for _, m := range p.seen {
		if m["type"] == "approval_request" {
			asked = append(asked, m["tool_call_id"])
		}
	}
	if fmt.Sprint(asked) != "[call_1 call_3]" {
		t.Errorf("asked for %v, want call_1 and, after /new, call_3", asked)
	}
}

// requestBodies is each request's body, for a failure message.
func requestBodies(reqs []fakellm.Request) []string {
	out := make([]string, len(reqs))
	for i, r := range reqs {
		out[i] = string(r.Body)
	}
	return out
}
