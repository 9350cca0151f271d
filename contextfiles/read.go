package contextfiles

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"
)

// The limits on what instruction files bring into a prompt. Real files are
// a few kilobytes; these keep a hostile repository (a file of gigabytes, a
// named pipe, thousands of imports) from stalling vigil or exhausting its
// memory.
const (
	// MaxFileBytes is the largest instruction file or imported file read;
	// [Discover] skips a larger one and reports it, an import of one is
	// [OverLimit].
	MaxFileBytes = 1 << 20
	// MaxExpandedBytes bounds the imported text added to one top-level
	// file; an import that would pass it is [OverLimit].
	MaxExpandedBytes = 4 << 20
	// MaxImports bounds the import tokens followed in one top-level file;
	// the first one past it is [OverLimit], and later ones are left as
	// written without being listed.
	MaxImports = 1000
)

// errTooLarge is the cause of the error about a file over [MaxFileBytes].
var errTooLarge = errors.New("file too large")

// readText reads an instruction file: a regular file of at most
// [MaxFileBytes], without a byte order mark, with any bytes that are not
// UTF-8 replaced by U+FFFD; valid reports whether there were none. It never
// blocks on a named pipe or a device put in the file's place, and its
// errors name the file and say why ("not a regular file (a named pipe)",
// "a loop of symbolic links"), except a missing file's, which matches
// [fs.ErrNotExist].
func readText(path string) (text string, valid bool, err error) {
	data, err := readRegular(path)
	if err != nil {
		return "", false, err
	}
	text = strings.TrimPrefix(string(data), "\uFEFF")
	if utf8.ValidString(text) {
		return text, true, nil
	}
	return strings.ToValidUTF8(text, "\uFFFD"), false, nil
}

func readRegular(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, readError(path, err)
	}
	if err := checkRegular(path, info); err != nil {
		return nil, err
	}
	// Open without blocking and look again: a named pipe swapped in after
	// the Stat would otherwise hang the open.
	f, err := openNoBlock(path)
	if err != nil {
		return nil, readError(path, err)
	}
	defer f.Close()
	if info, err = f.Stat(); err != nil {
		return nil, readError(path, err)
	}
	if err := checkRegular(path, info); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, readError(path, err)
	}
	if len(data) > MaxFileBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB, the limit for an instruction file: %w", path, MaxFileBytes>>20, errTooLarge)
	}
	return data, nil
}

func checkRegular(path string, info fs.FileInfo) error {
	m := info.Mode()
	if !m.IsRegular() {
		what := "a " + m.Type().String() + " file"
		switch {
		case m.IsDir():
			what = "a folder"
		case m&fs.ModeNamedPipe != 0:
			what = "a named pipe"
		case m&fs.ModeSocket != 0:
			what = "a socket"
		case m&fs.ModeDevice != 0:
			what = "a device"
		}
		return fmt.Errorf("%s: not a regular file (%s)", path, what)
	}
	if info.Size() > MaxFileBytes {
		return fmt.Errorf("%s: %d bytes, larger than %d MiB, the limit for an instruction file: %w", path, info.Size(), MaxFileBytes>>20, errTooLarge)
	}
	return nil
}

// readError names path and the cause, without the operation a
// [*fs.PathError] adds; a missing file's error is kept as it is.
func readError(path string, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if errors.Is(err, syscall.ELOOP) {
		return fmt.Errorf("%s: a loop of symbolic links: %w", path, err)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return fmt.Errorf("%s: %w", path, err)
}
