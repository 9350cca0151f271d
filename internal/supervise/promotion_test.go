package supervise_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/session"
)

// promotionRun is what a run of promotionWorld left: the advisor's
// requests by model, its status, whether a promotion reached the agent's
// events, and the session.
type promotionRun struct {
	byModel  map[string]int
	status   string
	promoted bool
	session  string
}

// runPromotion runs vigil's agent on fake/adv-3 with the advisor on
// fake/adv-1 (40,000 tokens, $1 per million input tokens), which fills its
// window at its first reply, and two larger models of its family: the
// agent's own adv-3 (200,000, $100), the smallest that fits, and adv-2
// (400,000, $10); cfg is added under advisor:. Every advisor reply reports
// 35,000 input tokens, over the 30,000 threshold.
func runPromotion(t *testing.T, cfg string) promotionRun {
	t.Helper()
	w := newAgentWorldOn(t, `
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
`, "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n"+cfg, "", "fake/adv-3", func(srv *fakellm.Server) *models.Registry {
		return registryOf(t, fmt.Sprintf(`providers:
  fake:
    baseUrl: %s
    api: anthropic-messages
    auth: none
    models:
      - {id: adv-1, contextWindow: 40000, maxTokens: 4096, cost: {input: 1, output: 0}}
      - {id: adv-2, contextWindow: 400000, maxTokens: 4096, cost: {input: 10, output: 0}}
      - {id: adv-3, contextWindow: 200000, maxTokens: 4096, cost: {input: 100, output: 0}}
`, srv.URL()))
	})
	var promoted atomic.Bool
	unsub := w.ag.Subscribe(func(ev agent.Event) {
		if ev.Type != agent.EventCustomAppended || ev.Entry == nil {
			return
		}
		if c, ok := ev.Entry.Body.(*session.Custom); ok && c.CustomType == "advisor_promotion" {
			promoted.Store(true)
		}
	})
	defer unsub()
	run := w.start(t, "fake/adv-1")
	if err := w.ag.Prompt(t.Context(), "run true three times"); err != nil {
		t.Fatal(err)
	}
	r := promotionRun{byModel: map[string]int{}, status: run.Report(supervise.Spent{}).Text, session: w.sess.File()}
	run.Stop()
	r.promoted = promoted.Load()
	for _, req := range w.srv.Requests() {
		if strings.Contains(string(req.Body), "### Session update") {
			r.byModel[req.Model]++
		}
	}
	return r
}

// TestAgentPromotionDefault: with advisor.promotion unset the advisor
// moves to the larger model of its family that is not the agent's (adv-2,
// not the smaller adv-3 the agent runs on); the move is in the status,
// the agent's events and the advisor transcript, and each review is
// priced at the model that served it.
func TestAgentPromotionDefault(t *testing.T) {
	r := runPromotion(t, "")
	if r.byModel["adv-1"] == 0 || r.byModel["adv-2"] == 0 {
		t.Fatalf("advisor requests by model = %v, want reviews on adv-1 then adv-2", r.byModel)
	}
	if r.byModel["adv-3"] != 0 {
		t.Fatalf("the advisor was promoted onto the agent's model adv-3 (%d requests)", r.byModel["adv-3"])
	}
	for _, want := range []string{
		"Advisor is enabled (fake/adv-2)",
		"Promoted from fake/adv-1 to fake/adv-2",
		// 35,000 input tokens a review, at $1 then $10 per million.
		fmt.Sprintf("$%.4f.", float64(r.byModel["adv-1"])*0.035+float64(r.byModel["adv-2"])*0.35),
		"/ 400,000 tokens",
	} {
		if !strings.Contains(r.status, want) {
			t.Errorf("the status lacks %q:\n%s", want, r.status)
		}
	}
	if !r.promoted {
		t.Error("no custom_appended event carries the advisor_promotion entry")
	}

	// The advisor transcript records the move, and the replies after it
	// name the model that wrote them.
	_, entries, err := session.ReadFile(filepath.Join(strings.TrimSuffix(r.session, ".jsonl"), session.AdvisorTranscript))
	if err != nil {
		t.Fatal(err)
	}
	var models []string
	promoted := false
	for _, e := range entries {
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

// TestAgentPromotionListed: advisor.promotion names the candidates, in
// order; listing the agent's model makes it one.
func TestAgentPromotionListed(t *testing.T) {
	r := runPromotion(t, "  promotion: [fake/adv-3, fake/adv-2]\n")
	if r.byModel["adv-3"] == 0 || r.byModel["adv-2"] != 0 {
		t.Fatalf("advisor requests by model = %v, want the move to the first listed, adv-3", r.byModel)
	}
}

// TestAgentPromotionOff: an empty advisor.promotion never promotes; the
// advisor compacts its own history instead.
func TestAgentPromotionOff(t *testing.T) {
	r := runPromotion(t, "  promotion: []\n")
	if r.byModel["adv-2"] != 0 || r.byModel["adv-3"] != 0 || r.byModel["adv-1"] == 0 {
		t.Fatalf("advisor requests by model = %v, want adv-1 only", r.byModel)
	}
	if r.promoted {
		t.Error("a promotion was recorded with advisor.promotion: []")
	}
}
