//go:build !unix

package session

import "os"

// locksSupported says whether sessions take a writer lock on this system.
const locksSupported = false

// flock is not implemented here: sessions open without a lock.
func flock(*os.File) error { return errNoLocks }
