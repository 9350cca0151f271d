package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// Version is the format version this package writes and the newest it
// reads. See docs/session-format.md for the compatibility rules.
const Version = 1

// timeLayout is RFC 3339 in UTC with milliseconds, fixed width.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// Header is the first line of a session file. It is not an entry and not
// part of the tree.
type Header struct {
	// Version is the format version the file was written in.
	Version int
	// ID names the session; it also ends the file name.
	ID string
	// Cwd is the folder the session works in.
	Cwd string
	// Created is when the file was created, in UTC to the millisecond.
	Created time.Time
	// Parent is set when the session was forked from another or is a
	// subagent's.
	Parent *Parent
}

// Parent records where a forked or subagent session came from.
type Parent struct {
	// Kind is ParentFork, ParentSubagent or ParentAdvisor.
	Kind string `json:"kind"`
	// ID and Path name the source session and its file when this one was
	// made; the file may have moved or been dropped since.
	ID   string `json:"id"`
	Path string `json:"path"`
	// EntryID is the source's entry this session starts from: the fork
	// point, or the parent's leaf when the subagent started.
	EntryID string `json:"entryId,omitempty"`
}

// The kinds of parent a session can have.
const (
	ParentFork     = "fork"
	ParentSubagent = "subagent"
	// ParentAdvisor marks an advisor's transcript ([AdvisorTranscript]):
	// the advisor of the session named by the parent.
	ParentAdvisor = "advisor"
	// ParentAttached marks the session vigil keeps for an agent it watches
	// through that agent's hooks ([Manager.Attached]): it holds no entries
	// of its own, only its artifacts folder (the advisor's transcript).
	// The parent's ID and Path are the agent's session id and transcript.
	ParentAttached = "attached"
)

type headerWire struct {
	Type    string  `json:"type"`
	Version int     `json:"version"`
	ID      string  `json:"id"`
	Cwd     string  `json:"cwd"`
	Created string  `json:"created"`
	Parent  *Parent `json:"parentSession,omitempty"`
}

type baseWire struct {
	Type      string  `json:"type"`
	ID        string  `json:"id,omitempty"`
	ParentID  *string `json:"parentId"`
	Timestamp string  `json:"timestamp,omitempty"`
}

type messageWire struct {
	Message    llm.Message     `json:"message"`
	Model      string          `json:"model,omitempty"`
	Usage      *llm.Usage      `json:"usage,omitempty"`
	StopReason llm.StopReason  `json:"stopReason,omitempty"`
	Details    json.RawMessage `json:"details,omitempty"`
}

type customWire struct {
	CustomType string          `json:"customType"`
	Content    []llm.Block     `json:"content"`
	Display    bool            `json:"display"`
	InContext  bool            `json:"inContext"`
	Details    json.RawMessage `json:"details,omitempty"`
}

type compactionWire struct {
	Summary      string          `json:"summary"`
	FirstKeptID  string          `json:"firstKeptId"`
	TokensBefore int64           `json:"tokensBefore"`
	Details      json.RawMessage `json:"details,omitempty"`
}

type branchSummaryWire struct {
	FromID  string          `json:"fromId"`
	Summary string          `json:"summary"`
	Details json.RawMessage `json:"details,omitempty"`
}

type modelChangeWire struct {
	Model    string            `json:"model"`
	Thinking llm.ThinkingLevel `json:"thinking,omitempty"`
}

// marshal encodes v as compact JSON without HTML escaping (transcripts are
// full of < and &) and without a trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// encodeHeader returns the header's line, newline included.
func encodeHeader(h Header) ([]byte, error) {
	b, err := marshal(headerWire{
		Type:    "session",
		Version: h.Version,
		ID:      h.ID,
		Cwd:     h.Cwd,
		Created: h.Created.UTC().Format(timeLayout),
		Parent:  h.Parent,
	})
	if err != nil {
		return nil, fmt.Errorf("encode header: %w", err)
	}
	return append(b, '\n'), nil
}

// decodeHeader parses a header line.
func decodeHeader(line []byte) (Header, error) {
	if err := wantObject(line); err != nil {
		return Header{}, err
	}
	var w headerWire
	if err := json.Unmarshal(line, &w); err != nil {
		return Header{}, fmt.Errorf("header: %w", err)
	}
	switch {
	case w.Type != "session":
		return Header{}, fmt.Errorf("not a session header: type %q, want \"session\"", w.Type)
	case w.Version < 1:
		return Header{}, fmt.Errorf("header: version %d: want 1 or more", w.Version)
	case w.Version > Version:
		return Header{}, fmt.Errorf("header: version %d, this vigil reads up to %d: %w", w.Version, Version, ErrNewerVersion)
	case w.ID == "":
		return Header{}, errors.New("header: no session id")
	}
	created, err := parseTime(w.Created)
	if err != nil {
		return Header{}, fmt.Errorf("header: created: %w", err)
	}
	return Header{Version: w.Version, ID: w.ID, Cwd: w.Cwd, Created: created, Parent: w.Parent}, nil
}

