package transcript

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/vigil-dev/vigil/session"
)

// vigil's own session files (docs/session-format.md): a header line, then
// one entry per line. The entries are already session entries; the reader
// streams them with the session package's line decoders and is more
// forgiving than session.Read, which refuses a file with a bad line.

// vigilHeadProbe is what sniffing reads of the first line.
type vigilHeadProbe struct {
	Type      string          `json:"type"`
	Version   json.RawMessage `json:"version"`
	Created   string          `json:"created"`
	Timestamp string          `json:"timestamp"`
}

// sniffVigil recognises the header: type "session" with a "created" time.
// pi's header also has type "session" but records "timestamp" instead.
func sniffVigil(head []byte, name string) bool {
	lines := headLines(head, 1)
	if len(lines) == 0 {
		return false
	}
	var p vigilHeadProbe
	if json.Unmarshal(lines[0], &p) != nil {
		return false
	}
	return p.Type == "session" && p.Created != "" && p.Timestamp == "" && len(p.Version) > 0
}

// vigilModelProbe finds the model of a run in its first lines.
type vigilModelProbe struct {
	Type  string `json:"type"`
	Model string `json:"model"`
}

func readVigil(d *decodeState) error {
	run := RunInfo{Format: FormatVigil}
	for _, line := range headLines(peekHead(d), 64) {
		var p vigilModelProbe
		if json.Unmarshal(line, &p) == nil && p.Model != "" && (p.Type == session.TypeMessage || p.Type == session.TypeModelChange) {
			run.Model = p.Model
			break
		}
	}
	var links lineage
	started := false
	return eachLine(d, func(n int, line []byte) error {
		if !started {
			h, err := session.DecodeHeader(line)
			switch {
			case errors.Is(err, session.ErrNewerVersion):
				d.note(n, fmt.Sprintf("unknown version %d", h.Version))
			case err != nil:
				return fmt.Errorf("not a vigil session: %w", err)
			}
			started = true
			run.ID, run.CWD, run.Started = h.ID, h.Cwd, h.Created
			if !d.emit(Item{Run: &run}) {
				return errStopped
			}
			return nil
		}
		e, err := session.DecodeEntry(line)
		if err != nil {
			return malformed(err)
		}
		if u, ok := e.Body.(*session.Unknown); ok {
			d.note(n, fmt.Sprintf("unknown line type %q", u.Type))
			links.drop(e.ID, e.ParentID)
			return nil
		}
		e.ParentID = links.parent(e.ParentID)
		if !d.emit(Item{Entry: e}) {
			return errStopped
		}
		return nil
	})
}
