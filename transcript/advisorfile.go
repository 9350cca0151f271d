package transcript

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/vigil-dev/vigil/session"
)

// AdvisorOf reports whether the file is an advisor's transcript, which
// vigil writes next to the session an advisor watches
// (docs/session-format.md), and names that session when the file says.
// Such a file reads as a vigil session, but its "steps" are the advisor's
// reviews, not an agent's work.
func (r *Reader) AdvisorOf() (watched string, ok bool) { return r.advisorOf, r.advisor }

// advisorTranscript tells an advisor's transcript from a session, by its
// name (__advisor.jsonl, compressed or not) or its header (a parent of
// kind advisor), and returns the session it watches when the header
// names it.
func advisorTranscript(f Format, head []byte, name string) (watched string, ok bool) {
	if f != FormatVigil {
		return "", false
	}
	base := strings.TrimSuffix(filepath.Base(name), ".gz")
	ok = base == session.AdvisorTranscript
	lines := headLines(head, 1)
	if len(lines) == 0 {
		return "", ok
	}
	var h struct {
		ID     string          `json:"id"`
		Parent *session.Parent `json:"parentSession"`
	}
	if json.Unmarshal(lines[0], &h) != nil {
		return "", ok
	}
	if h.Parent != nil && h.Parent.Kind == session.ParentAdvisor {
		return h.Parent.ID, true
	}
	if ok {
		return strings.TrimPrefix(h.ID, "advisor-"), true
	}
	return "", false
}
