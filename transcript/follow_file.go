package transcript

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// ErrFileChanged is what a follower's error wraps when the file it follows
// stopped being the file it read so far: it shrank, was removed, or
// another file took its name. Following cannot go on: what was read no
// longer describes the file.
var ErrFileChanged = errors.New("the file changed under the follower")

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
func (ff *followFile) open(pos int64) (*os.File, int64, error) {
	file, err := os.Open(ff.path)
	if errors.Is(err, fs.ErrNotExist) {
		if ff.seen == nil {
			return nil, 0, nil
		}
		return nil, 0, ff.changed("it was removed")
	}
	if err != nil {
		return nil, 0, fmt.Errorf("follow %s: %w", ff.path, err)
	}
	info, err := file.Stat()
	switch {
	case err != nil:
		err = fmt.Errorf("follow %s: %w", ff.path, err)
	case !info.Mode().IsRegular():
		err = fmt.Errorf("follow %s: not a regular file", ff.path)
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
