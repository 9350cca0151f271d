package agent_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/session"
)

// TestShellRunsTheUsersCommand: Shell runs a command with the bash tool,
// with no model request, writes it with its output and exit code as a
// shell entry the model reads on the next request, and refuses while a
// run holds the agent.
func TestShellRunsTheUsersCommand(t *testing.T) {
	e := newEnv(t, `
rules:
  - repeat: true
    steps:
      - text: "seen"
`)
	a := e.agent(t, e.options())
	r := record(t, a)
	en, err := a.Shell(t.Context(), "echo SHELL-out; exit 3")
	if err != nil {
		t.Fatal(err)
	}
	c, ok := en.Body.(*session.Custom)
	if !ok || c.CustomType != agent.CustomShell || !c.Display || !c.InContext {
		t.Fatalf("entry: %+v", en.Body)
	}
	var d agent.ShellDetails
	if err := json.Unmarshal(c.Details, &d); err != nil || d.Command != "echo SHELL-out; exit 3" || d.ExitCode == nil || *d.ExitCode != 3 {
		t.Errorf("details %s (%v)", c.Details, err)
	}
	if n := len(e.srv.Requests()); n != 0 {
		t.Errorf("the model got %d requests for a user's command", n)
	}
	if got := r.types(); len(got) != 1 || got[0] != "custom_appended" {
		t.Errorf("events %v, want custom_appended", got)
	}
	if err := <-prompt(t, a, "what did it print?"); err != nil {
		t.Fatal(err)
	}
	inOrder(t, "the next request", e.body(t, 0), "The user ran a command in the terminal:", "$ echo SHELL-out; exit 3", "SHELL-out", "[exit code 3]", "what did it print?")

	hold, started := make(chan struct{}), make(chan struct{}, 1)
	on(a, agent.EventStepStart, func(agent.Event) { started <- struct{}{}; <-hold })
	done := prompt(t, a, "again")
	<-started // the run holds the agent
	if _, err := a.Shell(t.Context(), "true"); !errors.Is(err, agent.ErrBusy) {
		t.Errorf("Shell during a run: %v, want ErrBusy", err)
	}
	close(hold)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(e.body(t, 0), "SHELL-out") {
		t.Error("the first request lost the command")
	}
}
