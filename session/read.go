package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
)

// Read reads a whole session file from r; name stands for the file in
// errors.
//
// A file that ends in a partial line returns every entry before it with a
// [*TruncatedError]. A line that cannot be read anywhere else returns the
// entries before it with a [*LineError] naming the line. Either way the
// header and entries returned are valid: every parent id names an earlier
// entry and no id repeats. Entries of unknown types are kept as [*Unknown].
func Read(r io.Reader, name string) (Header, []Entry, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Header{}, nil, fmt.Errorf("read session %s: %w", name, err)
	}
	p, err := parse(data, name)
	return p.header, p.entries, err
}

// ReadFile reads the session file at path, as [Read] does. It does not
// change the file: a partial last line is reported, not cut off.
func ReadFile(path string) (Header, []Entry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Header{}, nil, fmt.Errorf("read session %s: %w", path, err)
	}
	p, err := parse(data, path)
	return p.header, p.entries, err
}

// span is where an entry's line lies in its file, newline excluded. line
// is its line number, known for lines read at open and 0 for appended ones.
type span struct {
	off  int64
	n    int
	line int
}

// parsed is a file read as far as it is valid.
type parsed struct {
	header  Header
	entries []Entry
	spans   []span
	index   map[string]int // entry id → position in entries
	leaf    string         // the last tree entry in file order
	// good is the offset just past the last line read, newline included;
	// a file cut to good holds exactly what was read.
	good int64
	// needNewline is set when the last line read had no newline: a
	// writer must add one before appending.
	needNewline bool
	torn        *TruncatedError
}

// parse reads a file's bytes. It always returns a non-nil *parsed holding
// what was read; the error is a *LineError or a *TruncatedError.
func parse(data []byte, name string) (*parsed, error) {
	p := &parsed{index: make(map[string]int)}
	line := 0
	for off := 0; off < len(data); {
		line++
		seg, next := data[off:], len(data)
		terminated := false
		if i := bytes.IndexByte(seg, '\n'); i >= 0 {
			seg, next, terminated = seg[:i], off+i+1, true
		}
		if len(bytes.TrimSpace(seg)) == 0 {
			if line == 1 {
				return p, &LineError{File: name, Line: 1, Err: errors.New("blank first line: want the session header")}
			}
			if terminated {
				p.good = int64(next)
			}
			off = next
			continue
		}
		var err error
		if line == 1 {
			p.header, err = decodeHeader(seg)
		} else {
			var e Entry
			if e, err = decodeEntry(seg); err == nil {
				err = p.add(e, span{off: int64(off), n: len(seg), line: line})
			}
		}
		if err != nil {
			if !terminated && line > 1 {
				p.torn = &TruncatedError{File: name, Line: line, Offset: int64(off), Size: len(seg)}
				return p, p.torn
			}
			return p, &LineError{File: name, Line: line, Err: err}
		}
		p.good, p.needNewline = int64(next), !terminated
		off = next
	}
	if line == 0 {
		return p, &LineError{File: name, Line: 1, Err: errors.New("empty file: want the session header")}
	}
	return p, nil
}

// add appends an entry after checking that it fits the tree.
func (p *parsed) add(e Entry, sp span) error {
	if e.ID != "" {
		if i, dup := p.index[e.ID]; dup {
			return fmt.Errorf("duplicate id %q (first on line %d)", e.ID, p.spans[i].line)
		}
		if e.ParentID != "" {
			if _, ok := p.index[e.ParentID]; !ok {
				return fmt.Errorf("entry %q: parent %q is not an earlier entry", e.ID, e.ParentID)
			}
		}
		p.index[e.ID] = len(p.entries)
		p.leaf = e.ID
	}
	p.entries = append(p.entries, e)
	p.spans = append(p.spans, sp)
	return nil
}
