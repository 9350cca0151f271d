package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// vigilAskScript is vigil's primary that asks its advisor before a risky step,
// and an advisor (model adv) that reviews quietly and answers the
// consult.
const vigilAskScript = `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo migrating"}}]
      - tool_calls: [{name: ask_advisor, arguments: {question: "QUESTION-prod-or-staging?"}}]
      - text: "FINAL-answer: staging first."
  - name: consult
    model: adv
    match: ["### Consult"]
    steps:
      - text: "ANSWER-staging first & keep the <backup>."
  - name: review
    model: adv
    repeat: true
    steps:
      - text: "Nothing to add."
`

// TestRPCAdvisorAskAdvisor is issue 20's test through the vigil binary:
// with the advisor on, the agent's model calls ask_advisor; the advisor's
// request holds the question after the update that shows the call, and
// reads the prefix of its earlier review from fakellm's cache; the
// escaped answer is the tool result of the agent's next request.
func TestRPCAdvisorAskAdvisor(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, vigilAskScript)
	addAdvisorModel(t, agentDir)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	// Each step is reviewed before the next, so the consult follows a
	// review whose prompt the cache holds.
	cfg := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	p := startVigil(t, agentDir, work, "--advisor-model", "fake/adv")
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "migrate the users table"})
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "FINAL-answer")
	})
	p.waitFor("idle", isType("idle"))
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := fmt.Sprint(p.waitFor("/advisor status reply", func(m map[string]any) bool { return m["id"] == "st" }))
	p.finish()

	var primary []string
	var review, consult int = -1, -1
	reqs := srv.Requests()
	for i, r := range reqs {
		switch {
		case r.Model == "m":
			primary = append(primary, string(r.Body))
		case r.Rule == "consult":
			consult = i
		case consult < 0:
			review = i
		}
	}
	if len(primary) != 3 || consult < 0 || review < 0 {
		t.Fatalf("%d agent requests, consult at %d, review before it at %d", len(primary), consult, review)
	}
	if !strings.Contains(primary[0], `"name":"ask_advisor"`) {
		t.Errorf("the agent was not offered ask_advisor")
	}
	body := string(reqs[consult].Body)
	call, q := strings.LastIndex(body, "ask_advisor("), strings.Index(body, `\u003cquestion\u003e\nQUESTION-prod-or-staging?`)
	if call < 0 || q < 0 || call > q {
		t.Errorf("the consult request lacks the update with the call (at %d) before the question (at %d)", call, q)
	}
	if u, prev := reqs[consult].Usage, reqs[review].Usage; u.CacheRead < prev.Input+prev.CacheRead+prev.CacheWrite-1 {
		t.Errorf("consult usage %+v: want the earlier review's prompt (%+v) read from the cache", u, prev)
	}
	if want := `"ANSWER-staging first \u0026amp; keep the \u0026lt;backup\u0026gt;.","type":"text"}],"type":"tool_result"`; !strings.Contains(primary[2], want) {
		i := strings.Index(primary[2], "ANSWER-")
		t.Errorf("the agent's next request lacks the escaped answer %q: %s", want, primary[2][max(0, i-200):min(len(primary[2]), i+200)])
	}
	if !strings.Contains(st, "Consults (the agent's questions): 1 answered") {
		t.Errorf("/advisor status %s", st)
	}
}
