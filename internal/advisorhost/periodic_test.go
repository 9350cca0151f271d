package advisorhost_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// periodicWorld is a world with the periodic host over its agent,
// recording what the host forwards.
type periodicWorld struct {
	*world
	ph *advisorhost.Periodic

	mu     sync.Mutex
	events []advisor.Event
}

func newPeriodicWorld(t *testing.T, script string, allow bool) *periodicWorld {
	w := &periodicWorld{world: newWorld(t, script)}
	w.ph = advisorhost.NewPeriodic(w.host, allow, nil)
	w.ph.Forward(func(ev advisor.Event) {
		w.mu.Lock()
		w.events = append(w.events, ev)
		w.mu.Unlock()
	})
	return w
}

func (w *periodicWorld) forwarded() []advisor.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]advisor.Event(nil), w.events...)
}

func call(id string) advisor.CallKey { return advisor.CallKey{Source: advisorhost.SourceAgent, ID: id} }

// A run's start and end, and each call: all of a step's calls start when
// its reply is written, before the first runs, and each settles with its
// result.
func TestPeriodicForwardMapsRunsAndCalls(t *testing.T) {
	w := newPeriodicWorld(t, `
rules:
  - steps:
      - tool_calls:
          - {id: c1, name: bash, arguments: {command: "echo one"}}
          - {id: c2, name: bash, arguments: {command: "echo two"}}
      - text: First done.
      - text: Second done.
      - text: Follow-up done.
`, true)
	ctx := context.Background()
	if err := w.ag.Prompt(ctx, "two calls"); err != nil {
		t.Fatal(err)
	}
	w.ag.FollowUp("and then")
	if err := w.ag.Prompt(ctx, "again"); err != nil {
		t.Fatal(err)
	}
	want := []advisor.Event{
		{Kind: advisor.EventRunStarted, Run: "run-1", Trigger: advisor.TriggerUser},
		{Kind: advisor.EventToolStarted, Call: call("c1")},
		{Kind: advisor.EventToolStarted, Call: call("c2")},
		{Kind: advisor.EventToolSettled, Call: call("c1")},
		{Kind: advisor.EventToolSettled, Call: call("c2")},
		{Kind: advisor.EventRunEnded, Run: "run-1"},
		// A follow-up's turn is in its run: one start, one end.
		{Kind: advisor.EventRunStarted, Run: "run-2", Trigger: advisor.TriggerUser},
		{Kind: advisor.EventRunEnded, Run: "run-2"},
	}
	if diff := cmp.Diff(want, w.forwarded()); diff != "" {
		t.Errorf("forwarded events (-want +got):\n%s", diff)
	}
}

// The fork is the agent's own request, tool definitions included, with
// the prompt after the conversation: the provider's cache serves its
// prefix. A tool call in its reply is not run, and nothing of it is
// written to the primary's session.
func TestPeriodicForkRunsNoTool(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	w := newPeriodicWorld(t, `
rules:
  - match: ["### Advisor review"]
    steps:
      - tool_calls: [{name: bash, arguments: {command: "touch `+marker+`"}}]
  - steps:
      - tool_calls: [{id: c1, name: bash, arguments: {command: "echo one"}}]
      - text: Done.
`, true)
	if err := w.ag.Prompt(context.Background(), "one call"); err != nil {
		t.Fatal(err)
	}
	before := w.sess.Len()
	reply, err := w.ph.Fork(context.Background(), advisor.ReviewPrompt(""))
	if err != nil {
		t.Fatal(err)
	}
	if len(reply.Reply.ToolCalls()) != 1 || reply.Reply.Text() != "" {
		t.Errorf("reply %+v, want the scripted tool call", reply.Reply)
	}
	if v, _ := advisor.ParseReview(reply.Reply.Text()); v != advisor.VerdictMalformed {
		t.Errorf("a tool call as the reply reads as %s, want malformed", v)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the fork's tool call ran (stat: %v)", err)
	}
	if n := w.sess.Len(); n != before {
		t.Errorf("the fork wrote %d entries to the primary's session", n-before)
	}
	reqs := w.srv.Requests()
	fork := string(reqs[2].Body)
	if !strings.Contains(fork, `"name":"bash"`) || !strings.Contains(fork, "### Advisor review") {
		t.Errorf("the fork lacks the agent's tools or the prompt:\n%.2000s", fork)
	}
	// Everything the agent's last request sent is a cache read for the
	// fork (to a token: fakellm rounds the cached bytes down); only the
	// agent's reply and the prompt are new.
	last, u := reqs[1].Usage, reqs[2].Usage
	if u.CacheRead+1 < last.Input+last.CacheRead+last.CacheWrite {
		t.Errorf("fork usage %+v; the agent's last request was %+v", u, last)
	}
	if reply.Usage.CacheRead != int64(u.CacheRead) {
		t.Errorf("reply usage %+v, server said %+v", reply.Usage, u)
	}
}

