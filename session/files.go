package session

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// AdvisorTranscript is the name of the advisor's own transcript in a
// session's artifacts folder. It is a session file in this same format.
const AdvisorTranscript = "__advisor.jsonl"

// artifactsDir returns the artifacts folder of a session file: its path
// without .jsonl. It refuses paths whose folder would be empty or the
// parent folder itself, so Remove can never delete more than it should.
func artifactsDir(path string) (string, error) {
	base := filepath.Base(path)
	stem, ok := strings.CutSuffix(base, ".jsonl")
	if !ok || stem == "" || stem == "." || stem == ".." {
		return "", fmt.Errorf("a session file's name must be NAME.jsonl, got %q", base)
	}
	return filepath.Join(filepath.Dir(path), stem), nil
}

// createFile writes the chunks to a new file at path, failing if it
// exists. The file appears under its name only when complete and synced:
// it is written under a temporary name, then hard-linked into place (a
// link, unlike a rename, never replaces an existing file).
func createFile(path string, chunks [][]byte) (err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".creating-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	for _, c := range chunks {
		if _, err := tmp.Write(c); err != nil {
			tmp.Close()
			return err
		}
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return err
		}
		// The file system cannot link: write in place, still refusing to
		// replace an existing file.
		if err := writeExclusive(path, chunks); err != nil {
			return err
		}
	}
	return syncDir(dir)
}

func writeExclusive(path string, chunks [][]byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	for _, c := range chunks {
		if _, err := f.Write(c); err != nil {
			f.Close()
			return err
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a new name in dir durable. Windows cannot sync a folder,
// and does not need to.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// saveTorn copies a partial last line into the artifacts folder of the
// session at path and returns the copy's path.
func saveTorn(path string, line int, torn []byte) (string, error) {
	dir, err := artifactsDir(path)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	f, err := os.CreateTemp(dir, fmt.Sprintf("torn-line%d-*.part", line))
	if err != nil {
		return "", err
	}
	if _, err := f.Write(torn); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}

// Remove deletes the session file at path and its artifacts folder. It
// refuses a file that is not a readable session file, and does nothing
// when the file does not exist (a folder without its session file is not
// provably a session's, so it is left alone). The folder goes first: a
// crash in between leaves the session file, and removing it again
// finishes the job.
func Remove(path string) error {
	dir, err := artifactsDir(path)
	if err != nil {
		return fmt.Errorf("remove session %s: %w", path, err)
	}
	if _, err := readHeader(path); errors.Is(err, fs.ErrNotExist) {
		return nil
	} else if err != nil {
		return fmt.Errorf("remove session %s: not removing what is not a readable session: %w", path, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("remove session %s: artifacts: %w", path, err)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("remove session %s: %w", path, err)
	}
	return nil
}

// maxHeader bounds how much of a file readHeader reads.
const maxHeader = 1 << 20

// readHeader reads only the first line of a session file.
func readHeader(path string) (Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return Header{}, err
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, maxHeader)).ReadBytes('\n')
	if err != nil && err != io.EOF {
		return Header{}, fmt.Errorf("read session %s: %w", path, err)
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return Header{}, &LineError{File: path, Line: 1, Err: errors.New("no session header")}
	}
	h, err := decodeHeader(line)
	if err != nil {
		return Header{}, &LineError{File: path, Line: 1, Err: err}
	}
	return h, nil
}
