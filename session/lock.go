package session

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// ErrLocked is wrapped by a [*LockedError]: the session file is open for
// writing elsewhere.
var ErrLocked = errors.New("session is open for writing elsewhere")

// LockedError is returned by [Open] with [Options.Lock] when another
// writer holds the session's lock: another process, or another open
// [*Session] in this one. The holder fields come from the lock file and
// are zero when it could not be read (a holder that has only just taken
// the lock).
type LockedError struct {
	Path  string    // the session file
	Lock  string    // the lock file beside it
	PID   int       // the holder's process id
	Host  string    // the host the holder runs on
	Since time.Time // when the holder took the lock
}

// Error says which process holds the session since when.
func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = fmt.Sprintf("process %d", e.PID)
		if e.Host != "" {
			who += " on " + e.Host
		}
		if !e.Since.IsZero() {
			who += " since " + e.Since.Local().Format(time.DateTime)
		}
	}
	return fmt.Sprintf("session %s is open for writing in %s: a second writer would interleave its entries with that one's", e.Path, who)
}

// Unwrap returns [ErrLocked].
func (e *LockedError) Unwrap() error { return ErrLocked }

// LockFile returns the lock file of the session file at path: a hidden
// file beside it, .NAME.jsonl.lock, so that nothing listing sessions or
// walking folders for transcripts takes it for one.
func LockFile(path string) string {
	return filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".lock")
}

// lockRecord is what a lock file holds: who took the lock, for the
// message of the next process that wants it.
type lockRecord struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host,omitempty"`
	Since time.Time `json:"since"`
}

// fileLock is a session's writer lock: an flock(2) on its lock file, held
// for as long as the file is open. The kernel drops it when the process
// ends, however it ends, so the lock file of a process that crashed is
// stale and taken over by the next writer.
type fileLock struct {
	f    *os.File
	path string
}

// errNoLocks is returned by flock when the file system cannot lock: the
// session is then opened without a lock, as before there was one.
var errNoLocks = errors.New("file locks not supported")

// errHeld is returned by flock when another open file holds the lock.
var errHeld = errors.New("lock held")

// lockSession takes the writer lock of the session file at path. It
// returns a nil lock, and no error, where the file system has no locks.
func lockSession(path string) (*fileLock, error) {
	if !locksSupported {
		return nil, nil
	}
	lp := LockFile(path)
	// A holder removes its lock file when it closes. Whoever opened the
	// file just before that locks a file that is no longer under the name
	// and must try again; that takes as many rounds as there are writers
	// closing in between, which is never more than a few.
	for range 100 {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		switch err := flock(f); {
		case errors.Is(err, errNoLocks):
			// No one can hold a lock here: the file is of no use.
			f.Close()
			os.Remove(lp)
			return nil, nil
		case errors.Is(err, errHeld):
			f.Close()
			return nil, lockedError(path, lp)
		case err != nil:
			f.Close()
			return nil, fmt.Errorf("lock %s: %w", lp, err)
		}
		l := &fileLock{f: f, path: lp}
		if !l.current() {
			f.Close()
			continue
		}
		if err := l.record(); err != nil {
			l.release()
			return nil, fmt.Errorf("lock %s: %w", lp, err)
		}
		return l, nil
	}
	return nil, fmt.Errorf("lock %s: the lock file keeps being replaced", lp)
}

// current reports whether the locked file is still the one under the
// lock file's name.
func (l *fileLock) current() bool {
	held, err := l.f.Stat()
	if err != nil {
		return false
	}
	named, err := os.Stat(l.path)
	return err == nil && os.SameFile(held, named)
}

// record writes who holds the lock into the lock file, replacing what a
// stale holder left.
func (l *fileLock) record() error {
	host, _ := os.Hostname()
	data, err := json.Marshal(lockRecord{PID: os.Getpid(), Host: host, Since: time.Now().UTC().Truncate(time.Second)})
	if err != nil {
		return err
	}
	if err := l.f.Truncate(0); err != nil {
		return err
	}
	_, err = l.f.WriteAt(append(data, '\n'), 0)
	return err
}

// release removes the lock file, if it is still this lock's, and drops
// the lock. The file goes first, while the lock is held, so no other
// writer can be holding the name's lock when it goes. A nil lock is
// released.
func (l *fileLock) release() error {
	if l == nil || l.f == nil {
		return nil
	}
	var errRemove error
	if l.current() {
		if err := os.Remove(l.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errRemove = err
		}
	}
	errClose := l.f.Close()
	l.f = nil
	if err := errors.Join(errRemove, errClose); err != nil {
		return fmt.Errorf("release lock %s: %w", l.path, err)
	}
	return nil
}

// lockedError describes the holder of the lock file lp of session path.
func lockedError(path, lp string) *LockedError {
	e := &LockedError{Path: path, Lock: lp}
	if data, err := os.ReadFile(lp); err == nil {
		var r lockRecord
		if json.Unmarshal(data, &r) == nil {
			e.PID, e.Host, e.Since = r.PID, r.Host, r.Since
		}
	}
	return e
}
