package review

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/vigil-dev/vigil/transcript"
)

// Input is one file to review, or a path that could not be.
type Input struct {
	// Path is the file's path.
	Path string
	// Walked is set when the file was found in a folder rather than named
	// on the command line: such a file is skipped, not failed, when it
	// turns out not to be a transcript.
	Walked bool
	// Err, when set, is why Path cannot be reviewed, found while listing
	// the inputs: a named path that does not exist, a folder that cannot
	// be listed, something in a folder that is no regular file. The other
	// inputs are listed all the same.
	Err error
}

// Inputs expands paths into the files to review: a file stands for
// itself, a folder for every regular file under it, and every symbolic
// link to one, in lexical order, leaving out hidden files and folders
// (names starting with "."). Symbolic links to folders are not followed.
// Whether a walked file is a transcript is decided when it is read.
//
// Inputs never gives up on one path for another's sake: a path that does
// not exist, a folder that cannot be listed, or a file in a folder that
// is no regular file becomes an Input with its Err, in its place.
func Inputs(paths []string) []Input { return inputsIn(osFS{}, paths) }

// fileSystem is what Inputs asks of the file system; tests put one in
// whose folders cannot be listed, which a test run as root cannot make.
type fileSystem interface {
	Stat(path string) (fs.FileInfo, error)
	ReadDir(path string) ([]fs.DirEntry, error)
}

type osFS struct{}

func (osFS) Stat(path string) (fs.FileInfo, error)      { return os.Stat(path) }
func (osFS) ReadDir(path string) ([]fs.DirEntry, error) { return os.ReadDir(path) }

func inputsIn(fsys fileSystem, paths []string) []Input {
	var out []Input
	for _, p := range paths {
		fi, err := fsys.Stat(p)
		switch {
		case err != nil:
			out = append(out, Input{Path: p, Err: statError(p, err)})
		case fi.IsDir():
			var found []Input
			walk(fsys, p, &found)
			sort.Slice(found, func(i, j int) bool { return found[i].Path < found[j].Path })
			out = append(out, found...)
		default:
			out = append(out, Input{Path: p})
		}
	}
	return out
}

// walk adds what folder dir holds to found, recursively.
func walk(fsys fileSystem, dir string, found *[]Input) {
	entries, err := fsys.ReadDir(dir)
	if err != nil {
		*found = append(*found, Input{Path: dir, Walked: true, Err: listError(dir, err)})
		// ReadDir returns what it read before the error; go on with it.
	}
	for _, d := range entries {
		if strings.HasPrefix(d.Name(), ".") {
			continue
		}
		path := filepath.Join(dir, d.Name())
		switch t := d.Type(); {
		case t.IsDir():
			walk(fsys, path, found)
		case t.IsRegular():
			*found = append(*found, Input{Path: path, Walked: true})
		case t&fs.ModeSymlink != 0:
			*found = append(*found, linked(fsys, path))
		default:
			*found = append(*found, Input{Path: path, Walked: true, Err: notRegular(path, t)})
		}
	}
}

// linked is the input for a symbolic link found in a folder: the file it
// leads to when that is a regular one. A link to a folder is not
// followed, which keeps a walk from going round a loop.
func linked(fsys fileSystem, path string) Input {
	in := Input{Path: path, Walked: true}
	fi, err := fsys.Stat(path)
	switch {
	case err != nil:
		in.Err = statError(path, err)
	case fi.IsDir():
		in.Err = fmt.Errorf("read %s: %w (a symbolic link to a folder, not followed)", path, ErrNotRegular)
	case !fi.Mode().IsRegular():
		in.Err = notRegular(path, fi.Mode())
	}
	return in
}

// listError is the error for a folder that cannot be listed.
func listError(dir string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("list %s: %w", dir, err)
}

// NotTranscript reports whether err, from [Inputs] or [File], says that
// the file is not an agent's transcript at all (another format, an
// advisor's transcript, no regular file), as opposed to one that could
// not be read. In a folder, which may hold anything, such a file is
// skipped; one that could not be read is a failure.
func NotTranscript(err error) bool {
	return errors.Is(err, transcript.ErrUnknownFormat) || errors.Is(err, ErrAdvisorTranscript) || errors.Is(err, ErrNotRegular)
}
