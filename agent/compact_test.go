package agent_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// summaryRule answers the summary requests, which the summary prompt
// gives away; scripts list it first.
const summaryRule = `
  - name: summary
    match: ["You summarise a coding agent"]
    steps:
      - text: "SUMMARY: the user asked about ALPHA; it was answered."
`

func TestCompactionAtThreshold(t *testing.T) {
	e := newEnv(t, `
rules:`+summaryRule+`
  - name: main
    steps:
      - text: The answer to ALPHA is 42.
        usage: {input: 5000, output: 10}
      - text: BETA answered from the summary.
`)
	opts := e.options()
	opts.Compaction = agent.CompactionOptions{Enabled: true, ThresholdTokens: 1000, KeepRecentTokens: 5}
	a := e.agent(t, opts)
	if err := a.Prompt(t.Context(), "first question, about ALPHA"); err != nil {
		t.Fatal(err)
	}
	if st := a.State(); st.ContextTokens <= 1000 || st.CompactAt != 1000 {
		t.Fatalf("after the first turn: %+v, want a context over the threshold", st)
	}
	r := record(t, a)
	if err := a.Prompt(t.Context(), "second question, about BETA"); err != nil {
		t.Fatal(err)
	}

	want := []string{"turn_start", "compaction_start", "compaction_end", "history_rewritten", "step_start", "message_delta", "message_end", "step_end", "turn_end", "idle"}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ev := r.first(t, agent.EventCompactionStart); ev.Reason != agent.CompactThreshold || ev.TokensBefore <= 1000 {
		t.Errorf("compaction_start: %+v", ev)
	}
	end := r.first(t, agent.EventCompactionEnd)
	comp, ok := end.Entry.Body.(*session.Compaction)
	if !ok || end.Err != nil || !strings.HasPrefix(comp.Summary, "SUMMARY:") || end.TokensAfter >= end.TokensBefore {
		t.Fatalf("compaction_end: %+v", end)
	}
	if ev := r.first(t, agent.EventHistoryRewritten); ev.Reason != agent.RewriteCompaction {
		t.Errorf("history_rewritten: %+v", ev)
	}
	// It keeps the new prompt and summarises the first turn.
	prompt2 := r.first(t, agent.EventTurnStart).Entry
	if comp.FirstKeptID != prompt2.ID {
		t.Errorf("compaction keeps from %q, want the second prompt %q", comp.FirstKeptID, prompt2.ID)
	}

	reqs := e.srv.Requests()
	if len(reqs) != 3 || reqs[1].Rule != "summary" {
		t.Fatalf("requests: %d, the second by rule %q; want 3, the second a summary", len(reqs), reqs[1].Rule)
	}
	inOrder(t, "summary request", e.body(t, 1), "first question, about ALPHA", "The answer to ALPHA is 42.")
	next := e.body(t, 2)
	inOrder(t, "request after compaction", next, "SUMMARY: the user asked about ALPHA", "second question, about BETA")
	if strings.Contains(next, "first question") || strings.Contains(next, "The answer to ALPHA is 42.") {
		t.Errorf("the request after compaction still carries the old entries:\n%s", next)
	}
}

func TestContextTooLongCompactsAndRetries(t *testing.T) {
	e := newEnv(t, `
rules:`+summaryRule+`
  - name: main
    steps:
      - text: The answer to ALPHA is 42.
      - fault: {status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum"}
      - text: Answered after compacting.
`)
	opts := e.options()
	opts.Info.ContextWindow = 0 // no threshold: only the overflow compacts
	opts.Compaction = agent.CompactionOptions{Enabled: true, KeepRecentTokens: 5}
	a := e.agent(t, opts)
	if err := a.Prompt(t.Context(), "first question, about ALPHA"); err != nil {
		t.Fatal(err)
	}
	r := record(t, a)
	if err := a.Prompt(t.Context(), "second question, about BETA"); err != nil {
		t.Fatal(err)
	}
	want := []string{"turn_start", "step_start", "compaction_start", "compaction_end", "history_rewritten", "message_delta", "message_end", "step_end", "turn_end", "idle"}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ev := r.first(t, agent.EventCompactionStart); ev.Reason != agent.CompactOverflow {
		t.Errorf("compaction_start: %+v", ev)
	}
	reqs := e.srv.Requests()
	if len(reqs) != 4 || reqs[1].Status != 400 || reqs[2].Rule != "summary" {
		t.Fatalf("requests: %+v", reqs)
	}
	retry := e.body(t, 3)
	inOrder(t, "retried request", retry, "SUMMARY:", "second question, about BETA")
	if strings.Contains(retry, "first question") {
		t.Errorf("the retry still carries the old entries")
	}
}

