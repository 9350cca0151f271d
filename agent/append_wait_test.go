package agent_test

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// TestPromptWaitsForAnIdleAppend: a custom entry a host appends to the
// idle agent in the background (the advisor's warning, or its fleet
// answering) holds the busy token while its custom_appended is
// delivered; a prompt arriving then waits for it and runs, instead of
// failing with ErrBusy. (A client that saw custom_appended and sent its
// prompt at once got "agent: busy" before: TestRPCAdvisorFleetReachedLate
// failed so under load.)
func TestPromptWaitsForAnIdleAppend(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &scripted{replies: []func(llm.Request) []llm.Event{textReply("done")}}
		a, err := agent.New(agent.Options{Model: model, Session: memSession(t)})
		if err != nil {
			t.Fatal(err)
		}
		delivering, release := make(chan struct{}), make(chan struct{})
		on(a, agent.EventCustomAppended, func(agent.Event) {
			close(delivering)
			<-release
		})
		appended := make(chan error, 1)
		go func() {
			_, err := a.AppendCustom(session.Custom{CustomType: "advisor_notice", Content: []llm.Block{llm.Text("the fleet answers now")}, Display: true})
			appended <- err
		}()
		<-delivering
		prompted := make(chan error, 1)
		go func() { prompted <- a.Prompt(context.Background(), "go") }()
		// Both are blocked now: the append in its subscriber, the prompt
		// on the token (or it has failed already).
		synctest.Wait()
		var early error
		returned := false
		select {
		case early = <-prompted:
			returned = true
		default:
		}
		close(release)
		if err := <-appended; err != nil {
			t.Errorf("AppendCustom: %v", err)
		}
		if returned {
			t.Fatalf("Prompt during an idle AppendCustom returned at once: %v", early)
		}
		if err := <-prompted; err != nil {
			t.Errorf("Prompt after the append: %v", err)
		}
	})
}

// TestPromptStillBusyDuringARun: waiting is for an idle append only; a
// prompt during a run still fails at once with ErrBusy.
func TestPromptStillBusyDuringARun(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		model := &scripted{replies: []func(llm.Request) []llm.Event{textReply("done")}}
		a, err := agent.New(agent.Options{Model: model, Session: memSession(t)})
		if err != nil {
			t.Fatal(err)
		}
		var during error
		on(a, agent.EventTurnStart, func(agent.Event) { during = a.Prompt(context.Background(), "again") })
		if err := a.Prompt(context.Background(), "go"); err != nil {
			t.Fatal(err)
		}
		if during != agent.ErrBusy {
			t.Errorf("Prompt during a run: %v, want ErrBusy", during)
		}
	})
}
