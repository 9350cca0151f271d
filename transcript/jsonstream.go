package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"

	"github.com/vigil-dev/vigil/internal/jsonstr"
)

// docStream reads a stream of JSON values and tokens as json.Decoder does,
// for the readers of JSON documents (jsonDoc). Its tokens, values, and the
// places where it fails are json.Decoder's: the token state machine is
// json.Decoder's own, and values are delimited by the same rules (a
// scalar ends at the first byte that cannot continue it, a container at
// its closing bracket). What it does faster: it finds the end of a value
// with a tight scanner instead of json.Decoder's byte-by-byte state
// machine, decodes values with the fast path (jsonfast.go) when their type
// has one, and skips a value whole without making a token of each of its
// parts.
//
// Its syntax errors are errDocSyntax, not *json.SyntaxError (whose message
// cannot be set from outside encoding/json); readers treat both alike.
type docStream struct {
	r     io.Reader
	buf   []byte
	scanp int   // start of unread data in buf
	err   error // sticky, as json.Decoder's

	tokenState int
	tokenStack []int
	// whole says buf is all of the input, read in place: it is never
	// moved or written to.
	whole bool

	dec jdec // the fast path's decoder, reused
}

// errDocSyntax says a document is not valid JSON where it was read.
var errDocSyntax = errors.New("invalid JSON")

// errLongValue is the error for a value longer than maxLine.
var errLongValue = fmt.Errorf("a JSON value longer than %d MiB", maxLine>>20)

// maxNestingDepth is encoding/json's limit on the nesting of a value it
// decodes.
const maxNestingDepth = 10000

// docMinRead and docFirstRead size the buffer: json.Decoder starts with
// 512 bytes; starting larger reads fewer times and changes nothing else.
const (
	docMinRead   = 512
	docFirstRead = 32 << 10
)

func newDocStream(r io.Reader) *docStream { return &docStream{r: r} }

// The token states, as json.Decoder names them.
const (
	tokenTopValue = iota
	tokenArrayStart
	tokenArrayValue
	tokenArrayComma
	tokenObjectStart
	tokenObjectKey
	tokenObjectColon
	tokenObjectValue
	tokenObjectComma
)

// refill reads more into the buffer, after moving unread data to its
// start; it grows the buffer when full, and lets go of one grown for a
// long value once that value has been read.
func (s *docStream) refill() error {
	if s.whole {
		return io.EOF
	}
	if s.scanp > 0 {
		n := copy(s.buf, s.buf[s.scanp:])
		s.buf = s.buf[:n]
		s.scanp = 0
	}
	if len(s.buf) >= maxLine {
		// One value (a string, an element) this long is not a
		// transcript's: refuse it rather than hold it.
		return errLongValue
	}
	if cap(s.buf) > maxKeptBuffer && len(s.buf) < docFirstRead {
		s.buf = append(make([]byte, 0, docFirstRead), s.buf...)
	}
	if cap(s.buf)-len(s.buf) < docMinRead {
		newBuf := make([]byte, len(s.buf), max(min(2*cap(s.buf), maxLine)+docMinRead, docFirstRead))
		copy(newBuf, s.buf)
		s.buf = newBuf
	}
	// Fill the buffer: a value still being scanned is scanned again from
	// its start after each refill, so refills must be few (as the buffer
	// doubles), not one for each short read a decompressor returns.
	n, err := io.ReadFull(s.r, s.buf[len(s.buf):cap(s.buf)])
	if err == io.ErrUnexpectedEOF {
		err = io.EOF
	}
	s.buf = s.buf[:len(s.buf)+n]
	return err
}

// peek returns the next byte that is not whitespace, without reading it.
func (s *docStream) peek() (byte, error) {
	var err error
	for {
		for i := s.scanp; i < len(s.buf); i++ {
			c := s.buf[i]
			if isSpace(c) {
				continue
			}
			s.scanp = i
			return c, nil
		}
		// All space: consume it, so that a long run of it is scanned
		// once, not again after each refill.
		s.scanp = len(s.buf)
		if err != nil {
			return 0, err
		}
		err = s.refill()
	}
}

