package transcript

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// maxLine is the longest line a reader holds. A longer one is read past
// without being kept and noted as skipped, so that one line (a 200 MB
// paste, a file of NUL bytes) cannot take memory without bound. The
// follower holds lines to the same length.
const maxLine = 64 << 20

// longLine is nextTextLine's error for a line longer than maxLine, which
// it has read past: to its newline, or to the end of the file when last
// is set.
type longLine struct{ last bool }

func (longLine) Error() string { return fmt.Sprintf("line longer than %d MiB", maxLine>>20) }

// skippedLongNote is the note for a line longer than maxLine.
var skippedLongNote = fmt.Sprintf("line longer than %d MiB: skipped", maxLine>>20)

// nextTextLine appends the next line of in, newline included, to buf. At
// the end of the file it returns io.EOF with what is left, which is the
// last line without its newline, or nothing. A line longer than maxLine
// is read past and reported as a longLine error, with a nil buffer (the
// grown one is let go).
func nextTextLine(in *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		chunk, err := in.ReadSlice('\n')
		if len(buf)+len(chunk) > maxLine {
			for err == bufio.ErrBufferFull {
				_, err = in.ReadSlice('\n')
			}
			if err != nil && err != io.EOF {
				return nil, err
			}
			return nil, longLine{last: err != nil}
		}
		if need := len(buf) + len(chunk); need > cap(buf) {
			// Double, as append does only for small slices: a long line
			// is copied a few times, not dozens.
			grown := make([]byte, len(buf), min(max(2*cap(buf), need), maxLine))
			copy(grown, buf)
			buf = grown
		}
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

// isLongLine reports whether err is nextTextLine's longLine, and whether
// that line was the file's last.
func isLongLine(err error) (long, last bool) {
	var l longLine
	if errors.As(err, &l) {
		return true, l.last
	}
	return false, false
}
