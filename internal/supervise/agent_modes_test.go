package supervise_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/session"
)

// advisorScript scripts a primary (model m) that runs bash false three
// times and answers, and an advisor (model adv) whose first review raises
// advice as a concern.
func advisorScript(advice string) string {
	return `
rules:
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - tool_calls: [{name: bash, arguments: {command: "false"}}]
      - text: "FINAL-answer: false keeps failing."
  - name: advisor
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "` + advice + `", severity: concern}}]
      - text: "Nothing more to add."
`
}

// TestAgentSyncBacklog: with advisor.syncBacklog 1, at each step end the
// agent waits for the review of that step, so the advisor's concern about
// the first step is in the very next primary request. No step blocks: only
// the wait orders the two.
func TestAgentSyncBacklog(t *testing.T) {
	const advice = "ADVICE-sync-stop-running-false"
	w := newAgentWorld(t, advisorScript(advice), "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n", "", "adv")
	run := w.start(t, "fake/adv")
	if err := w.ag.Prompt(t.Context(), "run false until it works"); err != nil {
		t.Fatal(err)
	}
	run.Stop()
	primary := w.requests()["m"]
	landed := -1
	for i, body := range primary {
		if strings.Contains(body, advice) {
			landed = i
			break
		}
	}
	if landed != 1 {
		t.Fatalf("the advice first lands in primary request index %d (of %d), want 1: the one right after the first step", landed, len(primary))
	}
}

// gateScript: the primary runs a quiet step, then a commit that skips its
// hooks (a signal of the rules, no finding), then answers.
const gateScript = `
rules:
  - name: review
    model: m
    match: ["### Advisor review"]
    repeat: true
    steps:
      - text: "NO_CHANGE"
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "echo QUIET-STEP"}}]
      - tool_calls: [{name: bash, arguments: {command: "git commit --no-verify -m wip || true"}}]
      - text: "FINAL: committed."
  - name: advisor
    model: adv
    repeat: true
    steps:
      - text: "Nothing to add."
`

// TestAgentGateWakesOnASignal: with advisor.gate: rules the model reviews
// at a step that has only a signal (no finding), and its update says what
// the rules saw; the quiet step before it wakes no model (issue 29).
func TestAgentGateWakesOnASignal(t *testing.T) {
	w := newAgentWorld(t, gateScript, "advisor:\n  enabled: true\n  gate: rules\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n", "", "adv")
	run := w.start(t, "fake/adv")
	if err := w.ag.Prompt(t.Context(), "commit the work"); err != nil {
		t.Fatal(err)
	}
	run.Stop()
	reviews := w.requests()["adv"]
	if len(reviews) != 1 {
		t.Fatalf("%d advisor reviews, want 1 (the signalled step's)", len(reviews))
	}
	for _, want := range []string{"### Signals", "check-off", "--no-verify", "QUIET-STEP"} {
		if !strings.Contains(reviews[0], want) {
			t.Errorf("the review lacks %q:\n%.4000s", want, reviews[0])
		}
	}
	if strings.Contains(reviews[0], "### Detector findings") {
		t.Errorf("the review claims findings for a step with only a signal")
	}
}

// TestAgentPeriodicReviewPulledForwardBySignal: in the periodic mode,
// advisor.gate: rules pulls a review forward at a signal, long before
// everyToolCalls, and the review's prompt says what the rules saw; the
// quiet step before it pulls nothing (issue 29).
func TestAgentPeriodicReviewPulledForwardBySignal(t *testing.T) {
	w := newAgentWorld(t, gateScript, "advisor:\n  enabled: true\n  mode: periodic\n  gate: rules\n  periodic:\n    everyToolCalls: 100\n", "")
	run := w.start(t, "")
	if err := w.ag.Prompt(t.Context(), "commit the work"); err != nil {
		t.Fatal(err)
	}
	run.Stop()
	var forks []string
	for _, body := range w.requests()["m"] {
		if strings.Contains(body, "### Advisor review") {
			forks = append(forks, body)
		}
	}
	if len(forks) != 1 {
		t.Fatalf("%d reviews, want 1 (pulled forward by the signal; 2 of 100 calls)", len(forks))
	}
	for _, want := range []string{"What the rules saw", "check-off", "--no-verify"} {
		if !strings.Contains(forks[0], want) {
			t.Errorf("the review lacks %q:\n%.4000s", want, forks[0])
		}
	}
}

