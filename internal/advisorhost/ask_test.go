package advisorhost_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// The question of an ask_advisor call, and the advisor's answer to it.
const (
	askQuestion = "Should I run the migration on prod now?"
	askAnswer   = "No: run it on staging first, the prod backup is a day old & <unverified>."
)

// End to end, against fakellm: the agent's model calls ask_advisor; the
// advisor's request extends its last review's (its prefix read from the
// cache) with the step since and then the question; the answer, escaped,
// is the tool result in the agent's next request.
func TestAskAdvisorEndToEnd(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - model: m
    steps:
      - tool_calls: [{name: write, arguments: {path: "plan.txt", content: "migrate users\n"}}]
      - tool_calls: [{name: ask_advisor, arguments: {question: "`+askQuestion+`"}}]
      - text: "Staging first, then."
  - model: adv
    steps:
      - text: "Nothing to add."
      - text: "`+askAnswer+`"
  - model: adv
    repeat: true
    steps:
      - text: "Nothing new."
`))
	dir := t.TempDir()
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	model := func(name string) llm.Model {
		m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: name})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	ts, err := tools.NewSession(tools.Options{Cwd: dir, Roots: []string{dir}, ArtifactsDir: sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	var rt *advisor.Runtime
	ask := advisor.AskTool(func(ctx context.Context, q string) (string, error) { return rt.Consult(ctx, q) })
	var fwd hookRef
	ag, err := agent.New(agent.Options{Model: model("m"), Session: sess, Tools: append(ts.Tools(), ask), Hooks: []agent.Hook{&fwd}})
	if err != nil {
		t.Fatal(err)
	}
	host := advisorhost.New(ag, sess)
	defer host.Close()
	fwd.h = host.Hook()
	rt, err = advisor.New(advisor.Options{Model: model("adv"), Host: host, Roots: []string{dir}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	// Each step is reviewed before the next, so the consult follows a
	// review whose prompt the cache holds.
	host.SetSync(1, 30*time.Second, rt.WaitBacklogBelow)
	host.Forward(rt.Notify)
	rt.Start(context.Background())
	defer rt.Stop()

	if err := ag.Prompt(t.Context(), "migrate the users table"); err != nil {
		t.Fatal(err)
	}
	if err := rt.WaitBacklogBelow(t.Context(), 1); err != nil {
		t.Fatal(err)
	}

	var primary, adv []fakellm.Request
	for _, r := range srv.Requests() {
		if r.Model == "m" {
			primary = append(primary, r)
		} else {
			adv = append(adv, r)
		}
	}
	if len(primary) != 3 || len(adv) < 2 {
		t.Fatalf("%d agent and %d advisor requests, want 3 and at least 2", len(primary), len(adv))
	}
	review, consult := adv[0], adv[1]
	body := string(consult.Body)
	// The question follows the update, which holds the write's result and
	// the ask_advisor call itself.
	write, call := strings.Index(body, "plan.txt"), strings.LastIndex(body, "ask_advisor(")
	head, q := strings.Index(body, advisor.ConsultHeading), strings.Index(body, `\u003cquestion\u003e\n`+askQuestion)
	if write < 0 || call < 0 || head < 0 || q < 0 || !(write < head && call < head && head < q) {
		t.Errorf("consult request: want the update (write at %d, the call at %d) before the heading (%d) and the question (%d):\n%s", write, call, head, q, body)
	}
	if u := consult.Usage; u.CacheRead == 0 || u.CacheRead < review.Usage.Input+review.Usage.CacheRead+review.Usage.CacheWrite-1 {
		t.Errorf("consult usage %+v: want the review's whole prompt (%+v) read from the cache", u, review.Usage)
	}
	// The agent's next request carries the answer as the tool's result.
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type    string          `json:"type"`
				Content json.RawMessage `json:"content"`
				IsError bool            `json:"is_error"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(primary[2].Body, &req); err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	if len(last.Content) == 0 || last.Content[0].Type != "tool_result" || last.Content[0].IsError {
		t.Fatalf("the agent's last message %+v, want the ask_advisor result", last)
	}
	want := advisor.FormatAnswer(askAnswer)
	if got := string(last.Content[0].Content); !strings.Contains(got, mustJSONString(t, want)) {
		t.Errorf("tool result %s, want the escaped answer %q", got, want)
	}
	if st := rt.Status(); st.Consults != 1 || st.Reviews < 1 {
		t.Errorf("status %+v", st)
	}
}

func mustJSONString(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Trim(string(b), `"`)
}

// In the periodic mode a question is a fork like a review: the agent's
// own conversation up to its last settled call (the ask_advisor call
// itself left out), onto its own model, with the question as the next
// message; the answer is the tool result of the agent's next request.
func TestAskAdvisorPeriodic(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - name: consult
    model: m
    match: ["### Consult"]
    steps:
      - text: "`+askAnswer+`"
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: write, arguments: {path: "plan.txt", content: "migrate users\n"}}]
      - tool_calls: [{name: ask_advisor, arguments: {question: "`+askQuestion+`"}}]
      - text: "Staging first, then."
`))
	dir := t.TempDir()
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := tools.NewSession(tools.Options{Cwd: dir, Roots: []string{dir}, ArtifactsDir: sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	var per *advisor.Periodic
	ask := advisor.AskTool(func(ctx context.Context, q string) (string, error) { return per.Consult(ctx, q) })
	var fwd hookRef
	ag, err := agent.New(agent.Options{Model: m, Session: sess, Tools: append(ts.Tools(), ask), Hooks: []agent.Hook{&fwd}})
	if err != nil {
		t.Fatal(err)
	}
	host := advisorhost.New(ag, sess)
	defer host.Close()
	fwd.h = host.Hook()
	ph := advisorhost.NewPeriodic(host, true, nil)
	per, err = advisor.NewPeriodic(advisor.PeriodicOptions{Host: ph, EveryToolCalls: 100, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ph.Forward(per.Notify)
	per.Start(context.Background())
	defer per.Stop()
	if err := ag.Prompt(t.Context(), "migrate the users table"); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || reqs[2].Rule != "consult" {
		t.Fatalf("%d requests (the third by rule %q), want the agent's two, the consult's fork, the agent's last", len(reqs), reqs[min(2, len(reqs)-1)].Rule)
	}
	fork := string(reqs[2].Body)
	if !strings.Contains(fork, "plan.txt") || strings.Contains(fork, `"name":"ask_advisor","type":"tool_use"`) || !strings.Contains(fork, `\u003cquestion\u003e\n`+askQuestion) {
		t.Errorf("the fork: want the write, the question, and not the unanswered ask_advisor call:\n%s", fork)
	}
	if want := mustJSONString(t, advisor.FormatAnswer(askAnswer)); !strings.Contains(string(reqs[3].Body), want) {
		t.Errorf("the agent's last request lacks the answer %q", want)
	}
	if st := per.Status(); st.Consults != 1 || st.Reviews != 0 {
		t.Errorf("status %+v", st)
	}
}
