package sidecar

// When the transcript cannot be read. A sidecar polls four times a
// second and at every hook, so a condition that lasts (a path that is no
// regular file, a file that cannot be opened, a format it cannot follow)
// is logged once, and again only when it changes or ends; the first hook
// answered after it is told, so hook.log says it once too. A file that
// changed under the follower (replaced, truncated) is followed anew from
// its start, with the advisor reset. A removed transcript is waited for,
// GoneWait at most; then the sidecar stops, since nothing is left to
// watch (a later hook of the session starts a new sidecar, which
// follows the file if the agent writes it again).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/vigil-dev/vigil/transcript"
)

// checkPseudo refuses a transcript on one of the kernel's file systems
// (/proc, /sys: [pseudoFile]), which no agent writes a transcript to,
// once it exists: the refusal is logged once and kept, and nothing is
// read from the path. The caller holds mu.
func (s *Sidecar) checkPseudo() error {
	if s.pseudo != nil || s.pseudoChecked {
		return s.pseudo
	}
	name, err := pseudoFile(s.path)
	if err != nil || name == "" {
		// A path that does not exist yet is looked at again; one on
		// another file system, or that statfs refuses, goes to the
		// follower, which says what is wrong with it.
		s.pseudoChecked = err == nil && s.pathExists()
		return nil
	}
	s.pseudo = fmt.Errorf("follow %s: the file is on %s, the kernel's view of the system, not an agent's transcript: not followed", s.path, name)
	s.stats.LastError = LogText(s.pseudo.Error())
	s.report(s.pseudo.Error())
	return s.pseudo
}

// pathExists reports whether something is at the transcript's path.
func (s *Sidecar) pathExists() bool {
	_, err := os.Lstat(s.path)
	return err == nil
}

// DefaultGoneWait is how long a sidecar waits for its removed transcript
// to come back before it stops.
const DefaultGoneWait = 10 * time.Second

// fail takes an error of the follower's, which names the file. The
// caller holds mu.
func (s *Sidecar) fail(err error) error {
	s.stats.LastError = LogText(err.Error())
	if errors.Is(err, transcript.ErrFileChanged) {
		s.restart(err)
		return err
	}
	s.report(err.Error())
	return err
}

// report logs a condition of the transcript unless it is the one logged
// last, and keeps it for the next hook's answer. The caller holds mu.
func (s *Sidecar) report(msg string) {
	if msg == s.problem {
		return
	}
	s.problem, s.untold = msg, msg
	s.o.Logf("%s", msg)
}

// restart starts a new follower on the same path after the file changed
// under the old one; the advisor is reset when it reads the new file's
// first entries. The caller holds mu.
func (s *Sidecar) restart(err error) {
	again := s.restarted // the last follower started anew read nothing
	s.follower = s.o.Follow(s.path)
	s.restarted = true
	if !errors.Is(err, fs.ErrNotExist) {
		msg := fmt.Sprintf("%v: following the file there from its start", err)
		if again {
			// A file that changes at every poll and never reads as a
			// transcript: a condition that lasts, said once.
			s.report(msg)
			return
		}
		s.problem = ""
		s.o.Logf("%s", msg)
		return
	}
	s.problem = ""
	if s.gone.IsZero() {
		s.gone = time.Now()
		s.o.Logf("%v: waiting %v for the agent to write it again, then stopping", err, s.o.GoneWait)
	}
}

// readOK notes a sync that went well: it ends a condition logged
// before, and stops the sidecar when its removed transcript stayed away
// GoneWait. The caller holds mu.
func (s *Sidecar) readOK() {
	if s.problem != "" {
		s.o.Logf("follow %s: reading again", s.path)
		s.problem, s.untold = "", ""
	}
	if !s.gone.IsZero() && time.Since(s.gone) >= s.o.GoneWait {
		s.o.Logf("follow %s: still gone %v after it was removed: stopping; a later hook of the session starts a sidecar again", s.path, s.o.GoneWait)
		s.end(fmt.Sprintf("transcript %s removed", s.path))
	}
}

// readsAnew reports whether the entries just read are the first of a
// follower started anew, so the advisor must be reset before them. The
// caller holds mu.
func (s *Sidecar) readsAnew() bool {
	if !s.restarted {
		return false
	}
	s.restarted = false
	if !s.gone.IsZero() {
		s.o.Logf("follow %s: the agent writes it again: following it from its start", s.path)
		s.gone = time.Time{}
	}
	return true
}

// transcriptGone reports whether the transcript was removed and has not
// come back: a hook has nothing to wait for in it. The caller holds mu.
func (s *Sidecar) transcriptGone() bool { return !s.gone.IsZero() }

// takeUntold returns the transcript condition no hook was told of yet,
// once.
func (s *Sidecar) takeUntold() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	msg := s.untold
	s.untold = ""
	return msg
}
