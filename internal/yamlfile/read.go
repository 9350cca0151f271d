package yamlfile

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"

	"github.com/vigil-dev/vigil/internal/regularfile"
)

// ReadFile reads the settings file at path, of at most [MaxSize] bytes,
// without a leading UTF-8 byte-order mark (so that offsets into what it
// returns are those [Parse] reports). A missing file is an error that
// matches [fs.ErrNotExist], for callers that skip it; see [ReadRegular]
// for the rest.
func ReadFile(path string) ([]byte, error) {
	data, err := ReadRegular(path, MaxSize)
	return stripBOM(data), err
}

// ReadRegular reads the regular file at path, following symbolic links, if
// it holds at most limit bytes. It never blocks on what is not a regular
// file (a named pipe, a device, a socket) and reads no more than limit+1
// bytes of one that grows, so a file a cloned repository puts in the way
// cannot stall or exhaust the reader. Its errors other than a missing file
// are [*Error]s naming path: "not a regular file (a named pipe)", "a loop
// of symbolic links", "larger than 1 MiB", or why it cannot be read.
func ReadRegular(path string, limit int64) ([]byte, error) {
	data, err := regularfile.Read(path, limit)
	if err == nil {
		return data, nil
	}
	var nr *regularfile.NotRegularError
	var tl *regularfile.TooLargeError
	switch {
	case errors.As(err, &nr):
		return nil, &Error{File: path, Msg: fmt.Sprintf("not a regular file (%s)", regularfile.Kind(nr.Mode))}
	case errors.As(err, &tl) && tl.Size < 0:
		return nil, &Error{File: path, Msg: fmt.Sprintf("is larger than %s, the limit for this file", sizeText(limit)), Err: errTooLarge}
	case errors.As(err, &tl):
		return nil, &Error{File: path, Msg: fmt.Sprintf("is %s, larger than %s, the limit for this file", sizeText(tl.Size), sizeText(limit)), Err: errTooLarge}
	}
	return nil, openError(path, err)
}

// errTooLarge is the cause of the errors about a file over its size limit.
var errTooLarge = errors.New("file too large")

// openError returns err, from opening or reading path, as an [*Error] that
// still matches the cause (fs.ErrNotExist, fs.ErrPermission), or as itself
// when the file does not exist, since callers often skip that silently.
func openError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	msg := "cannot be read: " + causeText(err)
	if errors.Is(err, syscall.ELOOP) {
		msg = "cannot be read: it is a loop of symbolic links"
	}
	return &Error{File: path, Msg: msg, Err: err}
}

// causeText is the cause of err without the operation and path a
// [*fs.PathError] repeats.
func causeText(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