// readValue finds the value that starts at s.scanp (after whitespace) and
// returns its length from s.scanp; floats says whether a number too large
// for a float64 is an error (as it is when read as a token).
func (s *docStream) readValue(floats bool) (int, error) {
	var err error
	for {
		n, res := scanValue(s.buf[s.scanp:], err == io.EOF, floats)
		switch res {
		case scanOK:
			return n, nil
		case scanBad:
			s.err = errDocSyntax
			return 0, s.err
		case scanFloat:
			// Not sticky: json.Decoder reads the number, then fails to
			// decode it.
			return n, errFloat
		}
		if err != nil {
			if err == io.EOF && nonSpace(s.buf[s.scanp:]) {
				err = io.ErrUnexpectedEOF
			}
			s.err = err
			return 0, err
		}
		err = s.refill()
	}
}

func nonSpace(b []byte) bool {
	for _, c := range b {
		if !isSpace(c) {
			return true
		}
	}
	return false
}

// tokenPrepareForDecode moves past the comma or colon before a value.
func (s *docStream) tokenPrepareForDecode() error {
	switch s.tokenState {
	case tokenArrayComma:
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c != ',' {
			return errDocSyntax
		}
		s.scanp++
		s.tokenState = tokenArrayValue
	case tokenObjectColon:
		c, err := s.peek()
		if err != nil {
			return err
		}
		if c != ':' {
			return errDocSyntax
		}
		s.scanp++
		s.tokenState = tokenObjectValue
	}
	return nil
}

func (s *docStream) tokenValueAllowed() bool {
	switch s.tokenState {
	case tokenTopValue, tokenArrayStart, tokenArrayValue, tokenObjectValue:
		return true
	}
	return false
}

func (s *docStream) tokenValueEnd() {
	switch s.tokenState {
	case tokenArrayStart, tokenArrayValue:
		s.tokenState = tokenArrayComma
	case tokenObjectValue:
		s.tokenState = tokenObjectComma
	}
}

// value reads the next value whole, as json.Decoder.Decode does before it
// decodes; the bytes are valid until the next read.
func (s *docStream) value(floats bool) ([]byte, error) {
	if s.err != nil {
		return nil, s.err
	}
	if err := s.tokenPrepareForDecode(); err != nil {
		return nil, err
	}
	if !s.tokenValueAllowed() {
		return nil, errDocSyntax
	}
	n, err := s.readValue(floats)
	if err == errFloat {
		// The value is a number that does not fit a float64; the error
		// ends the reading of the document.
		num := bytes.TrimLeft(s.buf[s.scanp:s.scanp+n], " \t\r\n")
		return nil, &json.UnmarshalTypeError{Value: "number " + string(num), Type: reflect.TypeFor[float64]()}
	}
	if err != nil {
		return nil, err
	}
	data := s.buf[s.scanp : s.scanp+n]
	s.scanp += n
	s.tokenValueEnd()
	return data, nil
}

// errFloat is readValue's word for a number too large for a float64.
var errFloat = errors.New("number too large")

// Decode reads the next value into v, as json.Decoder.Decode does. A v
// with a fast path is decoded with it; its json.RawMessage members are
// then valid only until the next read.
func (s *docStream) Decode(v any) error {
	data, err := s.value(false)
	if err != nil {
		return err
	}
	if raw, ok := v.(*json.RawMessage); ok && fastJSON {
		// As json.RawMessage.UnmarshalJSON, given the value without the
		// space before it.
		i := 0
		for i < len(data) && isSpace(data[i]) {
			i++
		}
		*raw = append((*raw)[:0], data[i:]...)
		return nil
	}
	if f, ok := v.(fastDecoder); ok && fastJSON {
		s.dec.reset(data)
		f.decodeFast(&s.dec)
		if cap(s.dec.scratch) > maxKeptBuffer {
			s.dec.scratch = nil
		}
		if s.dec.done() {
			return nil
		}
		reflect.ValueOf(v).Elem().SetZero()
	}
	return json.Unmarshal(data, v)
}

// Skip reads past the next value token by token, as jsonDoc.skip does
// with json.Decoder, but without making the tokens' values: it fails
// where that would fail, and holds one token at a time.
func (s *docStream) Skip() error {
	tok, err := s.token(false)
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); ok {
		return s.skipRest(d)
	}
	return nil
}

// skipRest reads past the members of the object or array whose opening
// delimiter d has just been read, and past its end, as jsonDoc.skipRest.
func (s *docStream) skipRest(d json.Delim) error {
	for s.More() {
		if d == '{' {
			tok, err := s.token(false)
			if err != nil {
				return err
			}
			if _, ok := tok.(string); !ok {
				return errBadToken
			}
		}
		if err := s.Skip(); err != nil {
			return err
		}
	}
	_, err := s.token(false)
	return err
}

