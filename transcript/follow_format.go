package transcript

import (
	"bytes"
	"fmt"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// lineMachine is a format's reader as a follower drives it: the same
// per-line state machine the whole-file reader runs, fed one complete line
// at a time.
type lineMachine interface {
	// line reads line n (from 1), without its newline; the slice is only
	// valid during the call.
	line(n int, raw []byte) error
	// probe adds to run what a line at the head of the file tells of the
	// run, as the whole-file reader's header does.
	probe(raw []byte, run *RunInfo)
	// settle emits what the machine holds back for a later line, as the
	// whole-file reader does at the end of the file.
	settle()
	// holds reports whether the reply the machine holds back makes the
	// tool call with this id.
	holds(callID string) bool
}

// makesCall reports whether m is a reply making the tool call id.
func makesCall(m *session.Message, id string) bool {
	if m == nil {
		return false
	}
	for _, b := range m.Message.Content {
		if b.Type == llm.BlockToolCall && b.ID == id {
			return true
		}
	}
	return false
}

// newMachine returns the line machine of format f, which emits through d,
// and how many head lines it probes for the run's description.
func newMachine(f Format, d *decodeState) (lineMachine, int, error) {
	switch f {
	case FormatClaudeCode:
		return &ccMachine{r: &ccReader{d: d}}, ccProbeLines, nil
	case FormatCodex:
		return &cxMachine{r: newCXReader(d)}, cxProbeLines, nil
	case FormatPi, FormatOmp:
		return newPiMachine(d), piProbeLines, nil
	}
	return nil, 0, fmt.Errorf("following %s transcripts is not supported (only %s, %s, %s and %s)", f, FormatClaudeCode, FormatCodex, FormatPi, FormatOmp)
}

// ccMachine drives the Claude Code reader.
type ccMachine struct {
	r   *ccReader
	dec jdec
}

func (m *ccMachine) line(n int, raw []byte) error   { return m.r.line(n, raw) }
func (m *ccMachine) probe(raw []byte, run *RunInfo) { ccProbeLine(&m.dec, raw, run) }

func (m *ccMachine) holds(id string) bool {
	return m.r.pending != nil && makesCall(m.r.pending.msg, id)
}

// settle completes the reply being merged, remembering its message.id so
// that a later line of it is noted.
func (m *ccMachine) settle() {
	if p := m.r.pending; p != nil {
		m.r.settled = p.msgID
	}
	m.r.flush()
}

// cxMachine drives the Codex reader.
type cxMachine struct {
	r   *cxReader
	dec jdec
}

func (m *cxMachine) line(n int, raw []byte) error   { return m.r.rawLine(n, raw) }
func (m *cxMachine) probe(raw []byte, run *RunInfo) { cxProbeLine(&m.dec, raw, run) }
func (m *cxMachine) settle()                        { m.r.flush() }

func (m *cxMachine) holds(id string) bool {
	if m.r.pending == nil {
		return false
	}
	msg, _ := m.r.pending.Body.(*session.Message)
	return makesCall(msg, id)
}

// followSniffLines is how many complete lines the follower waits for
// before it gives up detecting the format: more than any JSON Lines
// format's sniffer looks at.
const followSniffLines = 3

// sniffFollow detects the format of a file being written from its first
// bytes, head (at most sniffSize of them), as NewReader does, but only
// from complete lines: a line still being written is not looked at (but
// for a first line longer than sniffSize, which Codex's session_meta can
// be). It reports false when it cannot tell yet, and an error when it
// never will.
func sniffFollow(head []byte, name string) (Format, bool, error) {
	if len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b {
		return "", false, fmt.Errorf("the file is gzip-compressed; only a plain file being written can be followed")
	}
	complete := head
	if len(head) < sniffSize {
		complete = head[:bytes.LastIndexByte(head, '\n')+1]
	}
	lines := len(headLines(complete, followSniffLines))
	if lines == 0 && len(head) < sniffSize {
		return "", false, nil
	}
	for _, f := range formats {
		if f.sniff(complete, name) {
			return f.name, true, nil
		}
	}
	if lines < followSniffLines && len(head) < sniffSize {
		return "", false, nil
	}
	return "", false, fmt.Errorf("not a transcript format vigil can follow (%s, %s)", FormatClaudeCode, FormatCodex)
}
