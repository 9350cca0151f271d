package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
)

// With advisor.gate: rules the model reviews at a step that has only a
// signal (a commit that skips its hooks: no finding), and its update says
// what the rules saw; the quiet step before it wakes no model (issue 29).
func TestGatedAdvisorWakesOnASignal(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
rules:
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
`)
	addAdvisorModel(t, agentDir)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  gate: rules\n  syncBacklog: \"1\"\n  syncTimeoutSeconds: 30\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "-p", "commit the work", "--advisor-model", "fake/adv")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("vigil: %v\n%s\n%s", err, out, stderr.String())
	}
	reviews := bodiesWhere(srv, func(r fakellm.Request) bool { return r.Model == "adv" })
	if len(reviews) != 1 {
		t.Fatalf("%d advisor reviews, want 1 (the signalled step's)\n%s", len(reviews), stderr.String())
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

// In the periodic mode, advisor.gate: rules pulls a review forward at a
// signal, long before everyToolCalls, and the review's prompt says what
// the rules saw; the quiet step before it pulls nothing (issue 29).
func TestPeriodicReviewPulledForwardBySignal(t *testing.T) {
	srv, agentDir, work := fakeSetup(t, `
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
`)
	if err := os.MkdirAll(filepath.Join(work, ".vigil"), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg := "advisor:\n  enabled: true\n  mode: periodic\n  gate: rules\n  periodic:\n    everyToolCalls: 100\n"
	if err := os.WriteFile(filepath.Join(work, ".vigil", "config.yml"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := vigilCommand(agentDir, work, "-m", "fake/m", "-p", "commit the work")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("vigil: %v\n%s\n%s", err, out, stderr.String())
	}
	forks := bodiesWhere(srv, func(r fakellm.Request) bool { return strings.Contains(string(r.Body), "### Advisor review") })
	if len(forks) != 1 {
		t.Fatalf("%d reviews, want 1 (pulled forward by the signal; 2 of 100 calls)\n%s", len(forks), stderr.String())
	}
	for _, want := range []string{"What the rules saw", "check-off", "--no-verify"} {
		if !strings.Contains(forks[0], want) {
			t.Errorf("the review lacks %q:\n%.4000s", want, forks[0])
		}
	}
}

// bodiesWhere are the bodies of the requests fakellm got that keep
// says to keep, in order.
func bodiesWhere(srv *fakellm.Server, keep func(fakellm.Request) bool) []string {
	var out []string
	for _, r := range srv.Requests() {
		if keep(r) {
			out = append(out, string(r.Body))
		}
	}
	return out
}
