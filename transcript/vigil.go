package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/vigil-dev/vigil/llm"

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
	var dec vigilDecoder
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
		e, err := dec.decode(line)
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

// vigilLine is an entry line of every known type at once, for the fast
// path: session.DecodeEntry decodes the line once for its base fields and
// again for its body. Only the fast path decodes it (its decoder is
// generated from these tags); encoding/json decodes the line in
// session.DecodeEntry.
type vigilLine struct {
	Type         string            `json:"type" fast:"of=message|custom"`
	ID           string            `json:"id" fast:"recent"`
	ParentID     string            `json:"parentId" fast:"recent"`
	Timestamp    []byte            `json:"timestamp" fast:"text"`
	Message      llm.Message       `json:"message"`
	Model        []byte            `json:"model" fast:"text"`
	Usage        *llm.Usage        `json:"usage" fast:"into=usageBuf"`
	StopReason   llm.StopReason    `json:"stopReason"`
	CustomType   string            `json:"customType"`
	Content      []llm.Block       `json:"content"`
	Display      bool              `json:"display"`
	InContext    bool              `json:"inContext"`
	Details      json.RawMessage   `json:"details"`
	Summary      string            `json:"summary"`
	FirstKeptID  string            `json:"firstKeptId"`
	TokensBefore int64             `json:"tokensBefore"`
	FromID       string            `json:"fromId"`
	Thinking     llm.ThinkingLevel `json:"thinking"`
	usageBuf     llm.Usage         // where Usage points
}

// vigilDecoder decodes entry lines: with the fast path when it can, else
// with session.DecodeEntry. It remembers the last model named, which is
// usually the next one's too.
type vigilDecoder struct {
	dec       jdec
	l         vigilLine // the line being read, reused
	lastModel string
	lastRef   llm.Ref
}

func (v *vigilDecoder) decode(line []byte) (session.Entry, error) {
	if fastJSON {
		v.l = vigilLine{}
		v.dec.reset(line)
		v.l.decodeFast(&v.dec)
		if cap(v.dec.scratch) > maxKeptBuffer {
			v.dec.scratch = nil
		}
		if v.dec.done() {
			if e, ok := v.entry(&v.l); ok {
				return e, nil
			}
		}
	}
	return session.DecodeEntry(line)
}

// entry builds the entry session.DecodeEntry would return for l, a line
// of a known type; ok is false for any other line, including those that
// session.DecodeEntry refuses.
func (v *vigilDecoder) entry(l *vigilLine) (e session.Entry, ok bool) {
	if l.ID == "" {
		return e, false
	}
	switch l.Type {
	case session.TypeMessage:
		if l.Message.Role == "" {
			return e, false
		}
		m := &session.Message{Message: l.Message, StopReason: l.StopReason, Details: bytes.Clone(l.Details)}
		if l.Usage != nil {
			m.Usage = *l.Usage
		}
		if len(l.Model) > 0 {
			ref, ok := v.ref(l.Model)
			if !ok {
				return e, false
			}
			m.Model = ref
		}
		e.Body = m
	case session.TypeCustom:
		if l.CustomType == "" {
			return e, false
		}
		e.Body = &session.Custom{CustomType: l.CustomType, Content: l.Content, Display: l.Display, InContext: l.InContext, Details: bytes.Clone(l.Details)}
	case session.TypeCompaction:
		e.Body = &session.Compaction{Summary: l.Summary, FirstKeptID: l.FirstKeptID, TokensBefore: l.TokensBefore, Details: bytes.Clone(l.Details)}
	case session.TypeBranchSummary:
		e.Body = &session.BranchSummary{FromID: l.FromID, Summary: l.Summary, Details: bytes.Clone(l.Details)}
	case session.TypeModelChange:
		ref, ok := v.ref(l.Model)
		if !ok {
			return e, false
		}
		e.Body = &session.ModelChange{Model: ref, Thinking: l.Thinking}
	default:
		return e, false
	}
	t, ok := stampFast(l.Timestamp)
	if !ok {
		var err error
		t, err = time.Parse(time.RFC3339Nano, string(l.Timestamp))
		if len(l.Timestamp) == 0 || err != nil {
			return e, false
		}
	}
	e.ID, e.ParentID, e.Time = l.ID, l.ParentID, t.UTC()
	return e, true
}

// ref parses a model reference as llm.ParseRef does.
func (v *vigilDecoder) ref(model []byte) (llm.Ref, bool) {
	if v.lastModel != "" && string(model) == v.lastModel {
		return v.lastRef, true
	}
	s := string(model)
	ref, err := llm.ParseRef(s)
	if err != nil {
		return ref, false
	}
	v.lastModel, v.lastRef = s, ref
	return ref, true
}