// A fork taken while a step's calls run leaves that step out: the fork
// holds no call without its result.
func TestPeriodicForkLeavesOutARunningStep(t *testing.T) {
	w := newPeriodicWorld(t, `
rules:
  - match: ["### Advisor review"]
    steps:
      - text: NO_CHANGE
  - steps:
      - tool_calls: [{id: c0, name: bash, arguments: {command: "echo zero"}}]
      - tool_calls:
          - {id: c1, name: bash, arguments: {command: "echo one"}}
          - {id: c2, name: bash, arguments: {command: "echo two"}}
      - text: Done.
`, true)
	var forkErr error
	var forked advisor.ForkReply
	var once sync.Once
	w.ag.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventToolEnd && ev.ToolCallID == "c1" {
			once.Do(func() { forked, forkErr = w.ph.Fork(context.Background(), advisor.ReviewPrompt("")) })
		}
	})
	if err := w.ag.Prompt(context.Background(), "calls"); err != nil {
		t.Fatal(err)
	}
	if forkErr != nil {
		t.Fatal(forkErr)
	}
	var body string
	for _, r := range w.srv.Requests() {
		if strings.Contains(string(r.Body), "### Advisor review") {
			body = string(r.Body)
		}
	}
	if !strings.Contains(body, `"tool_use_id":"c0"`) || strings.Contains(body, `"id":"c1"`) || strings.Contains(body, "no result") {
		t.Errorf("the fork is not cut before the running step:\n%.3000s", body)
	}
	if forked.At == "" {
		t.Error("the reply does not say where the fork ends")
	}
}

// SteerRun reaches only the run it names, while it goes, and nothing at
// all when injection is not allowed.
func TestPeriodicSteerRun(t *testing.T) {
	ctx := context.Background()
	note := advisor.Advice{Note: "RUN-CORRECTION", Severity: advisor.SeverityConcern}
	script := `
rules:
  - steps:
      - tool_calls: [{id: c1, name: bash, arguments: {command: "echo one"}}]
      - text: Done.
      - text: Again.
`
	t.Run("allowed", func(t *testing.T) {
		w := newPeriodicWorld(t, script, true)
		results := map[string]advisor.SteerOutcome{}
		w.ag.Subscribe(func(ev agent.Event) {
			if ev.Type == agent.EventToolStart {
				for _, run := range []string{"run-0", "run-1"} {
					res, err := w.ph.SteerRun(ctx, run, note)
					if err != nil {
						t.Error(err)
					}
					results[run] = res.Outcome
				}
			}
		})
		if err := w.ag.Prompt(ctx, "go"); err != nil {
			t.Fatal(err)
		}
		if res, _ := w.ph.SteerRun(ctx, "run-1", note); res.Outcome != advisor.SteerRunEnded {
			t.Errorf("after its run: %s", res.Outcome)
		}
		if results["run-0"] != advisor.SteerRunEnded || results["run-1"] != advisor.SteerDelivered {
			t.Errorf("during run-1: %v", results)
		}
		body := string(w.srv.Requests()[1].Body)
		if !strings.Contains(body, "RUN-CORRECTION") {
			t.Errorf("the correction is not in the next request:\n%.2000s", body)
		}
		steers := advisorEntries(w.sess)
		if len(steers) != 1 || string(steers[0].Details) != `{"delivery":"steer","source":"advisor:periodic"}` {
			t.Errorf("advisor entries %+v", steers)
		}
	})
	t.Run("blocked", func(t *testing.T) {
		w := newPeriodicWorld(t, script, false)
		var res advisor.SteerResult
		w.ag.Subscribe(func(ev agent.Event) {
			if ev.Type == agent.EventToolStart {
				res, _ = w.ph.SteerRun(ctx, "run-1", note)
			}
		})
		if err := w.ag.Prompt(ctx, "go"); err != nil {
			t.Fatal(err)
		}
		if res != (advisor.SteerResult{Outcome: advisor.SteerBlocked, Reason: "advisor.allowPromptInjection=false"}) {
			t.Errorf("result %+v", res)
		}
		if n := len(advisorEntries(w.sess)); n != 0 {
			t.Errorf("%d advisor entries, want none", n)
		}
	})
}

// The advisor transcript keeps each review's prompt as an advisor_review
// entry, never a user message, and the reply with its usage.
func TestTranscriptRecordsReviews(t *testing.T) {
	w := newWorld(t, "rules:\n  - steps: [{text: hi}]\n")
	tr, err := advisorhost.OpenTranscript(w.sess, func() llm.Ref { return llm.Ref{Provider: "anthropic", Model: "m"} }, nil)
	if err != nil {
		t.Fatal(err)
	}
	tr.Record(llm.UserText(advisor.ReviewPrompt("")), llm.Usage{})
	tr.Record(llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("NO_CHANGE")}}, llm.Usage{Input: 75, CacheRead: 20000})
	if err := tr.Close(); err != nil {
		t.Fatal(err)
	}
	_, entries, err := session.ReadFile(advisorhost.TranscriptPath(w.sess))
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 2 {
		t.Fatalf("%d entries, want 2", len(entries))
	}
	if c, ok := entries[0].Body.(*session.Custom); !ok || c.CustomType != advisorhost.ReviewType {
		t.Errorf("the prompt is recorded as %+v, want a custom entry of type %s", entries[0].Body, advisorhost.ReviewType)
	}
	if m, ok := entries[1].Body.(*session.Message); !ok || m.Usage.CacheRead != 20000 || m.Model.String() != "anthropic/m" {
		t.Errorf("the reply is recorded as %+v", entries[1].Body)
	}
}
