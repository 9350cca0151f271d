package eval

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Class is a run's label.
type Class string

// The labels a run can have.
const (
	Offcourse Class = "offcourse"
	Clean     Class = "clean"
	Uncertain Class = "uncertain"
)

// Label is one line of a labels file.
type Label struct {
	// File is the transcript's path as the labels file writes it; Path is
	// where it is on disk.
	File string `json:"file"`
	Path string `json:"-"`
	// Class is the label.
	Class Class `json:"label"`
	// Onset is the step where the episode starts, for offcourse runs; 0
	// otherwise.
	Onset int `json:"onset,omitempty"`
	// Note is the labeller's note.
	Note string `json:"note,omitempty"`
	// Line is the line of the labels file, from 1.
	Line int `json:"-"`
}

// ReadLabels reads a labels file; transcript paths are resolved against
// its folder.
func ReadLabels(path string) ([]Label, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLabels(f, path)
}

// ParseLabels reads labels from r; name is the labels file's path, which
// transcript paths are resolved against and errors name.
func ParseLabels(r io.Reader, name string) ([]Label, error) {
	base := filepath.Dir(name)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Label
	header := false
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		cols := strings.Split(text, "\t")
		if !header {
			if len(cols) < 3 || cols[0] != "file" || cols[1] != "label" || cols[2] != "onset" {
				return nil, fmt.Errorf("%s:%d: want the header line \"file\\tlabel\\tonset\\tnote\"", name, line)
			}
			header = true
			continue
		}
		if len(cols) < 2 {
			return nil, fmt.Errorf("%s:%d: want file, label, onset and note separated by tabs", name, line)
		}
		for len(cols) < 4 {
			cols = append(cols, "")
		}
		l := Label{File: cols[0], Class: Class(cols[1]), Note: strings.Join(cols[3:], "\t"), Line: line}
		l.Path = l.File
		if !filepath.IsAbs(l.Path) {
			l.Path = filepath.Join(base, filepath.FromSlash(l.File))
		}
		switch l.Class {
		case Offcourse:
			n, err := strconv.Atoi(strings.TrimSpace(cols[2]))
			if err != nil || n < 1 {
				return nil, fmt.Errorf("%s:%d: an offcourse run needs its onset step (a number from 1), got %q", name, line, cols[2])
			}
			l.Onset = n
		case Clean, Uncertain:
			if strings.TrimSpace(cols[2]) != "" {
				return nil, fmt.Errorf("%s:%d: only offcourse runs have an onset", name, line)
			}
		default:
			return nil, fmt.Errorf("%s:%d: unknown label %q (want offcourse, clean or uncertain)", name, line, cols[1])
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if !header {
		return nil, fmt.Errorf("%s: no header line", name)
	}
	return out, nil
}
