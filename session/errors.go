package session

import (
	"errors"
	"fmt"
)

// Errors callers branch on.
var (
	// ErrClosed is returned by writes to a closed session.
	ErrClosed = errors.New("session closed")
	// ErrNotFound is returned when no session matches an id or a cwd.
	ErrNotFound = errors.New("no such session")
	// ErrNewerVersion is wrapped by errors for files written in a newer
	// format version than this vigil reads.
	ErrNewerVersion = errors.New("session written by a newer vigil")
)

// LineError is a line of a session file that cannot be read: not JSON, a
// duplicate id, a parent that does not come before it, and so on. Every
// entry before the line was read; the line and everything after it was
// not, and is left in the file untouched.
type LineError struct {
	File string // the file's path, or the name given to Read
	Line int    // 1-based; the header is line 1
	Err  error
}

// Error returns "read session FILE:LINE: what is wrong".
func (e *LineError) Error() string {
	return fmt.Sprintf("read session %s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns what is wrong with the line.
func (e *LineError) Unwrap() error { return e.Err }

// TruncatedError reports that a session file ends in a partial line, as a
// crash in the middle of a write leaves it. It is a warning: every entry
// before the line was read. No entry that [Session.Append] reported
// written can be in a partial line, because Append returns only after the
// whole line, newline included, reached the operating system.
type TruncatedError struct {
	File   string
	Line   int   // the partial line's number
	Offset int64 // where the partial line starts in the file
	Size   int   // its length in bytes
	// SavedTo is where [Open] copied the partial line before cutting it
	// off the file; "" when nothing was cut (a plain read).
	SavedTo string
}

// Error describes the partial line and, after a repair, where it went.
func (e *TruncatedError) Error() string {
	s := fmt.Sprintf("session %s:%d: last line is partial (%d bytes at offset %d; a crash during a write?); the entries before it are intact",
		e.File, e.Line, e.Size, e.Offset)
	if e.SavedTo != "" {
		s += "; the partial line was removed and saved to " + e.SavedTo
	}
	return s
}
