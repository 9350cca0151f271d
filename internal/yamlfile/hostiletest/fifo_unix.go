//go:build unix

package hostiletest

import (
	"syscall"
	"testing"
)

func fifo(t *testing.T, path string) {
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("cannot make a named pipe: %v", err)
	}
}