// encodeEntry returns the entry's line, newline included. The base fields
// come first so a person reading the file sees type and id at once.
func encodeEntry(e Entry) ([]byte, error) {
	var parent *string
	if e.ParentID != "" {
		parent = &e.ParentID
	}
	base, err := marshal(baseWire{
		Type:      e.Type(),
		ID:        e.ID,
		ParentID:  parent,
		Timestamp: e.Time.UTC().Format(timeLayout),
	})
	if err != nil {
		return nil, fmt.Errorf("encode entry: %w", err)
	}
	var body any
	switch b := e.Body.(type) {
	case *Message:
		w := messageWire{Message: b.Message, StopReason: b.StopReason, Details: b.Details}
		if w.Message.Content == nil {
			w.Message.Content = []llm.Block{}
		}
		if b.Model != (llm.Ref{}) {
			w.Model = b.Model.String()
		}
		if b.Usage != (llm.Usage{}) {
			w.Usage = &b.Usage
		}
		body = w
	case *Custom:
		w := customWire{CustomType: b.CustomType, Content: b.Content, Display: b.Display, InContext: b.InContext, Details: b.Details}
		if w.Content == nil {
			w.Content = []llm.Block{}
		}
		body = w
	case *Compaction:
		body = compactionWire{Summary: b.Summary, FirstKeptID: b.FirstKeptID, TokensBefore: b.TokensBefore, Details: b.Details}
	case *BranchSummary:
		body = branchSummaryWire{FromID: b.FromID, Summary: b.Summary, Details: b.Details}
	case *ModelChange:
		body = modelChangeWire{Model: b.Model.String(), Thinking: b.Thinking}
	default:
		return nil, fmt.Errorf("encode entry: cannot write a body of type %T", e.Body)
	}
	rest, err := marshal(body)
	if err != nil {
		return nil, fmt.Errorf("encode %s entry: %w", e.Type(), err)
	}
	// Splice {"type":…,"timestamp":…} and {"message":…} into one object.
	line := make([]byte, 0, len(base)+len(rest)+1)
	line = append(line, base[:len(base)-1]...)
	if len(rest) > 2 {
		line = append(line, ',')
		line = append(line, rest[1:]...)
	} else {
		line = append(line, '}')
	}
	return append(line, '\n'), nil
}

// entryWire is an entry line of every known type at once, so that a line
// is decoded in one pass whatever its type: the members of the types do
// not clash (each name has one shape in every type that has it).
type entryWire struct {
	baseWire
	Message      llm.Message       `json:"message"`
	Model        string            `json:"model"`
	Usage        *llm.Usage        `json:"usage"`
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
}

// decodeEntry parses an entry line (without its newline). Known types must
// have an id and a timestamp; unknown types keep the whole line raw.
//
// The line is decoded once into the members of every type. A line that
// does not decode so (a member of the wrong shape, even one its own type
// does not have) is decoded again as before, its base and then its type's
// own members, so that it fails or not, and with the same error, as it
// always did.
func decodeEntry(line []byte) (Entry, error) {
	if err := wantObject(line); err != nil {
		return Entry{}, err
	}
	var w entryWire
	if err := json.Unmarshal(line, &w); err != nil {
		return decodeEntryByType(line)
	}
	return w.baseWire.entry(line, func() (Body, bool, error) { return w.body() })
}

// decodeEntryByType decodes a line in two passes: its base, then its
// type's members.
func decodeEntryByType(line []byte) (Entry, error) {
	var base baseWire
	if err := json.Unmarshal(line, &base); err != nil {
		return Entry{}, err
	}
	return base.entry(line, func() (Body, bool, error) { return decodeBody(base.Type, line) })
}

