// Package regularfile opens and reads files that must be regular files
// (settings, transcripts, labels) without ever waiting on or reading
// what is not: a named pipe put in a file's place (whose open waits for
// a writer), a device (/dev/zero never ends), a socket, a folder.
//
// It looks before it opens: os.Stat follows symbolic links, and only a
// regular file is opened, so a named pipe costs a stat, never an open
// that waits, and a device is never read. Should another file take the
// name between the look and the open, the open does not wait (O_NONBLOCK)
// or take a terminal (O_NOCTTY), and what was opened is checked again.
// [Read] also bounds what it reads, so a file that grows cannot exhaust
// the reader.
//
// The errors say what was found, as a [*NotRegularError] or a
// [*TooLargeError]; every other error is the *fs.PathError of the stat,
// open or read, unchanged, for callers to word as they need (a missing
// file matches fs.ErrNotExist, a loop of symbolic links syscall.ELOOP).
package regularfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// ErrNotRegular is the cause of every [*NotRegularError].
var ErrNotRegular = errors.New("not a regular file")

// NotRegularError says that Path names something other than a regular
// file (after following symbolic links).
type NotRegularError struct {
	Path string
	// Mode is what the path names; [Kind] says it in words.
	Mode fs.FileMode
}

// Error says the path and what it names: "p: not a regular file (a
// named pipe)".
func (e *NotRegularError) Error() string {
	return e.Path + ": " + ErrNotRegular.Error() + " (" + Kind(e.Mode) + ")"
}

// Unwrap returns [ErrNotRegular].
func (e *NotRegularError) Unwrap() error { return ErrNotRegular }

// TooLargeError says that the file at Path holds more than Limit bytes.
type TooLargeError struct {
	Path string
	// Size is the file's size when it was looked at, or -1 when it was
	// within Limit then and grew past it while it was read.
	Size  int64
	Limit int64
}

// Error says the path, the size when known, and the limit.
func (e *TooLargeError) Error() string {
	if e.Size < 0 {
		return e.Path + ": grew larger than " + strconv.FormatInt(e.Limit, 10) + " bytes while read"
	}
	return e.Path + ": " + strconv.FormatInt(e.Size, 10) + " bytes, more than " + strconv.FormatInt(e.Limit, 10)
}

// Kind names the type of a file that is not a regular one: "a folder",
// "a named pipe", "a socket", "a character device", "a device", "a
// symbolic link", or "an irregular file".
func Kind(m fs.FileMode) string {
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
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

// Open opens the regular file at path for reading, following symbolic
// links, and returns it with what its descriptor says of it (its size,
// its identity for os.SameFile). The error is a [*NotRegularError] when
// path names something else; otherwise it is that of os.Stat (Op
// "stat"), os.OpenFile (Op "open") or File.Stat, unchanged.
func Open(path string) (*os.File, fs.FileInfo, error) { return open(path, -1) }

// Read reads the regular file at path, as [Open] opens it, if it holds at
// most limit bytes; it reads no more than limit+1 bytes of one that
// grows. A larger file is a [*TooLargeError], found before the file is
// opened when its size says so.
func Read(path string, limit int64) ([]byte, error) {
	f, _, err := open(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Size: -1, Limit: limit}
	}
	return data, nil
}

// open is Open refusing, when limit is not negative, a file larger than
// limit, both at the look and at the open.
func open(path string, limit int64) (*os.File, fs.FileInfo, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := check(path, info, limit); err != nil {
		return nil, nil, err
	}
	f, err := openNoBlock(path)
	if err != nil {
		return nil, nil, err
	}
	info, err = f.Stat()
	if err == nil {
		err = check(path, info, limit)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// check refuses info, of path, unless it is a regular file of at most
// limit bytes (of any size when limit is negative).
func check(path string, info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return &NotRegularError{Path: path, Mode: info.Mode().Type()}
	}
	if limit >= 0 && info.Size() > limit {
		return &TooLargeError{Path: path, Size: info.Size(), Limit: limit}
	}
	return nil
}
