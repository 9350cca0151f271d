// Package hosttest checks an [advisor.Host] against the contract the
// interface documents, as testing/slogtest checks a slog.Handler: run
// [Run] from a test of the package that implements the host, with an
// [Agent] that drives the agent behind it.
//
// The suite checks, forward only (a host may forget what is behind the
// advisor's cursor): an empty host has nothing to read; Since returns a
// step's entries in order, up to the cursor the step ended at, and no
// more from there or beyond the end; View ends at the same cursor and
// holds the latest step; Aside, Steer and Card each reach the agent,
// asides in the order they were given, each note once; a
// [advisor.Withholder]'s Withhold never reaches the agent; every method
// returns promptly when its context is done; steps taken while the
// advisor reads never move its cursor back (run it with -race); Resume
// returns at once.
package hosttest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Agent is the agent behind one host under test, as the suite drives it.
type Agent interface {
	// Host is the host under test.
	Host() advisor.Host
	// Step makes the agent take one step (a tool call, and its result
	// holding text), as the host reports it: it returns the cursor after
	// the step's last entry, the one the host's [advisor.EventStepEnded]
	// carries. The suite calls it from a goroutine of its own too: a
	// failure is reported with t.Error, not t.Fatal.
	Step(t *testing.T, text string) int
	// Delivered is the text of every note that reached the agent (its
	// model's context, a hook's reply to it, a finding it is scored on)
	// since the last call, in the order it got them: asides, steers and
	// cards, never withheld notes. A host whose notes reach the agent
	// only when it runs lets it run here.
	Delivered(t *testing.T) string
}

// Step is a step of the agent for an [Agent] to append to a host that
// is handed its entries (a sidecar, a fleet worker, a replay): an
// assistant message calling bash and its result holding text. n numbers
// it, for unique entry ids.
func Step(n int, text string) []session.Entry {
	id := fmt.Sprintf("hosttest-call-%d", n)
	args := []byte(`{"command":"echo ` + text + `"}`)
	return []session.Entry{
		{ID: "a-" + id, Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: id, Name: "bash", Arguments: args}}}}},
		{ID: "r-" + id, ParentID: "a-" + id, Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, false, llm.Text(text))}}}},
	}
}

// Run runs the contract against the hosts newAgent makes, a fresh one
// for each check.
func Run(t *testing.T, newAgent func(t *testing.T) Agent) {
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, newAgent(t)) })
	}
}

var checks = []struct {
	name string
	run  func(t *testing.T, a Agent)
}{
	{"Empty", checkEmpty},
	{"SinceReadsSteps", checkSince},
	{"ViewEndsAtTheCursor", checkView},
	{"NotesReachTheAgent", checkNotes},
	{"WithheldNotesDoNot", checkWithhold},
	{"DoneContext", checkDoneContext},
	{"StepsWhileReading", checkConcurrent},
	{"Resume", checkResume},
}

