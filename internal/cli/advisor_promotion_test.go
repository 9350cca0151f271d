package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/session"
)

// promotionSetup writes models where the advisor (fake/adv-1, 40,000
// tokens, $1 per million input tokens) fills its window at its first
// reply, and two larger models of its family: the agent's own, fake/adv-3
// (200,000), the smallest that fits, and fake/adv-2 (400,000, $10), and
// a project config with cfg under advisor:. Every advisor reply reports
// 35,000 input tokens, over the 30,000 threshold.
func promotionSetup(t *testing.T, cfg string) (*fakellm.Server, func() *vigilProc) {
	t.Helper()
	script := `
rules:
  - name: advisor
    match: ["### Session update"]
    repeat: true
    steps:
      - {text: "Nothing to add.", usage: {input: 35000, output: 0}}
  - name: primary
    model: adv-3
    repeat: true
    steps:
      - tool_calls: [{name: bash, arguments: {command: "true"}}]
      - tool_calls: [{name: bash, arguments: {command: "true"}}]
      - tool_calls: [{name: bash, arguments: {command: "true"}}]
      - text: "FINAL-answer: done."
`
	srv, agentDir, work := fakeSetup(t, script)
	yml := fmt.Sprintf(`providers:
  fake:
    baseUrl: %s
    api: anthropic-messages
    auth: none
    models:
      - {id: adv-1, contextWindow: 40000, maxTokens: 4096, cost: {input: 1, output: 0}}
      - {id: adv-2, contextWindow: 400000, maxTokens: 4096, cost: {input: 10, output: 0}}
      - {id: adv-3, contextWindow: 200000, maxTokens: 4096, cost: {input: 100, output: 0}}
`, srv.URL())
	write(t, filepath.Join(agentDir, "models.yml"), yml)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(work, ".vigil", "config.yml"), "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n"+cfg)
	return srv, func() *vigilProc {
		// The later -m wins over startVigil's own.
		return startVigil(t, agentDir, work, "-m", "fake/adv-3", "--advisor-model", "fake/adv-1")
	}
}

// TestRPCAdvisorPromotionDefault: with advisor.promotion unset the
// advisor moves to the larger model of its family that is not the
// agent's (adv-2, not the smaller adv-3 the agent runs on); the move is
// in /advisor status, the event stream and the advisor transcript, and
// each review is priced at the model that served it.
func TestRPCAdvisorPromotionDefault(t *testing.T) {
	s, start := promotionSetup(t, "")
	p := start()
	runToIdle(p)
	p.send(map[string]any{"type": "prompt", "id": "st", "message": "/advisor status"})
	st := fmt.Sprint(p.waitFor("/advisor status reply", func(m map[string]any) bool { return m["id"] == "st" }))
	file := p.sessionFile()
	p.finish()
	t.Logf("status: %s", st)

	byModel := advisorRequests(s)
	t.Logf("requests: %v", byModel)
	if byModel["adv-1"] == 0 || byModel["adv-2"] == 0 {
		t.Fatalf("advisor requests by model = %v, want reviews on adv-1 then adv-2", byModel)
	}
	if byModel["adv-3"] != 0 {
		t.Fatalf("the advisor was promoted onto the agent's model adv-3 (%d requests)", byModel["adv-3"])
	}
	for _, want := range []string{
		"Advisor is enabled (fake/adv-2)",
		"Promoted from fake/adv-1 to fake/adv-2",
		// 35,000 input tokens a review, at $1 then $10 per million.
		fmt.Sprintf("$%.4f.", float64(byModel["adv-1"])*0.035+float64(byModel["adv-2"])*0.35),
		"/ 400,000 tokens",
	} {
		if !strings.Contains(st, want) {
			t.Errorf("/advisor status lacks %q:\n%s", want, st)
		}
	}
	if !sawPromotionEvent(p) {
		t.Errorf("no custom_appended event carries the advisor_promotion entry; saw %s", p.summary())
	}

	// The advisor transcript records the move, and the replies after it
	// name the model that wrote them.
	var models []string
	promoted := false
	for _, e := range checkTree(t, filepath.Join(strings.TrimSuffix(file, ".jsonl"), session.AdvisorTranscript)) {
		switch b := e.Body.(type) {
		case *session.Custom:
			if b.CustomType == "advisor_promotion" {
				promoted = true
				models = append(models, "|")
			}
		case *session.Message:
			if b.Model.Model != "" {
				models = append(models, b.Model.Model)
			}
		}
	}
	got := strings.Join(models, " ")
	if !promoted || !strings.Contains(got, "adv-1 |") || !strings.Contains(got, "| adv-2") || strings.Contains(got, "| adv-1") {
		t.Errorf("advisor transcript replies and promotions = %q, want adv-1 replies, the promotion, then adv-2", got)
	}
}

// TestRPCAdvisorPromotionListed: advisor.promotion names the candidates,
// in order; listing the agent's model makes it one.
func TestRPCAdvisorPromotionListed(t *testing.T) {
	s, start := promotionSetup(t, "  promotion: [fake/adv-3, fake/adv-2]\n")
	p := start()
	runToIdle(p)
	p.finish()
	byModel := advisorRequests(s)
	if byModel["adv-3"] == 0 || byModel["adv-2"] != 0 {
		t.Fatalf("advisor requests by model = %v, want the move to the first listed, adv-3", byModel)
	}
}

// TestRPCAdvisorPromotionOff: an empty advisor.promotion never promotes;
// the advisor compacts its own history instead.
func TestRPCAdvisorPromotionOff(t *testing.T) {
	s, start := promotionSetup(t, "  promotion: []\n")
	p := start()
	runToIdle(p)
	p.finish()
	byModel := advisorRequests(s)
	if byModel["adv-2"] != 0 || byModel["adv-3"] != 0 || byModel["adv-1"] == 0 {
		t.Fatalf("advisor requests by model = %v, want adv-1 only", byModel)
	}
	if sawPromotionEvent(p) {
		t.Error("a promotion was recorded with advisor.promotion: []")
	}
}

// runToIdle sends the prompt and waits for the run to end.
func runToIdle(p *vigilProc) {
	p.send(map[string]any{"type": "prompt", "id": "1", "message": "run true three times"})
	p.waitFor("the final answer", func(m map[string]any) bool {
		return m["type"] == "message_end" && strings.Contains(fmt.Sprint(m["entry"]), "FINAL-answer")
	})
	p.waitFor("idle", isType("idle"))
}

// advisorRequests counts the advisor's requests (those whose system prompt
// is the advisor's) by model.
func advisorRequests(s *fakellm.Server) map[string]int {
	out := map[string]int{}
	for _, r := range s.Requests() {
		if strings.Contains(string(r.Body), "### Session update") {
			out[r.Model]++
		}
	}
	return out
}

func sawPromotionEvent(p *vigilProc) bool {
	for _, m := range p.seen {
		if m["type"] == "custom_appended" && strings.Contains(fmt.Sprint(m["entry"]), "advisor_promotion") {
			return true
		}
	}
	return false
}
