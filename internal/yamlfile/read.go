package yamlfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ReadFile reads the settings file at path, of at most [MaxSize] bytes. A
// missing file is an error that matches [fs.ErrNotExist], for callers that
// skip it; see [ReadRegular] for the rest.
func ReadFile(path string) ([]byte, error) { return ReadRegular(path, MaxSize) }

// ReadRegular reads the regular file at path, following symbolic links, if
// it holds at most limit bytes. It never blocks on what is not a regular
// file (a named pipe, a device, a socket) and reads no more than limit+1
// bytes of one that grows, so a file a cloned repository puts in the way
// cannot stall or exhaust the reader. Its errors other than a missing file
// are [*Error]s naming path: "not a regular file (a named pipe)", "a loop
// of symbolic links", "larger than 1 MiB", or why it cannot be read.
func ReadRegular(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, openError(path, err)
	}
	if err := checkRegular(path, info, limit); err != nil {
		return nil, err
	}
	// The file may be replaced between the Stat and the open; opening
	// without blocking and checking again keeps a named pipe swapped in
	// from hanging the open.
	f, err := openNoBlock(path)
	if err != nil {
		return nil, openError(path, err)
	}
	defer f.Close()
	info, err = f.Stat()
	if err != nil {
		return nil, openError(path, err)
	}
	if err := checkRegular(path, info, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, openError(path, err)
	}
	if int64(len(data)) > limit {
		return nil, &Error{File: path, Msg: fmt.Sprintf("is larger than %s, the limit for this file", sizeText(limit)), Err: errTooLarge}
	}
	return data, nil
}

// errTooLarge is the cause of the errors about a file over its size limit.
var errTooLarge = errors.New("file too large")

func checkRegular(path string, info fs.FileInfo, limit int64) error {
	if !info.Mode().IsRegular() {
		return &Error{File: path, Msg: fmt.Sprintf("not a regular file (%s)", kind(info.Mode()))}
	}
	if info.Size() > limit {
		return &Error{File: path, Msg: fmt.Sprintf("is %s, larger than %s, the limit for this file", sizeText(info.Size()), sizeText(limit)), Err: errTooLarge}
	}
	return nil
}

// kind names the type of a file that is not a regular one.
func kind(m fs.FileMode) string {
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
	}
	return "a " + m.Type().String() + " file"
}

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
