package agent

import (
	"fmt"
	"slices"

	"github.com/vigil-dev/vigil/session"
)

// appendBody writes one entry at the session's leaf and brings the view up
// to date. The caller holds the busy token.
func (a *Agent) appendBody(b session.Body) (session.Entry, error) {
	e, err := a.sess.Append(b)
	if err != nil && e.ID == "" {
		return session.Entry{}, err
	}
	// An entry appended but not synced is still in the session: follow it.
	if _, isCompaction := b.(*session.Compaction); !isCompaction && e.ParentID == a.view.leaf {
		a.view.add(e)
		a.publishTokens()
	} else if serr := a.syncView(); serr != nil && err == nil {
		err = serr
	}
	return e, err
}

// syncView makes the view match the session's leaf, which someone else
// may have moved (session.BranchFrom, or an append that did not go through
// the agent). Entries appended after the view's leaf are added; anything
// else rebuilds the view and emits history_rewritten. The caller holds the
// busy token.
func (a *Agent) syncView() error {
	leaf := a.sess.Leaf()
	if leaf == a.view.leaf {
		return nil
	}
	var added []session.Entry
	reason := RewriteBranch
	for cur := leaf; cur != ""; {
		e, ok := a.sess.Get(cur)
		if !ok {
			break
		}
		if _, ok := e.Body.(*session.Compaction); ok {
			reason = RewriteCompaction
		}
		added = append(added, e)
		if e.ParentID == a.view.leaf && reason != RewriteCompaction {
			slices.Reverse(added)
			for _, e := range added {
				a.view.add(e)
			}
			a.publishTokens()
			return nil
		}
		cur = e.ParentID
	}
	return a.rewrite(reason)
}

// rewrite rebuilds the view and tells subscribers that history changed.
func (a *Agent) rewrite(reason string) error {
	if err := a.view.rebuild(a.sess, a.fixedTokens); err != nil {
		return err
	}
	a.publishTokens()
	a.emit(a.event(Event{Type: EventHistoryRewritten, Reason: reason}))
	return nil
}

// publishTokens copies the view's context size where State reads it.
func (a *Agent) publishTokens() {
	n := a.view.tokens()
	a.mu.Lock()
	a.contextTokens = n
	a.mu.Unlock()
}

// BranchFrom moves the session's leaf back to the entry id, so the next
// prompt continues from there on a new branch, and emits
// history_rewritten{reason: branch}. It needs the agent idle ([ErrBusy]).
func (a *Agent) BranchFrom(id string) error {
	if err := a.acquire(); err != nil {
		return err
	}
	defer a.release()
	if err := a.sess.BranchFrom(id); err != nil {
		return fmt.Errorf("agent: branch: %w", err)
	}
	if err := a.rewrite(RewriteBranch); err != nil {
		return fmt.Errorf("agent: branch: %w", err)
	}
	return nil
}

// SwitchSession makes the agent continue in another session: a fork of the
// current one (reason RewriteFork) or a different one the user resumed
// (RewriteSwitch). It emits history_rewritten with that reason. The agent
// does not close the old session. It needs the agent idle ([ErrBusy]).
func (a *Agent) SwitchSession(s *session.Session, reason string) error {
	if s == nil || (reason != RewriteFork && reason != RewriteSwitch) {
		return fmt.Errorf("agent: switch session: want a session and reason %q or %q", RewriteFork, RewriteSwitch)
	}
	if err := a.acquire(); err != nil {
		return err
	}
	defer a.release()
	a.mu.Lock()
	old := a.sess
	a.sess = s
	a.mu.Unlock()
	if err := a.rewrite(reason); err != nil {
		a.mu.Lock()
		a.sess = old
		a.mu.Unlock()
		return fmt.Errorf("agent: switch session: %w", err)
	}
	return nil
}

// event fills in the turn and step an event belongs to. The caller holds
// the busy token: only its holder writes turn and step (under mu, for
// State), so it may read them without the lock.
func (a *Agent) event(ev Event) Event {
	ev.Turn, ev.Step = a.turn, a.step
	return ev
}