// TestAgentAllowPromptInjection is issue 17 item 2 in the continuous mode:
// the advisor raises a concern about the first step, and with
// advisor.syncBacklog 1 the agent waits for that review. With
// advisor.allowPromptInjection true (the default) the concern is in the
// agent's next request; with it false the advisor reviews the same steps,
// the concern is in the status, in the advisor's transcript and in the
// session as a withheld entry out of context, and in none of the agent's
// requests.
func TestAgentAllowPromptInjection(t *testing.T) {
	const advice = "ADVICE-withheld-stop-running-false"
	for _, allow := range []bool{true, false} {
		t.Run(fmt.Sprintf("allow=%v", allow), func(t *testing.T) {
			settings := "advisor:\n  enabled: true\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n"
			if !allow {
				settings += "  allowPromptInjection: false\n"
			}
			w := newAgentWorld(t, advisorScript(advice), settings, "", "adv")
			run := w.start(t, "fake/adv")
			if err := w.ag.Prompt(t.Context(), "run false until it works"); err != nil {
				t.Fatal(err)
			}
			st := run.Report(supervise.Spent{}).Text
			run.Stop()

			reqs := w.requests()
			primary, reviews := reqs["m"], 0
			for _, body := range reqs["adv"] {
				if strings.Contains(body, "### Session update") {
					reviews++
				}
			}
			if len(primary) != 4 || reviews == 0 {
				t.Fatalf("%d primary requests and %d advisor reviews, want 4 and some", len(primary), reviews)
			}
			carried := 0
			for _, body := range primary {
				if strings.Contains(body, advice) {
					carried++
				}
			}
			_, entries, err := session.ReadFile(w.sess.File())
			if err != nil {
				t.Fatal(err)
			}
			var withheld, delivered int
			for _, e := range entries {
				if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor" && strings.Contains(c.Content[0].Text, advice) {
					if strings.Contains(string(c.Details), `"withheld"`) {
						withheld++
						if c.InContext || !c.Display {
							t.Errorf("the withheld entry: in context %v, displayed %v", c.InContext, c.Display)
						}
					} else {
						delivered++
					}
				}
			}
			adv, err := os.ReadFile(filepath.Join(strings.TrimSuffix(w.sess.File(), ".jsonl"), session.AdvisorTranscript))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(adv), advice) {
				t.Error("the advisor's transcript lacks its note")
			}

			if allow {
				if carried != 3 || delivered != 1 || withheld != 0 {
					t.Errorf("the concern is in %d of the 3 later requests, %d delivered and %d withheld entries; want it delivered", carried, delivered, withheld)
				}
				if !strings.Contains(st, "Notes: 1 delivered") {
					t.Errorf("status: %s", st)
				}
				return
			}
			if carried != 0 {
				t.Errorf("the withheld concern is in %d primary requests", carried)
			}
			if withheld != 1 || delivered != 0 {
				t.Errorf("%d withheld and %d delivered advisor entries, want 1 and 0", withheld, delivered)
			}
			if !strings.Contains(st, "Notes: 1 withheld from the agent (advisor.allowPromptInjection is false") {
				t.Errorf("the status does not count the withheld note: %s", st)
			}
			if !strings.Contains(string(adv), "withheld from the agent") {
				t.Error("the advisor's transcript does not say the note was withheld")
			}
		})
	}
}

