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
// again for its body.
type vigilLine struct {
	typ, id, parentID    string
	timestamp            []byte
	message              llm.Message
	model                []byte
	usage                *llm.Usage
	stopReason           llm.StopReason
	customType           string
	content              []llm.Block
	display, inContext   bool
	details              json.RawMessage
	usageBuf             llm.Usage // where usage points
	summary, firstKeptID string
	tokensBefore         int64
	fromID               string
	thinking             llm.ThinkingLevel
}

// vigilKeys are the members of every entry type.
var vigilKeys = fieldNames("type", "id", "parentId", "timestamp", "message", "model", "usage", "stopReason",
	"customType", "content", "display", "inContext", "details", "summary", "firstKeptId",
	"tokensBefore", "fromId", "thinking")

func (l *vigilLine) decodeFast(d *jdec) {
	if !d.object() {
		d.giveUp() // session.DecodeEntry wants an object
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "type":
			if d.once(&seen, 0) {
				l.typ = d.strOf(session.TypeMessage, session.TypeCustom)
			}
		case "id":
			if d.once(&seen, 1) {
				l.id = d.strRecent()
			}
		case "parentId":
			if d.once(&seen, 2) {
				l.parentID = d.strRecent()
			}
		case "timestamp":
			if d.once(&seen, 3) {
				l.timestamp = d.strBytes()
			}
		case "message":
			if d.once(&seen, 4) {
				decodeMessage(d, &l.message)
			}
		case "model":
			if d.once(&seen, 5) {
				l.model = d.strBytes()
			}
		case "usage":
			if d.once(&seen, 6) && d.object() {
				l.usage = &l.usageBuf
				decodeUsage(d, l.usage)
			}
		case "stopReason":
			if d.once(&seen, 7) {
				l.stopReason = llm.StopReason(d.strOf(string(llm.StopToolUse), string(llm.StopEndTurn)))
			}
		case "customType":
			if d.once(&seen, 8) {
				l.customType = d.str()
			}
		case "content":
			if d.once(&seen, 9) {
				l.content = decodeBlocks(d)
			}
		case "display":
			if d.once(&seen, 10) {
				l.display = d.boolean()
			}
		case "inContext":
			if d.once(&seen, 11) {
				l.inContext = d.boolean()
			}
		case "details":
			if d.once(&seen, 12) {
				l.details = d.raw()
			}
		case "summary":
			if d.once(&seen, 13) {
				l.summary = d.str()
			}
		case "firstKeptId":
			if d.once(&seen, 14) {
				l.firstKeptID = d.str()
			}
		case "tokensBefore":
			if d.once(&seen, 15) {
				l.tokensBefore = d.int64v()
			}
		case "fromId":
			if d.once(&seen, 16) {
				l.fromID = d.str()
			}
		case "thinking":
			if d.once(&seen, 17) {
				l.thinking = llm.ThinkingLevel(d.str())
			}
		default:
			d.unknown(vigilKeys)
		}
	}
}

var messageKeys = fieldNames("role", "content")

// decodeMessage decodes an llm.Message as encoding/json does.
func decodeMessage(d *jdec, m *llm.Message) {
	if !d.object() {
		return
	}
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "role":
			if d.once(&seen, 0) {
				m.Role = llm.Role(d.strOf(string(llm.RoleAssistant), string(llm.RoleUser)))
			}
		case "content":
			if d.once(&seen, 1) {
				m.Content = decodeBlocks(d)
			}
		default:
			d.unknown(messageKeys)
		}
	}
}

var usageKeys = fieldNames("input", "output", "cache_read", "cache_write")

// decodeUsage decodes an llm.Usage, whose object has been entered.
func decodeUsage(d *jdec, u *llm.Usage) {
	var seen uint64
	for d.more() {
		switch string(d.key) {
		case "input":
			if d.once(&seen, 0) {
				u.Input = d.int64v()
			}
		case "output":
			if d.once(&seen, 1) {
				u.Output = d.int64v()
			}
		case "cache_read":
			if d.once(&seen, 2) {
				u.CacheRead = d.int64v()
			}
		case "cache_write":
			if d.once(&seen, 3) {
				u.CacheWrite = d.int64v()
			}
		default:
			d.unknown(usageKeys)
		}
	}
}

