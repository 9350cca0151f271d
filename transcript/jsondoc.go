package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonDoc walks one JSON document with encoding/json's token API (as
// docStream implements it), so that a reader of a document format
// (SWE-agent, mini-swe-agent, an OpenHands event list) holds one element
// of an array at a time, never the whole array.
type jsonDoc struct {
	dec tokenReader
}

// tokenReader is what jsonDoc uses of json.Decoder; docStream implements
// it faster.
type tokenReader interface {
	Token() (json.Token, error)
	More() bool
	Decode(v any) error
}

// newTokenReader returns a docStream reading r, or a json.Decoder when
// the fast path is off (in tests that compare the two).
func newTokenReader(r io.Reader) tokenReader {
	if fastJSON {
		return newDocStream(r)
	}
	return json.NewDecoder(r)
}

func newJSONDoc(r io.Reader) *jsonDoc {
	return &jsonDoc{dec: newTokenReader(r)}
}

// newJSONDocBytes walks the document data, which it reads in place.
func newJSONDocBytes(data []byte) *jsonDoc {
	if fastJSON {
		return &jsonDoc{dec: &docStream{buf: data, whole: true}}
	}
	return newJSONDoc(bytes.NewReader(data))
}

// open reads the token that starts the next value and returns it when it
// is '{' or '['; any other value is skipped and reported as 0.
func (j *jsonDoc) open() (json.Delim, error) {
	tok, err := j.dec.Token()
	if err != nil {
		return 0, err
	}
	if d, ok := tok.(json.Delim); ok && (d == '{' || d == '[') {
		return d, nil
	}
	return 0, nil
}

// more reports whether the current object or array has another member.
func (j *jsonDoc) more() bool { return j.dec.More() }

// key reads the next key of the current object.
func (j *jsonDoc) key() (string, error) {
	tok, err := j.dec.Token()
	if err != nil {
		return "", err
	}
	k, ok := tok.(string)
	if !ok {
		return "", fmt.Errorf("%w: %v where an object key belongs", errBadToken, tok)
	}
	return k, nil
}

// close reads the '}' or ']' that ends the current object or array.
func (j *jsonDoc) close() error {
	_, err := j.dec.Token()
	return err
}

// decode reads the next value into v. A value of the wrong shape for v is
// not fatal: the decoder has read past it, v holds what fitted, and the
// error is a *json.UnmarshalTypeError the caller may note. When v has a
// fast path (jsonfast.go), its json.RawMessage members are valid only
// until the next read.
func (j *jsonDoc) decode(v any) error { return j.dec.Decode(v) }

// rawValue reads the next value as decode(&raw) with a json.RawMessage
// does; when the document is read in place (newJSONDocBytes), the value
// is a slice of it rather than a copy.
func (j *jsonDoc) rawValue() (json.RawMessage, error) {
	if s, ok := j.dec.(*docStream); ok && s.whole {
		data, err := s.value(false)
		return bytes.TrimLeft(data, " \t\r\n"), err
	}
	var raw json.RawMessage
	err := j.decode(&raw)
	return raw, err
}

// skip reads past the next value token by token (or as doing so would,
// faster), so that skipping a huge array holds no more than one string of
// it at a time.
func (j *jsonDoc) skip() error {
	if s, ok := j.dec.(*docStream); ok {
		return s.Skip()
	}
	tok, err := j.dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok {
		return j.skipRest(d)
	}
	return nil
}

// skipRest reads past the members of the object or array whose opening
// delimiter d has just been read, and past its end.
func (j *jsonDoc) skipRest(d json.Delim) error {
	for j.dec.More() {
		if d == '{' {
			if _, err := j.key(); err != nil {
				return err
			}
		}
		if err := j.skip(); err != nil {
			return err
		}
	}
	return j.close()
}

// enterArray reads the '[' that starts the next value and reports whether
// it was one; any other value is skipped whole.
func (j *jsonDoc) enterArray() (bool, error) {
	tok, err := j.dec.Token()
	if err != nil {
		return false, err
	}
	d, ok := tok.(json.Delim)
	switch {
	case !ok:
		return false, nil
	case d == '[':
		return true, nil
	default:
		return false, j.skipRest(d)
	}
}