// entry makes the entry of a line whose base is b and whose body body
// decodes.
func (b *baseWire) entry(line []byte, body func() (Body, bool, error)) (Entry, error) {
	if b.Type == "" {
		return Entry{}, errors.New("entry has no type")
	}
	e := Entry{ID: b.ID}
	if b.ParentID != nil {
		e.ParentID = *b.ParentID
	}
	bd, known, err := body()
	if err != nil {
		return Entry{}, fmt.Errorf("%s entry: %w", b.Type, err)
	}
	if !known {
		e.Body = &Unknown{Type: b.Type, Raw: json.RawMessage(bytes.Clone(bytes.TrimSpace(line)))}
		if t, err := parseTime(b.Timestamp); err == nil {
			e.Time = t
		}
		if e.ID == "" && e.ParentID != "" {
			return Entry{}, fmt.Errorf("%s entry: parentId %q but no id", b.Type, e.ParentID)
		}
		return e, nil
	}
	if e.ID == "" {
		return Entry{}, fmt.Errorf("%s entry has no id", b.Type)
	}
	if e.Time, err = parseTime(b.Timestamp); err != nil {
		return Entry{}, fmt.Errorf("%s entry %s: timestamp: %w", b.Type, e.ID, err)
	}
	e.Body = bd
	return e, nil
}

// body returns the body of a known type from a line decoded once; known
// is false for types this version does not know.
func (w *entryWire) body() (Body, bool, error) {
	switch w.Type {
	case TypeMessage:
		return messageWire{Message: w.Message, Model: w.Model, Usage: w.Usage, StopReason: w.StopReason, Details: w.Details}.body()
	case TypeCustom:
		return customWire{CustomType: w.CustomType, Content: w.Content, Display: w.Display, InContext: w.InContext, Details: w.Details}.body()
	case TypeCompaction:
		return compactionWire{Summary: w.Summary, FirstKeptID: w.FirstKeptID, TokensBefore: w.TokensBefore, Details: w.Details}.body()
	case TypeBranchSummary:
		return branchSummaryWire{FromID: w.FromID, Summary: w.Summary, Details: w.Details}.body()
	case TypeModelChange:
		return modelChangeWire{Model: w.Model, Thinking: w.Thinking}.body()
	}
	return nil, false, nil
}

// decodeBody decodes the body of a known type from its own members;
// known is false for types this version does not know.
func decodeBody(typ string, line []byte) (body Body, known bool, err error) {
	switch typ {
	case TypeMessage:
		return decodeWire[messageWire](line)
	case TypeCustom:
		return decodeWire[customWire](line)
	case TypeCompaction:
		return decodeWire[compactionWire](line)
	case TypeBranchSummary:
		return decodeWire[branchSummaryWire](line)
	case TypeModelChange:
		return decodeWire[modelChangeWire](line)
	}
	return nil, false, nil
}

// decodeWire decodes a line into the wire of its type and makes the body.
func decodeWire[W interface{ body() (Body, bool, error) }](line []byte) (Body, bool, error) {
	var w W
	if err := json.Unmarshal(line, &w); err != nil {
		return nil, true, err
	}
	return w.body()
}

func (w messageWire) body() (Body, bool, error) {
	if w.Message.Role == "" {
		return nil, true, errors.New("message has no role")
	}
	m := &Message{Message: w.Message, StopReason: w.StopReason, Details: w.Details}
	if w.Usage != nil {
		m.Usage = *w.Usage
	}
	if w.Model != "" {
		var err error
		if m.Model, err = llm.ParseRef(w.Model); err != nil {
			return nil, true, err
		}
	}
	return m, true, nil
}

func (w customWire) body() (Body, bool, error) {
	if w.CustomType == "" {
		return nil, true, errors.New("no customType")
	}
	return &Custom{CustomType: w.CustomType, Content: w.Content, Display: w.Display, InContext: w.InContext, Details: w.Details}, true, nil
}

func (w compactionWire) body() (Body, bool, error) {
	return &Compaction{Summary: w.Summary, FirstKeptID: w.FirstKeptID, TokensBefore: w.TokensBefore, Details: w.Details}, true, nil
}

func (w branchSummaryWire) body() (Body, bool, error) {
	return &BranchSummary{FromID: w.FromID, Summary: w.Summary, Details: w.Details}, true, nil
}

func (w modelChangeWire) body() (Body, bool, error) {
	ref, err := llm.ParseRef(w.Model)
	if err != nil {
		return nil, true, err
	}
	return &ModelChange{Model: ref, Thinking: w.Thinking}, true, nil
}

// wantObject rejects lines that are valid JSON but not objects (null
// would otherwise decode into a zero struct without complaint).
func wantObject(line []byte) error {
	if t := bytes.TrimSpace(line); len(t) == 0 || t[0] != '{' {
		return errors.New("not a JSON object")
	}
	return nil
}

func parseTime(s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, errors.New("missing")
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}
