package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// errStopped is what a line function returns when the consumer of Items
// stopped; eachLine turns it into a nil error.
var errStopped = errors.New("consumer stopped")

// badLine marks an error as a problem with one line's content, not with
// the stream: eachLine notes such a line and goes on.
type badLine struct{ err error }

func (b badLine) Error() string { return b.err.Error() }
func (b badLine) Unwrap() error { return b.err }

// malformed wraps err as a problem with one line.
func malformed(err error) error { return badLine{err} }

// maxKeptBuffer is the largest line buffer kept between lines; a longer
// line's buffer is dropped after use so that one huge line does not pin
// its memory for the rest of the file.
const maxKeptBuffer = 1 << 20

// eachLine reads d.in as JSON Lines and calls fn with each line that is
// not blank, without its newline, and its number from 1. The slice is
// reused for the next line.
//
// A line longer than maxLine is noted and skipped. When fn returns an
// error made by malformed, the line is noted and skipped; when that line
// is the last, has no newline and is not even JSON, it is taken to be cut
// off by a writer that has not finished it, noted as such, and reading
// ends. errStopped from fn ends reading with no
// error; any other error is returned with the line's number.
func eachLine(d *decodeState, fn func(n int, line []byte) error) error {
	var buf []byte
	for n := 1; ; n++ {
		line, err := nextTextLine(d.in, buf[:0])
		buf = line
		if cap(buf) > maxKeptBuffer {
			buf = nil
		}
		if long, last := isLongLine(err); long {
			d.note(n, skippedLongNote)
			if last {
				return nil
			}
			continue
		}
		if err != nil && err != io.EOF {
			return fmt.Errorf("line %d: %w", n, err)
		}
		terminated := err == nil
		if len(line) > 0 && line[len(line)-1] == '\n' {
			line = line[:len(line)-1]
		}
		if end, err := handleLine(d, n, line, terminated, fn); end || !terminated {
			return err
		}
	}
}

// handleLine hands line n (its newline removed) to fn as eachLine does: a
// blank line is skipped, a malformed one noted. terminated says whether
// the line had its newline. It reports whether reading must end, with the
// error that ends it, if any.
func handleLine(d *decodeState, n int, line []byte, terminated bool, fn func(n int, line []byte) error) (end bool, err error) {
	if len(bytes.TrimSpace(line)) == 0 {
		return false, nil
	}
	ferr := fn(n, line)
	var bad badLine
	switch {
	case ferr == nil:
	case errors.Is(ferr, errStopped):
		return true, nil
	case errors.As(ferr, &bad) && !terminated && !json.Valid(line):
		d.note(n, "truncated last line")
		return true, nil
	case errors.As(ferr, &bad):
		d.note(n, "malformed line")
	default:
		return true, fmt.Errorf("line %d: %w", n, ferr)
	}
	return false, nil
}

// headLines returns up to max complete lines at the start of head, blank
// lines skipped. A last line without a newline counts as complete only
// when head is shorter than sniffSize, which means it is the whole file.
func headLines(head []byte, max int) [][]byte {
	whole := len(head) < sniffSize
	var lines [][]byte
	for len(head) > 0 && len(lines) < max {
		i := bytes.IndexByte(head, '\n')
		var line []byte
		if i < 0 {
			if !whole {
				break
			}
			line, head = head, nil
		} else {
			line, head = head[:i], head[i+1:]
		}
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
}

// peekHead returns the first bytes of d.in without consuming them, for a
// reader that gathers run information before streaming. The slice is only
// valid until the next read.
func peekHead(d *decodeState) []byte {
	head, _ := d.in.Peek(sniffSize)
	return head
}
