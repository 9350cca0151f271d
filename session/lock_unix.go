//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// locksSupported says whether sessions take a writer lock on this system.
const locksSupported = true

// flock takes an exclusive flock(2) on f without waiting. Locks belong to
// the open file, so a second open in the same process conflicts too.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return errHeld
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOSYS):
			return errNoLocks
		}
		return err
	}
}
