package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// CustomShell is the custom type of a command the user ran themselves
// (the UI's !command): Display and InContext, so that the model learns
// what was run and what it printed on the next request.
const CustomShell = "shell"

// ShellDetails are a [CustomShell] entry's details: the command, and
// what the bash tool said of its run.
type ShellDetails struct {
	Command string `json:"command"`
	ResultDetails
}

// Shell runs command with the agent's bash tool for the user, outside any
// turn and without the model, and writes it and its output to the session
// as a [CustomShell] entry, emitting custom_appended. It needs the agent
// idle ([ErrBusy] otherwise) and a bash tool. ctx ending stops the
// command; the entry says so.
func (a *Agent) Shell(ctx context.Context, command string) (session.Entry, error) {
	bash, ok := a.byName["bash"]
	if !ok {
		return session.Entry{}, errors.New("agent: shell: the agent has no bash tool")
	}
	if err := a.acquire(); err != nil {
		return session.Entry{}, err
	}
	defer a.release()
	args, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		return session.Entry{}, fmt.Errorf("agent: shell: %w", err)
	}
	res := tools.Invoke(ctx, []tools.Tool{bash}, tools.Call{Name: "bash", Arguments: args})
	d := ShellDetails{Command: command, ResultDetails: ResultDetails{Details: res.Details}}
	if ctx.Err() != nil {
		d.Interrupted, d.Reason = true, InterruptUser
	}
	raw, err := json.Marshal(d)
	if err != nil {
		return session.Entry{}, fmt.Errorf("agent: shell: %w", err)
	}
	text := "The user ran a command in the terminal:\n$ " + command + "\n" + res.Text()
	e, err := a.appendBody(&session.Custom{CustomType: CustomShell, Display: true, InContext: true, Content: []llm.Block{llm.Text(text)}, Details: raw})
	if e.ID == "" {
		return e, fmt.Errorf("agent: shell: %w", err)
	}
	a.emit(a.event(Event{Type: EventCustomAppended, Entry: &e}))
	return e, err
}
