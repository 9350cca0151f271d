package cli

import (
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/session"
)

// openSession opens the session file at path for writing, or with fork
// copies it into a new session and opens that: reading only, so it works
// while another vigil writes the original.
func (a *app) openSession(path string, fork bool) (*session.Session, error) {
	if fork {
		return a.manager.ForkFile(path, "")
	}
	return a.manager.Open(path)
}

// continueSession opens the latest session of the working folder, or with
// fork a copy of it; session.ErrNotFound when there is none.
func (a *app) continueSession(fork bool) (*session.Session, error) {
	if !fork {
		return a.manager.Continue(a.cwd)
	}
	path, err := a.manager.Latest(a.cwd)
	if err != nil {
		return nil, err
	}
	return a.manager.ForkFile(path, "")
}

// lockedHint adds to a session held by another writer how to go on from
// it safely: in a copy, with --fork.
func lockedHint(err error, o appOptions) error {
	var locked *session.LockedError
	if !errors.As(err, &locked) {
		return err
	}
	again := "--resume " + o.resume
	if o.resume == "" {
		again = "--continue"
	}
	return fmt.Errorf("%w; wait for it to end, or go on from it in a copy now: vigil %s --fork", err, again)
}
