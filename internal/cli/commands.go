package cli

import (
	"context"

	"github.com/vigil-dev/vigil/internal/commands"
)

// The app is the slash commands' [commands.Target]: this file maps each
// operation onto the agent, the session manager and the advisor
// (advisor.go has the advisor's).
var _ commands.Target = (*app)(nil)

// Command runs the slash command line "/name args".
func (a *app) Command(ctx context.Context, line string) (string, error) {
	return commands.New().Run(ctx, a, line)
}

// Busy reports whether a turn is running (the RPC mode runs turns in the
// background); commands that change the session refuse then.
func (a *app) Busy() bool {
	return a.busy != nil && a.busy()
}

// Compact summarises the current agent's older history now.
func (a *app) Compact(ctx context.Context, instructions string) error {
	return a.agent().Compact(ctx, instructions)
}

// NewSession switches to a new session in the working folder.
func (a *app) NewSession() (string, error) {
	sess, err := a.newSession()
	if err != nil {
		return "", err
	}
	if err := a.build(sess, a.modelRef); err != nil {
		a.release(sess)
		return "", err
	}
	return sess.ID(), nil
}

// Branch continues the current session from an earlier entry.
func (a *app) Branch(entryID string) error {
	return a.agent().BranchFrom(entryID)
}

// Fork copies the current branch up to entryID ("": its leaf) into a
// new session and switches to it.
func (a *app) Fork(entryID string) (string, string, error) {
	src := a.session()
	if entryID == "" {
		entryID = src.Leaf()
	}
	sess, err := a.manager.Fork(src, entryID)
	if err != nil {
		return "", "", err
	}
	if err := a.build(sess, a.modelRef); err != nil {
		sess.Close()
		return "", "", err
	}
	return sess.ID(), sess.File(), nil
}

// Model is the reference of the agent's model.
func (a *app) Model() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.model.Ref().String()
}

// SetModel rebuilds the agent on the model ref, keeping the session.
func (a *app) SetModel(ref string) error {
	if err := a.build(a.session(), ref); err != nil {
		return err
	}
	a.modelRef = ref
	return nil
}

// Session is the current session's id and file.
func (a *app) Session() (string, string) {
	s := a.session()
	return s.ID(), s.File()
}