func TestManualCompact(t *testing.T) {
	e := newEnv(t, `
rules:`+summaryRule+`
  - name: main
    steps:
      - text: The answer to ALPHA is 42.
      - text: Carrying on.
`)
	opts := e.options()
	opts.Compaction = agent.CompactionOptions{Enabled: true, KeepRecentTokens: 1}
	a := e.agent(t, opts)
	if err := a.Compact(t.Context(), ""); err == nil {
		t.Error("Compact of an empty session succeeded")
	}
	if err := a.Prompt(t.Context(), "first question, about ALPHA"); err != nil {
		t.Fatal(err)
	}
	r := record(t, a)
	if err := a.Compact(t.Context(), "focus on the numbers"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"compaction_start", "compaction_end", "history_rewritten"}, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ev := r.first(t, agent.EventCompactionStart); ev.Reason != agent.CompactManual {
		t.Errorf("compaction_start: %+v", ev)
	}
	inOrder(t, "summary request", e.body(t, 1), "first question", "focus on the numbers")
	// The most recent entry worth KeepRecentTokens, the reply, is kept;
	// the prompt before it is summarised away.
	if err := a.Prompt(t.Context(), "go on"); err != nil {
		t.Fatal(err)
	}
	next := e.body(t, 2)
	inOrder(t, "next request", next, "SUMMARY:", "The answer to ALPHA is 42.", "go on")
	if strings.Contains(next, "first question") {
		t.Errorf("the request after compaction still carries the first prompt")
	}
}

func TestCompactionDisabledReportsContextTooLong(t *testing.T) {
	e := newEnv(t, `
rules:
  - steps:
      - fault: {status: 400, message: "prompt is too long: 250000 tokens > 200000 maximum"}
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	err := a.Prompt(t.Context(), "hello")
	if !errors.Is(err, llm.ContextTooLong) {
		t.Fatalf("Prompt: %v, want ContextTooLong", err)
	}
	end := r.first(t, agent.EventStepEnd)
	if len(end.Entries) != 1 || end.Entries[0].Body.(*session.Custom).CustomType != agent.CustomError {
		t.Errorf("step_end: %+v", end)
	}
	if ev := r.first(t, agent.EventTurnEnd); !errors.Is(ev.Err, llm.ContextTooLong) {
		t.Errorf("turn_end: %+v", ev)
	}
}

// TestFailedCompactionGoesOn: a summary that fails is reported, the
// request goes ahead uncompacted, and the turn does not ask again.
func TestFailedCompactionGoesOn(t *testing.T) {
	e := newEnv(t, `
rules:
  - name: summary
    match: ["You summarise a coding agent"]
    steps:
      - fault: {status: 500, message: summariser down}
  - name: main
    steps:
      - text: The answer to ALPHA is 42.
        usage: {input: 5000, output: 10}
      - tool_calls: [{name: bash, arguments: {command: "echo hi"}}]
        usage: {input: 5000, output: 10}
      - text: Done without compacting.
`)
	opts := e.options()
	opts.Compaction = agent.CompactionOptions{Enabled: true, ThresholdTokens: 1000, KeepRecentTokens: 5}
	a := e.agent(t, opts)
	if err := a.Prompt(t.Context(), "first question, about ALPHA"); err != nil {
		t.Fatal(err)
	}
	r := record(t, a)
	if err := a.Prompt(t.Context(), "second question"); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"turn_start", "compaction_start", "compaction_end",
		"step_start", "message_end", "tool_start", "tool_end", "step_end",
		"step_start", "message_delta", "message_end", "step_end", "turn_end", "idle",
	}
	if diff := cmp.Diff(want, r.types()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	if ev := r.first(t, agent.EventCompactionEnd); ev.Err == nil || ev.Entry != nil {
		t.Errorf("compaction_end: %+v", ev)
	}
	inOrder(t, "uncompacted request", e.body(t, 2), "first question, about ALPHA", "second question")
}

func TestCompactionThreshold(t *testing.T) {
	// def is vigil's default compaction settings (docs/config.md).
	def := agent.CompactionOptions{Enabled: true, ReserveTokens: 16_384, KeepRecentTokens: 20_000}
	tests := []struct {
		name   string
		c      agent.CompactionOptions
		window int
		want   int
	}{
		{"default, large window", def, 200_000, 170_000},
		{"default, small window: the reserve wins", def, 32_768, 16_384},
		{"reserve larger than the window", def, 8_000, 1},
		{"tokens", agent.CompactionOptions{Enabled: true, ThresholdTokens: 50_000}, 200_000, 50_000},
		{"tokens clamped to the window", agent.CompactionOptions{Enabled: true, ThresholdTokens: 500_000}, 200_000, 199_999},
		{"percent", agent.CompactionOptions{Enabled: true, ThresholdPercent: 80}, 200_000, 160_000},
		{"tokens before percent", agent.CompactionOptions{Enabled: true, ThresholdTokens: 1_000, ThresholdPercent: 80}, 200_000, 1_000},
		{"negative means automatic", agent.CompactionOptions{Enabled: true, ThresholdTokens: -1, ThresholdPercent: -1, ReserveTokens: 16_384}, 200_000, 170_000},
		{"disabled", agent.CompactionOptions{ThresholdTokens: 5}, 200_000, 0},
		{"unknown window", def, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.c.Threshold(tt.window); got != tt.want {
				t.Errorf("Threshold(%d) = %d, want %d", tt.window, got, tt.want)
			}
		})
	}
}