// More reports whether the current array or object has another element.
func (s *docStream) More() bool {
	c, err := s.peek()
	return err == nil && c != ']' && c != '}'
}

// Token returns the next token, as json.Decoder.Token does.
func (s *docStream) Token() (json.Token, error) { return s.token(true) }

// token returns the next token; without keep, a string token is "" and
// any other scalar nil, which saves making them.
func (s *docStream) token(keep bool) (json.Token, error) {
	for {
		c, err := s.peek()
		if err != nil {
			return nil, err
		}
		switch c {
		case '[', '{':
			if !s.tokenValueAllowed() {
				return nil, errDocSyntax
			}
			s.scanp++
			s.tokenStack = append(s.tokenStack, s.tokenState)
			if c == '[' {
				s.tokenState = tokenArrayStart
			} else {
				s.tokenState = tokenObjectStart
			}
			return json.Delim(c), nil
		case ']', '}':
			if c == ']' && s.tokenState != tokenArrayStart && s.tokenState != tokenArrayComma ||
				c == '}' && s.tokenState != tokenObjectStart && s.tokenState != tokenObjectComma {
				return nil, errDocSyntax
			}
			s.scanp++
			s.tokenState = s.tokenStack[len(s.tokenStack)-1]
			s.tokenStack = s.tokenStack[:len(s.tokenStack)-1]
			s.tokenValueEnd()
			return json.Delim(c), nil
		case ':':
			if s.tokenState != tokenObjectColon {
				return nil, errDocSyntax
			}
			s.scanp++
			s.tokenState = tokenObjectValue
			continue
		case ',':
			switch s.tokenState {
			case tokenArrayComma:
				s.scanp++
				s.tokenState = tokenArrayValue
				continue
			case tokenObjectComma:
				s.scanp++
				s.tokenState = tokenObjectKey
				continue
			}
			return nil, errDocSyntax
		case '"':
			if s.tokenState == tokenObjectStart || s.tokenState == tokenObjectKey {
				old := s.tokenState
				s.tokenState = tokenTopValue
				data, err := s.value(false)
				s.tokenState = old
				if err != nil {
					return nil, err
				}
				s.tokenState = tokenObjectColon
				if !keep {
					return "", nil
				}
				return s.scalar(data), nil
			}
		}
		if !s.tokenValueAllowed() {
			return nil, errDocSyntax
		}
		data, err := s.value(true)
		if err != nil {
			return nil, err
		}
		if !keep {
			if c == '"' {
				return "", nil
			}
			return nil, nil
		}
		return s.scalar(data), nil
	}
}

// scalar returns the token a scalar value's bytes make: a string, a
// float64, a bool or nil.
func (s *docStream) scalar(data []byte) json.Token {
	s.dec.reset(data)
	switch c := s.dec.peek(); {
	case c == '"':
		return s.dec.str()
	case c == 't':
		return true
	case c == 'f':
		return false
	case c == 'n':
		return nil
	}
	f, _ := strconv.ParseFloat(string(data[s.dec.i:]), 64) // checked by readValue
	return f
}

// scanResult is what scanValue found.
type scanResult int

const (
	scanOK    scanResult = iota
	scanMore             // the value goes on past the end of the buffer
	scanBad              // not valid JSON
	scanFloat            // a number too large for a float64: b[:n], after whitespace
)