// text is the text of entries, for finding a step's marker in them.
func text(entries []session.Entry) string {
	var b strings.Builder
	for _, e := range entries {
		switch body := e.Body.(type) {
		case *session.Message:
			for _, bl := range body.Message.Content {
				b.WriteString(bl.Text)
				b.WriteString(string(bl.Arguments))
				for _, c := range bl.Content {
					b.WriteString(c.Text)
				}
			}
		case *session.Custom:
			for _, bl := range body.Content {
				b.WriteString(bl.Text)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func checkEmpty(t *testing.T, a Agent) {
	h := a.Host()
	entries, next, err := h.Since(t.Context(), 0)
	if err != nil || len(entries) != 0 {
		t.Errorf("Since(0) of an empty host: %d entries, %v; want none", len(entries), err)
	}
	view, cursor, err := h.View(t.Context())
	if err != nil || len(view) != 0 || cursor != next {
		t.Errorf("View of an empty host: %d entries, cursor %d, %v; want none at %d", len(view), cursor, err, next)
	}
}

func checkSince(t *testing.T, a Agent) {
	h := a.Host()
	ctx := t.Context()
	_, start, err := h.Since(ctx, 0)
	if err != nil {
		t.Fatalf("Since(0): %v", err)
	}
	c1 := a.Step(t, "STEP-one")
	entries, next, err := h.Since(ctx, start)
	if err != nil || next != c1 || len(entries) != c1-start {
		t.Fatalf("Since(%d) after a step ending at %d: %d entries, next %d, %v", start, c1, len(entries), next, err)
	}
	if !strings.Contains(text(entries), "STEP-one") {
		t.Errorf("Since(%d) lacks the step's entries:\n%s", start, text(entries))
	}
	if entries, next, err := h.Since(ctx, c1); err != nil || len(entries) != 0 || next != c1 {
		t.Errorf("Since(%d) at the end: %d entries, next %d, %v; want none, %d", c1, len(entries), next, err, c1)
	}
	if entries, next, err := h.Since(ctx, c1+100); err != nil || len(entries) != 0 || next != c1 {
		t.Errorf("Since(%d) beyond the end: %d entries, next %d, %v; want none and the end %d", c1+100, len(entries), next, err, c1)
	}
	c2 := a.Step(t, "STEP-two")
	entries, next, err = h.Since(ctx, c1)
	if err != nil || next != c2 || len(entries) != c2-c1 || c2 <= c1 {
		t.Fatalf("Since(%d) after a second step ending at %d: %d entries, next %d, %v", c1, c2, len(entries), next, err)
	}
	if got := text(entries); !strings.Contains(got, "STEP-two") || strings.Contains(got, "STEP-one") {
		t.Errorf("Since(%d): want the second step only:\n%s", c1, got)
	}
}

func checkView(t *testing.T, a Agent) {
	a.Step(t, "STEP-one")
	c := a.Step(t, "STEP-two")
	view, cursor, err := a.Host().View(t.Context())
	if err != nil || cursor != c {
		t.Fatalf("View: cursor %d, %v; want %d", cursor, err, c)
	}
	if got := text(view); !strings.Contains(got, "STEP-two") {
		t.Errorf("View lacks the latest step:\n%s", got)
	}
}

func checkNotes(t *testing.T, a Agent) {
	h := a.Host()
	ctx := t.Context()
	a.Step(t, "STEP-one")
	for _, n := range []struct {
		call func(context.Context, advisor.Advice) error
		note string
	}{
		{h.Aside, "ASIDE-first"}, {h.Aside, "ASIDE-second"}, {h.Steer, "STEER-note"}, {h.Card, "CARD-note"},
	} {
		if err := n.call(ctx, advisor.Advice{Note: n.note, Severity: advisor.SeverityConcern}); err != nil {
			t.Fatalf("%s: %v", n.note, err)
		}
	}
	got := a.Delivered(t)
	for _, want := range []string{"ASIDE-first", "ASIDE-second", "STEER-note", "CARD-note"} {
		if strings.Count(got, want) != 1 {
			t.Errorf("the agent got %q %d times, want once:\n%s", want, strings.Count(got, want), got)
		}
	}
	if i, j := strings.Index(got, "ASIDE-first"), strings.Index(got, "ASIDE-second"); i > j {
		t.Errorf("the asides reached the agent out of order:\n%s", got)
	}
	if again := a.Delivered(t); strings.Contains(again, "ASIDE-first") || strings.Contains(again, "STEER-note") {
		t.Errorf("a note reached the agent twice:\n%s", again)
	}
}

func checkWithhold(t *testing.T, a Agent) {
	w, ok := a.Host().(advisor.Withholder)
	if !ok {
		t.Skip("the host shows no withheld notes (it is no advisor.Withholder)")
	}
	a.Step(t, "STEP-one")
	if err := w.Withhold(t.Context(), advisor.Advice{Note: "WITHHELD-note", Severity: advisor.SeverityBlocker}); err != nil {
		t.Fatalf("Withhold: %v", err)
	}
	if got := a.Delivered(t); strings.Contains(got, "WITHHELD-note") {
		t.Errorf("a withheld note reached the agent:\n%s", got)
	}
}

func checkDoneContext(t *testing.T, a Agent) {
	h := a.Host()
	a.Step(t, "STEP-one")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	// Each returns (an error or not): a method that waited on the agent
	// would hang here.
	_, _, _ = h.Since(ctx, 0)
	_, _, _ = h.View(ctx)
	_ = h.Aside(ctx, advisor.Advice{Note: "late"})
	_ = h.Steer(ctx, advisor.Advice{Note: "late"})
	_ = h.Card(ctx, advisor.Advice{Note: "late"})
	_ = h.Resume(ctx)
}

func checkConcurrent(t *testing.T, a Agent) {
	h := a.Host()
	const steps = 20
	var wg sync.WaitGroup
	wg.Add(1)
	ends := make(chan int, steps)
	go func() {
		defer wg.Done()
		for i := range steps {
			ends <- a.Step(t, fmt.Sprintf("STEP-%d", i))
		}
		close(ends)
	}()
	cursor, last := 0, 0
	for end := range ends {
		last = end
		_, next, err := h.Since(t.Context(), cursor)
		if err != nil {
			t.Fatalf("Since(%d): %v", cursor, err)
		}
		if next < cursor {
			t.Fatalf("Since(%d) moved the cursor back to %d", cursor, next)
		}
		cursor = next
	}
	wg.Wait()
	if _, next, err := h.Since(t.Context(), cursor); err != nil || next != last {
		t.Errorf("after %d steps: Since(%d) = next %d, %v; want the last step's end %d", steps, cursor, next, err, last)
	}
}

func checkResume(t *testing.T, a Agent) {
	a.Step(t, "STEP-one")
	if err := a.Host().Resume(t.Context()); err != nil {
		t.Errorf("Resume of an idle agent: %v", err)
	}
}
