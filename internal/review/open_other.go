//go:build !unix

package review

import "os"

// openFlags open a file for reading; elsewhere than on Unix a named pipe
// cannot be put in a file's place.
const openFlags = os.O_RDONLY
