package locate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/vigil-dev/vigil/internal/regularfile"
)

// How much of a file recordedCWD reads: the opening lines hold the
// working folder (omp's title slot, then its header; Codex's session_meta,
// whose instructions can run to tens of kilobytes; Claude Code's queue
// operations before the first message).
const (
	maxHeadLines = 16
	maxHeadBytes = 4 << 20
)

// recordedCWD returns the working folder the opening lines of the session
// file at path record: the first "cwd" field at the top of a line or in
// its "payload" (Codex). It returns "" when none of the first
// maxHeadLines lines, within maxHeadBytes, has one; a line that is not
// JSON is passed over.
func recordedCWD(path string) (string, error) {
	f, _, err := regularfile.Open(path)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", path, unwrapPath(err))
	}
	defer f.Close()
	r := bufio.NewReaderSize(io.LimitReader(f, maxHeadBytes), 16<<10)
	for range maxHeadLines {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: gather it, up to what is left of the limit.
			long := bytes.Clone(line)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = r.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if cwd := cwdOf(line); cwd != "" {
			return cwd, nil
		}
		if err == io.EOF {
			return "", nil
		}
		if err != nil {
			return "", fmt.Errorf("read %s: %w", path, err)
		}
	}
	return "", nil
}

// cwdOf returns the cwd a JSON line records, at its top or in its
// payload.
func cwdOf(line []byte) string {
	var v struct {
		CWD     string `json:"cwd"`
		Payload struct {
			CWD string `json:"cwd"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &v) != nil {
		return ""
	}
	if v.CWD != "" {
		return v.CWD
	}
	return v.Payload.CWD
}

// unwrapPath drops the operation and path a *fs.PathError repeats, for
// errors that name the path themselves.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