// scanValue finds the end of the JSON value that b starts with, after
// whitespace, as json.Decoder's scanner does: a container ends at its
// closing bracket, a scalar at the first byte that cannot continue it,
// which must be there unless eof says the input ends with b; nesting
// deeper than maxNestingDepth is invalid. With floats, a number too large
// for a float64 ends the scan with scanFloat. The first problem in the
// order of the text decides the result.
func scanValue(b []byte, eof bool, floats bool) (n int, res scanResult) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	var stack []byte // the open containers, '{' or '['
	var small [32]byte
	stack = small[:0]
	// expect is what comes next in a container: 'v' a value, 'k' a key,
	// ':' the colon, ',' a comma or the end.
	expect := byte('v')
	for {
		for i < len(b) && isSpace(b[i]) {
			i++
		}
		if i >= len(b) {
			return 0, scanMore
		}
		c := b[i]
		switch expect {
		case ',':
			top := stack[len(stack)-1]
			switch {
			case c == ',':
				i++
				if top == '{' {
					expect = 'k'
				} else {
					expect = 'v'
				}
				continue
			case c == '}' && top == '{', c == ']' && top == '[':
				i++
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i, scanOK
				}
				continue
			}
			return 0, scanBad
		case ':':
			if c != ':' {
				return 0, scanBad
			}
			i++
			expect = 'v'
			continue
		case 'k':
			if c != '"' {
				return 0, scanBad
			}
			end, res := scanStringAt(b, i)
			if res != scanOK {
				return 0, res
			}
			i = end
			expect = ':'
			continue
		}
		// A value.
		switch {
		case c == '{' || c == '[':
			if len(stack) >= maxNestingDepth {
				return 0, scanBad
			}
			stack = append(stack, c)
			i++
			// An empty container.
			for i < len(b) && isSpace(b[i]) {
				i++
			}
			if i >= len(b) {
				return 0, scanMore
			}
			if c == '{' && b[i] == '}' || c == '[' && b[i] == ']' {
				i++
				stack = stack[:len(stack)-1]
				if len(stack) == 0 {
					return i, scanOK
				}
				expect = ','
				continue
			}
			if c == '{' {
				expect = 'k'
			} else {
				expect = 'v'
			}
			continue
		case c == '"':
			end, res := scanStringAt(b, i)
			if res != scanOK {
				return 0, res
			}
			i = end
		case c == 't' || c == 'f' || c == 'n':
			lit := "true"
			if c == 'f' {
				lit = "false"
			} else if c == 'n' {
				lit = "null"
			}
			for k := 0; k < len(lit); k++ {
				if i+k >= len(b) {
					return 0, scanMore
				}
				if b[i+k] != lit[k] {
					return 0, scanBad
				}
			}
			i += len(lit)
		case c == '-' || '0' <= c && c <= '9':
			end, res := scanNumberAt(b, i, eof)
			if res != scanOK {
				return 0, res
			}
			if floats && numberOverflows(b[i:end]) {
				return end, scanFloat
			}
			i = end
		default:
			return 0, scanBad
		}
		if len(stack) == 0 {
			// A scalar at the top: json.Decoder's scanner sees its end only
			// at the byte after it.
			if i >= len(b) && !eof {
				return 0, scanMore
			}
			return i, scanOK
		}
		expect = ','
	}
}

// scanStringAt checks the string that starts at b[i] and returns the
// index after its closing quote.
func scanStringAt(b []byte, i int) (int, scanResult) {
	str, res := jsonstr.Scan(b, i)
	switch res {
	case jsonstr.Short:
		return 0, scanMore
	case jsonstr.Bad:
		return 0, scanBad
	}
	return str.End + 1, scanOK
}

// scanNumberAt checks the number that starts at b[i] and returns the
// index after it: the first byte that cannot continue it, when the number
// is complete there. A number that reaches the end of b needs more input
// unless eof.
func scanNumberAt(b []byte, i int, eof bool) (int, scanResult) {
	digits := func(j int) int {
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		return j
	}
	// more reports what a number that is complete up to j, the end of
	// b, gives.
	more := func(j int) (int, scanResult) {
		if j >= len(b) && !eof {
			return 0, scanMore
		}
		return j, scanOK
	}
	// need checks that b[j] exists and is a digit.
	need := func(j int) scanResult {
		if j >= len(b) {
			return scanMore // at the end of the input, cut off
		}
		if b[j] < '0' || b[j] > '9' {
			return scanBad
		}
		return scanOK
	}
	j := i
	if b[j] == '-' {
		j++
		if r := need(j); r != scanOK {
			return 0, r
		}
	}
	if b[j] == '0' {
		j++
	} else {
		j = digits(j)
	}
	if j >= len(b) {
		return more(j)
	}
	if b[j] == '.' {
		j++
		if r := need(j); r != scanOK {
			return 0, r
		}
		j = digits(j)
		if j >= len(b) {
			return more(j)
		}
	}
	if b[j] == 'e' || b[j] == 'E' {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		if r := need(j); r != scanOK {
			return 0, r
		}
		j = digits(j)
		if j >= len(b) {
			return more(j)
		}
	}
	return j, scanOK
}

// numberOverflows reports whether strconv.ParseFloat fails on a valid
// JSON number, which it does only when the number is too large.
func numberOverflows(num []byte) bool {
	if len(num) < 300 {
		exp := false
		for _, c := range num {
			if c == 'e' || c == 'E' {
				exp = true
				break
			}
		}
		if !exp {
			return false
		}
	}
	_, err := strconv.ParseFloat(string(num), 64)
	return err != nil
}
