package advisorhost_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/session"
)

// Issue 17 item 3: a run the user resumes is reported as the user's
// (trigger resume, and a user resume for the latch); the run the advisor
// resumes itself, which opens with ResumeText, is neither.
func TestResumeTriggers(t *testing.T) {
	w := newPeriodicWorld(t, `
rules:
  - steps:
      - text: User-resumed.
      - text: Advisor-resumed.
`, true)
	ctx := context.Background()
	if err := w.ag.Resume(ctx, "go on with the tests"); err != nil {
		t.Fatal(err)
	}
	if err := w.ag.Resume(ctx, advisorhost.ResumeText); err != nil {
		t.Fatal(err)
	}
	want := []advisor.Event{
		{Kind: advisor.EventRunStarted, Run: "run-1", Trigger: advisor.TriggerResume},
		{Kind: advisor.EventRunEnded, Run: "run-1"},
		{Kind: advisor.EventRunStarted, Run: "run-2", Trigger: advisor.TriggerAdvisor},
		{Kind: advisor.EventRunEnded, Run: "run-2"},
	}
	if diff := cmp.Diff(want, w.forwarded()); diff != "" {
		t.Errorf("periodic events (-want +got):\n%s", diff)
	}
	resumed := 0
	for _, ev := range w.world.got() {
		if ev.Kind == advisor.EventUserResumed {
			resumed++
		}
	}
	if resumed != 1 {
		t.Errorf("%d user resumes forwarded, want 1 (the user's, not the advisor's)", resumed)
	}
}

// Withhold while the agent is idle writes the note at once: displayed,
// not in context, delivery withheld; the next request does not carry it
// and no run starts.
func TestWithholdWhileIdle(t *testing.T) {
	w := newWorld(t, `
rules:
  - steps:
      - text: Done.
`)
	ctx := context.Background()
	if err := w.host.Withhold(ctx, advisor.Advice{Note: "WITHHELD-idle", Severity: advisor.SeverityConcern}); err != nil {
		t.Fatal(err)
	}
	entries := advisorEntries(w.sess)
	if len(entries) != 1 {
		t.Fatalf("%d advisor entries, want 1", len(entries))
	}
	if c := entries[0]; c.InContext || !c.Display || string(c.Details) != `{"delivery":"withheld"}` {
		t.Errorf("the withheld entry: in context %v, display %v, details %s", c.InContext, c.Display, c.Details)
	}
	if st := w.ag.State(); st.Running {
		t.Error("withholding started a run")
	}
	if err := w.ag.Prompt(ctx, "next"); err != nil {
		t.Fatal(err)
	}
	if body := string(w.srv.Requests()[0].Body); strings.Contains(body, "WITHHELD-idle") {
		t.Errorf("the withheld note is in the next request:\n%.2000s", body)
	}
}

// A note withheld after the run's last boundary (here: at its turn_end)
// is not left queued: the run's end writes it, out of context.
func TestWithholdAfterTheLastBoundary(t *testing.T) {
	w := newWorld(t, `
rules:
  - steps:
      - tool_calls: [{name: bash, arguments: {command: "true"}}]
      - text: Done.
`)
	ctx := context.Background()
	w.ag.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventTurnEnd {
			if err := w.host.Withhold(ctx, advisor.Advice{Note: "WITHHELD-late"}); err != nil {
				t.Error(err)
			}
		}
	})
	if err := w.ag.Prompt(ctx, "one call"); err != nil {
		t.Fatal(err)
	}
	entries := advisorEntries(w.sess)
	if len(entries) != 1 || entries[0].InContext || !strings.Contains(entries[0].Content[0].Text, "WITHHELD-late") {
		t.Fatalf("advisor entries %+v, want the late note, withheld", entries)
	}
	all := w.sess.Entries()
	if c, ok := all[len(all)-1].Body.(*session.Custom); !ok || !strings.Contains(c.Content[0].Text, "WITHHELD-late") {
		t.Errorf("the withheld note is not the last entry of the run")
	}
}
