package review

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Input is one file to review.
type Input struct {
	// Path is the file's path.
	Path string
	// Walked is set when the file was found in a folder rather than named
	// on the command line: such a file is skipped, not failed, when it
	// turns out not to be a transcript.
	Walked bool
}

// Inputs expands paths into the files to review: a file stands for
// itself, a folder for every regular file under it, in lexical order,
// leaving out hidden files and folders (names starting with "."). Whether
// a walked file is a transcript is decided when it is read. A path that
// does not exist is an error.
func Inputs(paths []string) ([]Input, error) {
	var out []Input
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("review: %w", err)
		}
		if !fi.IsDir() {
			out = append(out, Input{Path: p})
			continue
		}
		var found []string
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("review: %w", err)
			}
			if path != p && strings.HasPrefix(d.Name(), ".") {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.Type().IsRegular() {
				found = append(found, path)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(found)
		for _, f := range found {
			out = append(out, Input{Path: f, Walked: true})
		}
	}
	return out, nil
}
