package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/vigil-dev/vigil/internal/regularfile"
)

// ErrFileChanged is what a follower's error wraps when the file it follows
// stopped being the file it read so far: it shrank, was removed, or
// another file took its name. Following cannot go on: what was read no
// longer describes the file. When the file was removed the error also
// wraps [fs.ErrNotExist].
var ErrFileChanged = errors.New("the file changed under the follower")

// removed says how a file changed when it is gone; it is an
// [fs.ErrNotExist].
type removed struct{}

func (removed) Error() string        { return "it was removed" }
func (removed) Is(target error) bool { return target == fs.ErrNotExist }

// errNotRegular is what a follower's error wraps when the path names
// something that is not a regular file: a named pipe, a device, a socket,
// a folder, or a loop of symbolic links. Every later call returns it.
var errNotRegular = errors.New("not a regular file")

// followFile is the file a follower reads. Each poll opens it anew and
// checks that it is still the file read so far, so a follower holds no
// descriptor between polls and needs no Close.
type followFile struct {
	path string
	// seen is the file as last opened; nil until it first existed.
	seen os.FileInfo
}

// open opens the file for a poll that goes on reading at pos. It returns
// a nil file and no error when the file does not exist and never did (the
// agent has not written it yet). The error wraps ErrFileChanged when the
// file is not the one read so far or is shorter than pos.
//
// It opens only a regular file (or a symbolic link to one), with
// [regularfile.Open]: a named pipe at the path costs one stat, never an
// open that waits for a writer, and a device is never read at all.
func (ff *followFile) open(pos int64) (*os.File, int64, error) {
	file, info, err := regularfile.Open(ff.path)
	if err != nil {
		return nil, 0, ff.openError(err)
	}
	switch {
	case ff.seen != nil && !os.SameFile(ff.seen, info):
		err = ff.changed("another file took its name")
	case info.Size() < pos:
		err = ff.changed(fmt.Sprintf("it shrank to %d bytes, %d were read", info.Size(), pos))
	}
	if err != nil {
		file.Close()
		return nil, 0, err
	}
	ff.seen = info
	return file, info.Size(), nil
}

// openError is the error of a poll whose open failed with err, or nil
// when the file is not there yet: it never was, or it was removed between
// the look and the open (the next poll says so).
func (ff *followFile) openError(err error) error {
	var nr *regularfile.NotRegularError
	var pe *fs.PathError
	switch {
	case errors.As(err, &nr):
		return ff.refused(regularfile.Kind(nr.Mode))
	case errors.Is(err, fs.ErrNotExist) && (ff.seen == nil || errors.As(err, &pe) && pe.Op == "open"):
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("follow %s: %w: %w", ff.path, ErrFileChanged, removed{})
	case errors.Is(err, syscall.ELOOP):
		return ff.refused("a loop of symbolic links")
	}
	return fmt.Errorf("follow %s: %w", ff.path, err)
}

func (ff *followFile) changed(how string) error {
	return fmt.Errorf("follow %s: %w: %s", ff.path, ErrFileChanged, how)
}

// refused is the error of a path that names no regular file.
func (ff *followFile) refused(what string) error {
	return fmt.Errorf("follow %s: %w (%s)", ff.path, errNotRegular, what)
}
