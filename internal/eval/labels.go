package eval

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
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
	// Set names the labelled set the run belongs to: the labels file's
	// name, or its folder's when the file is called labels.tsv.
	Set string `json:"set"`
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
	if err := regular(path); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseLabels(f, path)
}

// SetName is the name of the labelled set a labels file holds: its base
// name without the extension, or its folder's name when that is
// "labels" (testdata/devset/labels.tsv is the set "devset").
func SetName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if base == "labels" {
		if dir := filepath.Base(filepath.Dir(path)); dir != "." && dir != string(filepath.Separator) {
			return dir
		}
	}
	return base
}

// columns maps the header of a labels file to the columns a label needs.
// Two headers are read: vigil's own (file, label, onset, note) and the
// shared corpus's (local_file, …, label, evidence), whose onset is
// written in the evidence as "onset N".
type columns struct {
	file, label, onset, note int
}

var onsetInEvidence = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\bonset (\d+)\b`) })

func parseHeader(cols []string) (columns, bool) {
	if len(cols) >= 3 && cols[0] == "file" && cols[1] == "label" && cols[2] == "onset" {
		return columns{file: 0, label: 1, onset: 2, note: 3}, true
	}
	c := columns{file: -1, label: -1, onset: -1, note: -1}
	for i, name := range cols {
		switch name {
		case "local_file":
			c.file = i
		case "label":
			c.label = i
		case "evidence":
			c.note = i
		}
	}
	return c, c.file >= 0 && c.label >= 0 && c.note >= 0
}

// ParseLabels reads labels from r; name is the labels file's path, which
// transcript paths are resolved against and errors name.
func ParseLabels(r io.Reader, name string) ([]Label, error) {
	base := filepath.Dir(name)
	set := SetName(name)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []Label
	var cols columns
	header := false
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(strings.TrimSpace(text), "#") {
			continue
		}
		fields := strings.Split(text, "\t")
		if !header {
			var ok bool
			if cols, ok = parseHeader(fields); !ok {
				return nil, fmt.Errorf("%s:%d: want the header line \"file\\tlabel\\tonset\\tnote\" (or the shared corpus's, with local_file, label and evidence)", name, line)
			}
			header = true
			continue
		}
		l, err := cols.parse(fields, name, line)
		if err != nil {
			return nil, err
		}
		l.Set = set
		l.Path = l.File
		if !filepath.IsAbs(l.Path) {
			l.Path = filepath.Join(base, filepath.FromSlash(l.File))
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

// label reads one line's fields.
func (c columns) parse(fields []string, name string, line int) (Label, error) {
	get := func(i int) string {
		if i < 0 || i >= len(fields) {
			return ""
		}
		return fields[i]
	}
	if len(fields) <= max(c.file, c.label) {
		return Label{}, fmt.Errorf("%s:%d: want file, label, onset and note separated by tabs", name, line)
	}
	l := Label{File: get(c.file), Class: Class(get(c.label)), Line: line}
	onset := strings.TrimSpace(get(c.onset))
	if c.onset >= 0 {
		if c.note < len(fields) {
			l.Note = strings.Join(fields[c.note:], "\t")
		}
	} else {
		l.Note = get(c.note)
		if l.Class == Offcourse {
			if m := onsetInEvidence().FindStringSubmatch(l.Note); m != nil {
				onset = m[1]
			}
		}
	}
	switch l.Class {
	case Offcourse:
		n, err := strconv.Atoi(onset)
		if err != nil || n < 1 {
			return Label{}, fmt.Errorf("%s:%d: an offcourse run needs its onset step (a number from 1), got %q", name, line, onset)
		}
		l.Onset = n
	case Clean, Uncertain:
		if onset != "" {
			return Label{}, fmt.Errorf("%s:%d: only offcourse runs have an onset", name, line)
		}
	default:
		return Label{}, fmt.Errorf("%s:%d: unknown label %q (want offcourse, clean or uncertain)", name, line, l.Class)
	}
	return l, nil
}

// regular returns an error unless path is a regular file (after
// symlinks): opening a FIFO would block until a writer came, and a device
// may never end.
func regular(path string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !info.Mode().IsRegular() {
		return fmt.Errorf("%s: not a regular file (%s)", path, info.Mode().Type())
	}
	return nil
}
