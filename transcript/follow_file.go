package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
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

// followOpenFlags open without blocking and without taking a terminal:
// open(2) of a named pipe waits for a writer, and of a terminal may make
// it the process's controlling one. The stat before the open refuses both;
// these flags close the gap in which another file could take the name.
const followOpenFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// open opens the file for a poll that goes on reading at pos. It returns
// a nil file and no error when the file does not exist and never did (the
// agent has not written it yet). The error wraps ErrFileChanged when the
// file is not the one read so far or is shorter than pos.
//
// It looks before it opens: only a regular file (or a symbolic link to
// one) is opened, so a named pipe at the path costs one stat, never an
// open that waits for a writer, and a device is never read at all.
func (ff *followFile) open(pos int64) (*os.File, int64, error) {
	info, err := os.Stat(ff.path)
	if errors.Is(err, fs.ErrNotExist) {
		if ff.seen == nil {
			return nil, 0, nil
		}
		return nil, 0, fmt.Errorf("follow %s: %w: %w", ff.path, ErrFileChanged, removed{})
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, 0, ff.refused("a loop of symbolic links")
	}
	if err != nil {
		return nil, 0, fmt.Errorf("follow %s: %w", ff.path, err)
	}
	if !info.Mode().IsRegular() {
		return nil, 0, ff.refused(kindOf(info.Mode()))
	}
	file, err := os.OpenFile(ff.path, followOpenFlags, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil // removed since the stat: the next poll says so
	}
	if err != nil {
		return nil, 0, fmt.Errorf("follow %s: %w", ff.path, err)
	}
	info, err = file.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("follow %s: %w", ff.path, err)
	case !info.Mode().IsRegular():
		err = ff.refused(kindOf(info.Mode()))
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

func (ff *followFile) changed(how string) error {
	return fmt.Errorf("follow %s: %w: %s", ff.path, ErrFileChanged, how)
}

// refused is the error of a path that names no regular file.
func (ff *followFile) refused(what string) error {
	return fmt.Errorf("follow %s: %w (%s)", ff.path, errNotRegular, what)
}

// kindOf names the kind of file mode m is, for a refusal.
func kindOf(m fs.FileMode) string {
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
	}
	return "an irregular file"
}
