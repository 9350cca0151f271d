package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/vigil-dev/vigil/internal/regularfile"
)

// ErrNotRegular is the cause of the error for a path that names no
// regular file: a named pipe (whose open would wait for a writer), a
// device (/dev/zero never ends), a socket, a folder given where a file
// was expected, or a symbolic link that leads nowhere.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading when it is a regular file, or a
// symbolic link to one, and returns it with its size; see
// [regularfile.Open].
func openRegular(path string) (*os.File, int64, error) {
	f, info, err := regularfile.Open(path)
	if err != nil {
		return nil, 0, openError(path, err)
	}
	return f, info.Size(), nil
}

// openError is the error for path from [regularfile.Open].
func openError(path string, err error) error {
	var nr *regularfile.NotRegularError
	if errors.As(err, &nr) {
		return notRegular(path, nr.Mode)
	}
	return statError(path, err)
}

// notRegular is the error for path, of mode m, which is no regular file.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("read %s: %w (%s)", path, ErrNotRegular, regularfile.Kind(m))
}

// statError is the error for path from a stat or open: its cause without
// the operation and path a *fs.PathError repeats, and a loop of
// symbolic links or a link to nothing said as such.
func statError(path string, err error) error {
	var pe *fs.PathError
	cause := err
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	switch {
	case errors.Is(err, syscall.ELOOP):
		return fmt.Errorf("read %s: %w (a loop of symbolic links)", path, ErrNotRegular)
	case errors.Is(err, fs.ErrNotExist) && isSymlink(path):
		return fmt.Errorf("read %s: %w (a symbolic link to nothing)", path, ErrNotRegular)
	}
	return fmt.Errorf("read %s: %w", path, cause)
}

func isSymlink(path string) bool {
	info, err := os.Lstat(path)
	return err == nil && info.Mode()&fs.ModeSymlink != 0
}
