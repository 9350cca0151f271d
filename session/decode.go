package session

import (
	"encoding/json"
	"errors"
)

// DecodeHeader parses the first line of a session file (without its
// newline), for readers that stream a file line by line instead of
// loading it with [Read].
//
// A header of a newer format version is returned as far as it could be
// read, together with an error wrapping [ErrNewerVersion], so that a
// tolerant reader can decide to go on.
func DecodeHeader(line []byte) (Header, error) {
	h, err := decodeHeader(line)
	if err == nil || !errors.Is(err, ErrNewerVersion) {
		return h, err
	}
	var w headerWire
	if json.Unmarshal(line, &w) != nil {
		return Header{}, err
	}
	h = Header{Version: w.Version, ID: w.ID, Cwd: w.Cwd, Parent: w.Parent}
	h.Created, _ = parseTime(w.Created)
	return h, err
}

// DecodeEntry parses one entry line of a session file (without its
// newline), as [Read] does for every line after the header. A line of a
// type this version does not know decodes to an [*Unknown] body.
//
// DecodeEntry checks the line alone: whether its parent is an earlier
// entry and its id unique is up to the caller.
func DecodeEntry(line []byte) (Entry, error) {
	return decodeEntry(line)
}
