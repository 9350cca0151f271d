//go:build unix

package hostiletest

import (
	"syscall"
	"testing"
)

// FIFO makes a named pipe with no writer: an open that waits for one never
// ends.
func FIFO(t *testing.T, path string) {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
}
