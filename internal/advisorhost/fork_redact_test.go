package advisorhost_test

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// A periodic review's fork is the advisor's request, though it goes to
// the agent's own model with the agent's conversation: what the agent's
// tools printed and what it thought pass the Redactor before it is sent.
// The thinking that held a secret cannot keep its signature, so the fork
// runs with thinking off; a fork of a conversation without secrets is the
// agent's request byte for byte.
func TestPeriodicForkIsRedacted(t *testing.T) {
	ghp := "ghp_" + "F0rkT0kenThatMustNotLeaveAbCdEf0123456"
	stripe := "sk_live_" + "51ForkTestStr1peKeyXyZ"
	deploy := "deploy-" + "fork-9c2e-live"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, ".env"), []byte("STRIPE_KEY="+stripe+"\nPASSWORD=hunter2xyz\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("FORK_DEPLOY_TOKEN", deploy)
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
rules:
  - name: review
    match: ["### Advisor review"]
    repeat: true
    steps:
      - text: NO_CHANGE
  - steps:
      - thinking: "The token is `+ghp+`; I should not print it."
        tool_calls: [{id: c1, name: bash, arguments: {command: "cat .env; echo $FORK_DEPLOY_TOKEN"}}]
      - text: Done.
`))
	sess, err := session.NewManager(t.TempDir(), session.Options{}).New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sess.Close() })
	ts, err := tools.NewSession(tools.Options{Cwd: dir, ArtifactsDir: sess.ArtifactsDir()})
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		t.Fatal(err)
	}
	ag, err := agent.New(agent.Options{Model: m, Session: sess, Tools: ts.Tools(), Thinking: llm.ThinkingLow})
	if err != nil {
		t.Fatal(err)
	}
	host := advisorhost.New(ag, sess)
	t.Cleanup(host.Close)
	red := history.NewRedactor(os.Environ(), nil)
	if err := ag.Prompt(context.Background(), "check the configuration"); err != nil {
		t.Fatal(err)
	}
	if _, err := advisorhost.NewPeriodic(host, true, red).Fork(context.Background(), advisor.ReviewPrompt("")); err != nil {
		t.Fatal(err)
	}
	// Without a redactor the fork is the agent's own request, secrets and
	// all: the seeds were in the conversation.
	if _, err := advisorhost.NewPeriodic(host, true, nil).Fork(context.Background(), advisor.ReviewPrompt("")); err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want the agent's two and two forks", len(reqs))
	}
	fork, plain := string(reqs[2].Body), string(reqs[3].Body)
	for _, secret := range []string{ghp, stripe, deploy, "hunter2xyz"} {
		if strings.Contains(fork, secret) {
			t.Errorf("the fork sends %q", secret)
		}
		if !strings.Contains(plain, secret) {
			t.Errorf("the unredacted fork lacks %q: the seed never reached the conversation", secret)
		}
	}
	for _, want := range []string{"STRIPE_KEY=[REDACTED:stripe-key]", "[REDACTED:FORK_DEPLOY_TOKEN]", "### Advisor review"} {
		if !strings.Contains(fork, want) {
			t.Errorf("the fork lacks %q:\n%.3000s", want, fork)
		}
	}
	if strings.Contains(fork, `"budget_tokens"`) || !strings.Contains(plain, `"budget_tokens"`) {
		t.Errorf("thinking in the redacted fork: %t, in the plain one: %t; want off, on",
			strings.Contains(fork, `"budget_tokens"`), strings.Contains(plain, `"budget_tokens"`))
	}
}

// A conversation with nothing to hide is forked byte for byte as the
// agent sends it, so the provider's cache still serves the fork.
func TestPeriodicForkWithoutSecretsIsUnchanged(t *testing.T) {
	w := newWorld(t, `
rules:
  - match: ["### Advisor review"]
    repeat: true
    steps:
      - text: NO_CHANGE
  - steps:
      - tool_calls: [{id: c1, name: bash, arguments: {command: "echo one"}}]
      - text: Done.
`)
	if err := w.ag.Prompt(context.Background(), "one call"); err != nil {
		t.Fatal(err)
	}
	red := history.NewRedactor([]string{"SOME_TOKEN=not-in-this-conversation-1"}, nil)
	for _, r := range []*history.Redactor{red, nil} {
		if _, err := advisorhost.NewPeriodic(w.host, true, r).Fork(context.Background(), advisor.ReviewPrompt("")); err != nil {
			t.Fatal(err)
		}
	}
	reqs := w.srv.Requests()
	if got, want := string(reqs[2].Body), string(reqs[3].Body); got != want {
		t.Errorf("the redacted fork differs from the plain one:\n%s\n%s", got, want)
	}
}