// TestAgentPeriodicSteersRepeatedFailure is issue 7: with advisor.mode
// periodic and everyToolCalls 3 (and no advisor model: the review runs on
// the agent's), the agent runs a failing check three times; the review
// forks after the third result, replies CORRECTION, and the correction is
// in the agent's very next request, in the same message as that result.
// The run goes on, in its one turn, and the status says what happened.
func TestAgentPeriodicSteersRepeatedFailure(t *testing.T) {
	const correction = "CORRECTION-read-check-yml: the key timout is misspelt; stop rerunning the check."
	const check = `echo 'check: unknown key timout in check.yml'; exit 1`
	w := newAgentWorld(t, `
rules:
  - name: review
    model: m
    match: ["### Advisor review"]
    steps:
      - text: "CORRECTION\n`+correction+`"
  - name: primary
    model: m
    steps:
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "`+check+`"}}]
      - tool_calls: [{name: bash, arguments: {command: "echo fixed"}}]
      - text: "READY"
`, "advisor:\n  enabled: true\n  mode: periodic\n  periodic:\n    everyToolCalls: 3\n", "")
	var turns atomic.Int32
	unsub := w.ag.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventTurnStart {
			turns.Add(1)
		}
	})
	defer unsub()
	run := w.start(t, "")
	if err := w.ag.Prompt(t.Context(), "poll the check until it passes"); err != nil {
		t.Fatal(err)
	}
	st := run.Report(supervise.Spent{}).Text
	run.Stop()
	for _, want := range []string{"periodic mode", "fake/m", "every 3 tool calls", "Reviews: 1 (1 steered", "Last: steered"} {
		if !strings.Contains(st, want) {
			t.Errorf("the status lacks %q: %s", want, st)
		}
	}

	var primary, forks []string
	for _, body := range w.requests()["m"] {
		if strings.Contains(body, "### Advisor review") {
			forks = append(forks, body)
		} else {
			primary = append(primary, body)
		}
	}
	if len(forks) != 1 || strings.Count(forks[0], `"tool_use_id"`) != 3 {
		t.Fatalf("%d forks, want one holding the three results", len(forks))
	}
	if len(primary) != 5 {
		t.Fatalf("%d agent requests, want 5", len(primary))
	}
	if strings.Contains(primary[2], correction) {
		t.Error("the correction is in the request before the review")
	}
	// Right after the third result: both in the request's last message,
	// the result first.
	last := lastMessage(t, primary[3])
	if r, c := strings.Index(last, "unknown key timout"), strings.Index(last, correction); r < 0 || c < r {
		t.Errorf("the fourth request's last message does not hold the third result then the correction:\n%s", last)
	}
	if n := turns.Load(); n != 1 {
		t.Errorf("%d turns, want 1: the correction joins the run", n)
	}

	_, entries, err := session.ReadFile(w.sess.File())
	if err != nil {
		t.Fatal(err)
	}
	steers := 0
	for _, e := range entries {
		if c, ok := e.Body.(*session.Custom); ok && c.CustomType == "advisor" {
			steers++
			if string(c.Details) != `{"delivery":"steer","source":"advisor:periodic"}` {
				t.Errorf("the correction's entry says %s", c.Details)
			}
		}
	}
	if steers != 1 {
		t.Errorf("%d advisor entries in the session, want 1", steers)
	}
	// The fork's exchange is in the advisor's transcript, not the agent's.
	_, entries, err = session.ReadFile(filepath.Join(strings.TrimSuffix(w.sess.File(), ".jsonl"), session.AdvisorTranscript))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range entries {
		switch b := e.Body.(type) {
		case *session.Custom:
			kinds[b.CustomType]++
		case *session.Message:
			kinds[string(b.Message.Role)]++
		}
	}
	if kinds["advisor_review"] != 1 || kinds["assistant"] != 1 || kinds["user"] != 0 {
		t.Errorf("advisor transcript entries %v, want one review and its reply", kinds)
	}
}

// lastMessage returns the text of a request body's last message, its
// blocks in order.
func lastMessage(t *testing.T, body string) string {
	t.Helper()
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("request body: %v", err)
	}
	return string(req.Messages[len(req.Messages)-1])
}
