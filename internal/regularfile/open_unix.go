//go:build unix

package regularfile

import (
	"os"
	"syscall"
)

// openFlags open a file without waiting and without taking a terminal:
// open(2) of a named pipe waits for a writer, and of a terminal may make
// it the process's controlling one. The look before the open refuses
// both; these flags close the gap in which another file takes the name.
// Reads of a regular file do not heed O_NONBLOCK.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

func openNoBlock(path string) (*os.File, error) { return os.OpenFile(path, openFlags, 0) }