// str reads the next value as a string; another kind of value is skipped
// and gives "".
func (j *jsonDoc) str() (string, error) {
	var s string
	err := j.decode(&s)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return "", nil
	}
	return s, err
}

// errDocStop is what an element function returns to end a walk early,
// when the consumer of Items stopped.
var errDocStop = errors.New("stopped")

// elements calls fn for each element of the array whose '[' has just been
// read, with its position from 1, and reads the closing ']'. fn must read
// the element whole.
func (j *jsonDoc) elements(fn func(n int) error) error {
	for n := 1; j.dec.More(); n++ {
		if err := fn(n); err != nil {
			return err
		}
	}
	return j.close()
}

// array calls fn for each element of the array that is the next value,
// as elements does; isArray is false, and the value skipped, when it is
// not an array.
func (j *jsonDoc) array(fn func(n int) error) (isArray bool, err error) {
	if isArray, err = j.enterArray(); err != nil || !isArray {
		return isArray, err
	}
	return true, j.elements(fn)
}

// errBadToken says the token stream is not what valid JSON allows where it
// is; the document is malformed from there on.
var errBadToken = errors.New("unexpected JSON token")

// docResult finishes a document reader's work: a document cut off or
// malformed at element at (from 1; 0 outside the elements) is noted and
// read as far as it goes; another error is returned with the element.
func docResult(d *decodeState, at int, err error) error {
	switch {
	case err == nil, errors.Is(err, errDocStop):
		return nil
	case docCut(err):
		d.note(at, "document cut off or malformed")
		return nil
	case at > 0:
		return fmt.Errorf("element %d: %w", at, err)
	}
	return err
}

// docCut reports whether err says the document ends early or stops being
// JSON (it was cut off, or is malformed from there on), rather than that
// reading failed. A reader keeps what it read before such a point and
// notes the rest as lost.
func docCut(err error) bool {
	var syn *json.SyntaxError
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, errBadToken) || errors.Is(err, errDocSyntax) || errors.As(err, &syn)
}

// wrongShape reports whether err only says a value did not fit the Go type
// it was decoded into; the decoder has read past the value.
func wrongShape(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// flexText is message content that a format writes either as a string or
// as a list of content blocks ({"type": "text", "text": ...}); it keeps the
// text and drops other blocks, such as images.
type flexText string

// decodeFast decodes one value as UnmarshalJSON does, on the fast path.
func (t *flexText) decodeFast(d *jdec) { *t = decodeFlexText(d) }

// UnmarshalJSON accepts a string, a list of blocks or null.
func (t *flexText) UnmarshalJSON(b []byte) error {
	if fastJSON {
		var d jdec
		d.reset(b)
		if v := decodeFlexText(&d); d.done() {
			*t = v
			return nil
		}
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		*t = flexText(s)
		return nil
	}
	var blocks []flexBlock
	if err := json.Unmarshal(b, &blocks); err != nil {
		*t = ""
		return nil
	}
	out := ""
	for _, bl := range blocks {
		if bl.Text == "" || (bl.Type != "" && bl.Type != "text") {
			continue
		}
		if out != "" {
			out += "\n"
		}
		out += bl.Text
	}
	*t = flexText(out)
	return nil
}

// flexBlock is a content block as flexText reads it.
type flexBlock struct {
	Type string `json:"type" fast:"of=text"`
	Text string `json:"text"`
}

// decodeFlexText decodes message content as flexText.UnmarshalJSON does;
// what it would turn to "" by failing to decode is left to it.
func decodeFlexText(d *jdec) flexText {
	switch d.peek() {
	case '"':
		return flexText(d.str())
	case 'n':
		d.literal("null")
		return ""
	case '[':
	default:
		d.giveUp()
		return ""
	}
	d.array()
	out := ""
	for d.next() {
		if d.null() {
			continue // a block of no text
		}
		if !d.object() {
			d.giveUp()
			return ""
		}
		var blk flexBlock
		fastFlexBlock(d, &blk)
		typ, text := blk.Type, blk.Text
		if text == "" || (typ != "" && typ != "text") {
			continue
		}
		if out != "" {
			out += "\n"
		}
		out += text
	}
	return flexText(out)
}
