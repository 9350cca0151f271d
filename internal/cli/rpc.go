package cli

import (
	"context"

	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/rpc"
)

// serveRPC runs the RPC protocol (docs/rpc.md) on a over the command's
// streams; while the server runs a turn, the slash commands that change
// the session refuse.
func serveRPC(e *env, a *app) error {
	srv := rpc.NewServer(a, e.stdin, e.stdout)
	a.busy = srv.Running
	return srv.Serve(e.ctx)
}

// The app is the RPC server's [rpc.App]: each operation goes to the
// agent current at the time (Compact and Session are in commands.go).
var _ rpc.App = (*app)(nil)

// Prompt runs a turn of the current agent on message.
func (a *app) Prompt(ctx context.Context, message string) error {
	return a.agent().Prompt(ctx, message)
}

// Resume resumes the current agent's stopped run with message.
func (a *app) Resume(ctx context.Context, message string) error {
	return a.agent().Resume(ctx, message)
}

// Steer queues message for the current agent's next step boundary.
func (a *app) Steer(message string, interrupt bool) {
	a.agent().Steer(message, interrupt)
}

// FollowUp queues message for the end of the current agent's turn.
func (a *app) FollowUp(message string) {
	a.agent().FollowUp(message)
}

// Shell runs a command the user typed (the UI's !command) with the
// current agent's bash tool, and records it in the session.
func (a *app) Shell(ctx context.Context, command string) error {
	_, err := a.agent().Shell(ctx, command)
	return err
}

// Abort stops the current agent's turn.
func (a *app) Abort() {
	a.agent().Abort()
}

// State is the current agent's state.
func (a *app) State() agent.State {
	return a.agent().State()
}