var blockKeys = fieldNames("type", "text", "signature", "id", "name", "arguments", "content", "is_error", "media_type", "data")

// decodeBlocks decodes a list of llm.Block as encoding/json does: null is
// nil, [] is empty but not nil. Arguments are copied.
func decodeBlocks(d *jdec) []llm.Block {
	if !d.array() {
		return nil
	}
	// The blocks are gathered in a buffer kept for the list's depth and
	// copied to a list of their number, which saves growing lists.
	level := d.depth
	for len(d.blockBufs) <= level && level < 8 {
		d.blockBufs = append(d.blockBufs, nil)
	}
	var out []llm.Block
	if level < len(d.blockBufs) {
		out = d.blockBufs[level][:0]
		defer func() {
			clear(out)
			if cap(out) <= maxKeptBlocks {
				d.blockBufs[level] = out[:0]
			}
		}()
	}
	for d.next() {
		if !d.object() {
			d.giveUp() // null or another kind: leave it to encoding/json
			return nil
		}
		var b llm.Block
		var seen uint64
		for d.more() {
			switch string(d.key) {
			case "type":
				if d.once(&seen, 0) {
					b.Type = llm.BlockType(d.strOf(string(llm.BlockText), string(llm.BlockToolCall), string(llm.BlockToolResult), string(llm.BlockThinking)))
				}
			case "text":
				if d.once(&seen, 1) {
					b.Text = d.str()
				}
			case "signature":
				if d.once(&seen, 2) {
					b.Signature = d.str()
				}
			case "id":
				if d.once(&seen, 3) {
					b.ID = d.strRecent()
				}
			case "name":
				if d.once(&seen, 4) {
					b.Name = d.strRecent()
				}
			case "arguments":
				if d.once(&seen, 5) {
					b.Arguments = bytes.Clone(d.raw())
				}
			case "content":
				if d.once(&seen, 6) {
					b.Content = decodeBlocks(d)
				}
			case "is_error":
				if d.once(&seen, 7) {
					b.IsError = d.boolean()
				}
			case "media_type":
				if d.once(&seen, 8) {
					b.MediaType = d.str()
				}
			case "data":
				if d.once(&seen, 9) {
					b.Data = d.str()
				}
			default:
				d.unknown(blockKeys)
			}
		}
		out = append(out, b)
	}
	if d.fail {
		return nil
	}
	return append([]llm.Block{}, out...)
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
	if l.id == "" {
		return e, false
	}
	switch l.typ {
	case session.TypeMessage:
		if l.message.Role == "" {
			return e, false
		}
		m := &session.Message{Message: l.message, StopReason: l.stopReason}
		if l.usage != nil {
			m.Usage = *l.usage
		}
		if len(l.model) > 0 {
			ref, ok := v.ref(l.model)
			if !ok {
				return e, false
			}
			m.Model = ref
		}
		e.Body = m
	case session.TypeCustom:
		if l.customType == "" {
			return e, false
		}
		e.Body = &session.Custom{CustomType: l.customType, Content: l.content, Display: l.display, InContext: l.inContext, Details: bytes.Clone(l.details)}
	case session.TypeCompaction:
		e.Body = &session.Compaction{Summary: l.summary, FirstKeptID: l.firstKeptID, TokensBefore: l.tokensBefore, Details: bytes.Clone(l.details)}
	case session.TypeBranchSummary:
		e.Body = &session.BranchSummary{FromID: l.fromID, Summary: l.summary, Details: bytes.Clone(l.details)}
	case session.TypeModelChange:
		ref, ok := v.ref(l.model)
		if !ok {
			return e, false
		}
		e.Body = &session.ModelChange{Model: ref, Thinking: l.thinking}
	default:
		return e, false
	}
	t, ok := stampFast(l.timestamp)
	if !ok {
		var err error
		t, err = time.Parse(time.RFC3339Nano, string(l.timestamp))
		if len(l.timestamp) == 0 || err != nil {
			return e, false
		}
	}
	e.ID, e.ParentID, e.Time = l.id, l.parentID, t.UTC()
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
