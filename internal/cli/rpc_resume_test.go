package cli_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestRPCResumeSemantics: with the run stopped, a steer resumes it (its
// text opens the next run as the user's) and resume with no message
// continues it, against the real agent and fakellm.
func TestRPCResumeSemantics(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
  - match: ["Continue."]
    steps:
      - text: "ANSWER-continued"
  - match: ["STEER-while-stopped"]
    steps:
      - text: "ANSWER-steered"
  - steps:
      - text: "ANSWER-first"
`)
	p := startVigil(t, agentDir, work)
	answer := func(what string) {
		p.waitFor(what, func(m map[string]any) bool {
			return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), what)
		})
		p.waitFor("idle after "+what, isType("idle"))
	}
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "first task"})
	answer("ANSWER-first")
	p.send(map[string]any{"type": "steer", "id": "2", "message": "STEER-while-stopped"})
	r := p.waitFor("steer reply", func(m map[string]any) bool { return m["id"] == "2" })
	if r["success"] != true || fmt.Sprint(r["data"]) != "map[resumed:true]" {
		t.Fatalf("steer while stopped: %v", r)
	}
	answer("ANSWER-steered")
	p.send(map[string]any{"type": "resume", "id": "3"})
	if r := p.waitFor("resume reply", func(m map[string]any) bool { return m["id"] == "3" }); r["success"] != true {
		t.Fatalf("resume with no message: %v", r)
	}
	answer("ANSWER-continued")
	p.finish()
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3 (one per run)", n)
	}
}
