//go:build unix

package contextfiles

import (
	"os"
	"syscall"
)

// openNoBlock opens path for reading without waiting for a writer when it
// is a named pipe. Reads of a regular file do not heed the flag.
func openNoBlock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}
