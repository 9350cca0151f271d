package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular is the cause of the error for a path that names no
// regular file: a named pipe (whose open would wait for a writer), a
// device (/dev/zero never ends), a socket, a folder given where a file
// was expected, or a symbolic link that leads nowhere.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens path for reading when it is a regular file, or a
// symbolic link to one, and returns it with its size. It looks before it
// opens, so a named pipe costs a stat, never an open that waits, and a
// device is never read; it checks again what it opened.
func openRegular(path string) (*os.File, int64, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, 0, statError(path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, 0, notRegular(path, info.Mode())
	}
	f, err := os.OpenFile(path, openFlags, 0)
	if err != nil {
		return nil, 0, statError(path, err)
	}
	info, err = f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = notRegular(path, info.Mode())
	}
	if err != nil {
		f.Close()
		return nil, 0, err
	}
	return f, info.Size(), nil
}

// notRegular is the error for path, of mode m, which is no regular file.
func notRegular(path string, m fs.FileMode) error {
	return fmt.Errorf("read %s: %w (%s)", path, ErrNotRegular, kind(m))
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

// kind names the type of a file that is not a regular one.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}
