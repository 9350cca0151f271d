package supervise_test

import (
	"strings"
	"testing"
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
