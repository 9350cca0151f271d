package transcript

import (
	"bytes"
	"encoding/json"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/internal/jsonstr"
)

// A fast path for decoding the JSON the readers spend their time on.
//
// encoding/json decodes a line in two passes (a validating scan of the
// whole value, then a decoding one) driven by reflection, and its
// validating scanner steps through a state machine byte by byte; on
// transcripts that caps a reader near 50 MB/s. jdec decodes in one pass,
// without reflection, into the readers' own structs, with decoders that
// internal/jsonfastgen generates from the structs' tags (jsonfast_gen.go,
// go generate): a field is written once, in the struct encoding/json
// decodes too, and a test fails when the generated file is not current.
//
// It is a fast path, not a second decoder with its own rules: it accepts
// only what encoding/json would decode to exactly the same value, and
// gives up (fails) on anything else, after which the caller decodes the
// same bytes with encoding/json as before. So the JSON it accepts is
// valid for encoding/json (the same grammar, checked as strictly: the
// same whitespace, escapes, numbers and literals, control characters
// refused in strings, nothing after the value), strings are unquoted as
// encoding/json unquotes them (invalid UTF-8 and lone surrogates become
// U+FFFD), and it gives up on what encoding/json resolves in ways the
// fast path does not follow: a member named only case-insensitively like
// a field, a member twice, an escaped member name, a value of the wrong
// kind for its field, a number that does not fit, very deep nesting.
//
// Values decoded as json.RawMessage are slices of the input, not copies:
// they are valid only as long as the input, which for a reader is one
// line. What outlives the line must be copied.
type jdec struct {
	b    []byte
	i    int
	fail bool
	// first is set when an object or array has just been entered, so
	// that more and next know no comma is due.
	first bool
	depth int
	// key is the member name more has just read: a slice of b.
	key []byte
	// scratch is reused to unquote strings with escapes.
	scratch []byte
	// recent are short strings read lately by strRecent, so that a value
	// that comes again (the previous line's id as this line's parent, a
	// model, a session id) is not allocated again.
	recent     [8]string
	nextRecent int
}

// jdecMaxDepth is how deep the fast path follows nesting before it gives
// up (encoding/json allows 10,000 levels).
const jdecMaxDepth = 200

// maxKeptBlocks is the most decoded blocks a reader keeps room for
// between lines.
const maxKeptBlocks = 256

// fastJSON turns the fast path off when false, so that tests can compare
// what the readers yield with and without it.
var fastJSON = true

// reset starts decoding b.
func (d *jdec) reset(b []byte) {
	d.b, d.i, d.fail, d.first, d.depth, d.key = b, 0, false, false, 0, nil
}

// done reports whether the value was decoded in full with nothing but
// whitespace after it.
func (d *jdec) done() bool {
	if d.fail {
		return false
	}
	d.ws()
	return d.i == len(d.b)
}

// giveUp makes the fast path fail.
func (d *jdec) giveUp() { d.fail = true }

// isSpace is JSON's whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func (d *jdec) ws() {
	for d.i < len(d.b) && isSpace(d.b[d.i]) {
		d.i++
	}
}

// peek returns the first byte of the next value, 0 at the end (or, once
// the fast path failed, possibly any byte: callers check d.fail).
func (d *jdec) peek() byte {
	if d.i < len(d.b) && d.b[d.i] > ' ' {
		return d.b[d.i]
	}
	return d.peekSpace()
}

// peekSpace is peek past whitespace.
func (d *jdec) peekSpace() byte {
	d.ws()
	if d.fail || d.i >= len(d.b) {
		return 0
	}
	return d.b[d.i]
}

// null consumes a null and reports whether there was one.
func (d *jdec) null() bool {
	if d.peek() != 'n' {
		return false
	}
	d.literal("null")
	return !d.fail
}

func (d *jdec) literal(lit string) {
	if len(d.b)-d.i < len(lit) || string(d.b[d.i:d.i+len(lit)]) != lit {
		d.fail = true
		return
	}
	d.i += len(lit)
}

// object enters an object. It returns false when the next value is null,
// which it consumes, and false with the fast path failed when it is
// anything else.
func (d *jdec) object() bool {
	switch d.peek() {
	case '{':
		return d.enter()
	case 'n':
		d.literal("null")
		return false
	}
	d.fail = true
	return false
}

// array enters an array, as object enters an object.
func (d *jdec) array() bool {
	switch d.peek() {
	case '[':
		return d.enter()
	case 'n':
		d.literal("null")
		return false
	}
	d.fail = true
	return false
}

func (d *jdec) enter() bool {
	d.depth++
	if d.depth > jdecMaxDepth {
		d.fail = true
		return false
	}
	d.i++
	d.first = true
	return true
}

// more moves to the next member of the object being read and reads its
// name into d.key, positioned at its value; false at the object's end,
// which it consumes, or when the fast path failed. The caller must read
// or skip each member's value.
func (d *jdec) more() bool {
	first := d.first
	d.first = false
	c := d.peek()
	if d.fail {
		return false
	}
	switch {
	case c == '}':
		d.i++
		d.depth--
		return false
	case !first && c == ',':
		d.i++
		c = d.peek()
	case !first:
		d.fail = true
		return false
	}
	if c != '"' {
		d.fail = true
		return false
	}
	// Names are short: a plain loop finds the end of one sooner than
	// scanString, which takes over at anything but a plain byte.
	b, s := d.b, d.i+1
	e := s
	for e < len(b) && jsonstr.Plain[b[e]] {
		e++
	}
	if e < len(b) && b[e] == '"' {
		d.i = e + 1
	} else {
		var esc bool
		s, e, esc, _ = d.scanString()
		if d.fail || esc {
			// An escaped name may match a field once unquoted.
			d.fail = true
			return false
		}
	}
	d.key = b[s:e]
	if d.i < len(b) && b[d.i] == ':' {
		d.i++
		return true
	}
	d.ws()
	if d.i >= len(b) || b[d.i] != ':' {
		d.fail = true
		return false
	}
	d.i++
	return true
}

// next moves to the next element of the array being read; false at its
// end, which it consumes, or when the fast path failed.
func (d *jdec) next() bool {
	first := d.first
	d.first = false
	c := d.peek()
	if d.fail {
		return false
	}
	switch {
	case c == ']':
		d.i++
		d.depth--
		return false
	case !first && c == ',':
		d.i++
		if d.peek() == 0 {
			d.fail = true
			return false
		}
		return true
	case !first:
		d.fail = true
		return false
	}
	return true
}

// once records that member bit of the object being read was seen, in the
// object's own set seen; a member seen twice fails the fast path, since
// encoding/json merges or resets what the first left.
func (d *jdec) once(seen *uint64, bit uint) bool {
	if *seen&(1<<bit) != 0 {
		d.fail = true
		return false
	}
	*seen |= 1 << bit
	return true
}

// fields are the member names a struct decodes.
type fields struct {
	names []string
	// lens has bit n set when a name is n bytes long (63 for 63 or more).
	lens uint64
}

func fieldNames(names ...string) *fields {
	f := &fields{names: names}
	for _, n := range names {
		f.lens |= 1 << min(len(n), 63)
	}
	return f
}

// unknown skips the value of a member that is not one of known; a name
// that encoding/json would match to one of them case-insensitively fails
// the fast path.
func (d *jdec) unknown(known *fields) {
	ascii := true
	for _, c := range d.key {
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii || known.lens&(1<<min(len(d.key), 63)) != 0 {
		for _, k := range known.names {
			if ascii && len(k) == len(d.key) && asciiEqualFold(k, d.key) || !ascii && bytes.EqualFold([]byte(k), d.key) {
				d.fail = true
				return
			}
		}
	}
	d.skip()
}

// asciiEqualFold reports whether ASCII k and b are equal but for case.
func asciiEqualFold(k string, b []byte) bool {
	for i := range len(k) {
		x, y := k[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// scanString checks the string at d.i and moves past it; its content is
// b[s:e]. esc reports a backslash in it, high a byte of 0x80 or more.
func (d *jdec) scanString() (s, e int, esc, high bool) {
	str, res := jsonstr.Scan(d.b, d.i)
	if res != jsonstr.OK {
		d.fail = true
		return
	}
	s = d.i + 1
	d.i = str.End + 1
	return s, str.End, str.Escaped, str.High
}

// str reads a string; null gives "" and anything else fails the fast
// path.
func (d *jdec) str() string {
	switch d.peek() {
	case '"':
	case 'n':
		d.literal("null")
		return ""
	default:
		d.fail = true
		return ""
	}
	s, e, esc, high := d.scanString()
	if d.fail {
		return ""
	}
	raw := d.b[s:e]
	if !esc && (!high || utf8.Valid(raw)) {
		return string(raw)
	}
	d.scratch = jsonstr.AppendUnquote(d.scratch[:0], raw)
	return string(d.scratch)
}

// strBytes reads a string as str does, but returns its content without
// copying it when it holds no escape: a slice of the input.
func (d *jdec) strBytes() []byte {
	switch d.peek() {
	case '"':
	case 'n':
		d.literal("null")
		return nil
	default:
		d.fail = true
		return nil
	}
	s, e, esc, high := d.scanString()
	if d.fail {
		return nil
	}
	raw := d.b[s:e]
	if !esc && (!high || utf8.Valid(raw)) {
		return raw
	}
	return jsonstr.AppendUnquote(nil, raw)
}

// strRecent reads a string as str does, but returns the same string as a
// recent call when it has the same value. For the short values that
// repeat from line to line.
func (d *jdec) strRecent() string {
	b := d.strBytes()
	if len(b) == 0 || len(b) > 64 {
		return string(b)
	}
	for _, r := range d.recent {
		if r == string(b) {
			return r
		}
	}
	s := string(b)
	d.recent[d.nextRecent] = s
	d.nextRecent = (d.nextRecent + 1) % len(d.recent)
	return s
}

// stamp reads a string and parses it as parseStamp does.
func (d *jdec) stamp() time.Time {
	return parseStampBytes(d.strBytes())
}

// strOf reads a string as str does, but returns one of vals without
// allocating when the string is equal to it.
func (d *jdec) strOf(vals ...string) string {
	if d.peek() == '"' {
		i := d.i
		s, e, esc, high := d.scanString()
		if d.fail {
			return ""
		}
		if !esc && !high {
			for _, v := range vals {
				if string(d.b[s:e]) == v {
					return v
				}
			}
			return string(d.b[s:e])
		}
		d.i = i
	}
	return d.str()
}

// boolean reads true or false; null gives false.
func (d *jdec) boolean() bool {
	switch d.peek() {
	case 't':
		d.literal("true")
		return true
	case 'f':
		d.literal("false")
	case 'n':
		d.literal("null")
	default:
		d.fail = true
	}
	return false
}

// scanNumber checks the number at d.i and moves past it.
func (d *jdec) scanNumber() []byte {
	b, j := d.b, d.i
	if j < len(b) && b[j] == '-' {
		j++
	}
	switch {
	case j < len(b) && b[j] == '0':
		j++
	case j < len(b) && '1' <= b[j] && b[j] <= '9':
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
	default:
		d.fail = true
		return nil
	}
	if j < len(b) && b[j] == '.' {
		j++
		k := j
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		if j == k {
			d.fail = true
			return nil
		}
	}
	if j < len(b) && (b[j] == 'e' || b[j] == 'E') {
		j++
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			j++
		}
		k := j
		for j < len(b) && '0' <= b[j] && b[j] <= '9' {
			j++
		}
		if j == k {
			d.fail = true
			return nil
		}
	}
	num := b[d.i:j]
	d.i = j
	return num
}

// int64v reads an integer that fits in an int64; null gives 0.
func (d *jdec) int64v() int64 {
	switch c := d.peek(); {
	case c == '-' || '0' <= c && c <= '9':
	case c == 'n':
		d.literal("null")
		return 0
	default:
		d.fail = true
		return 0
	}
	num := d.scanNumber()
	if d.fail {
		return 0
	}
	if len(num) <= 18 {
		neg := num[0] == '-'
		digits := num
		if neg {
			digits = num[1:]
		}
		var n int64
		for _, c := range digits {
			if c < '0' || c > '9' {
				d.fail = true // a fraction or exponent: not an integer
				return 0
			}
			n = n*10 + int64(c-'0')
		}
		if neg {
			n = -n
		}
		return n
	}
	n, err := strconv.ParseInt(string(num), 10, 64)
	if err != nil {
		d.fail = true
	}
	return n
}

// float64v reads a number; null gives 0.
func (d *jdec) float64v() float64 {
	switch c := d.peek(); {
	case c == '-' || '0' <= c && c <= '9':
	case c == 'n':
		d.literal("null")
		return 0
	default:
		d.fail = true
		return 0
	}
	num := d.scanNumber()
	if d.fail {
		return 0
	}
	f, err := strconv.ParseFloat(string(num), 64)
	if err != nil {
		d.fail = true
	}
	return f
}

// raw reads any value and returns its bytes, a slice of the input (null
// gives "null", as it does for a json.RawMessage).
func (d *jdec) raw() json.RawMessage {
	d.ws()
	start := d.i
	d.skip()
	if d.fail {
		return nil
	}
	return d.b[start:d.i:d.i]
}

// skip checks the next value and moves past it.
func (d *jdec) skip() {
	switch c := d.peek(); {
	case c == '"':
		d.scanString()
	case c == '{':
		if !d.enter() {
			return
		}
		for d.more() {
			d.skip()
		}
	case c == '[':
		if !d.enter() {
			return
		}
		for d.next() {
			d.skip()
		}
	case c == 't':
		d.literal("true")
	case c == 'f':
		d.literal("false")
	case c == 'n':
		d.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		d.scanNumber()
	default:
		d.fail = true
	}
}

// jdecPool holds decoders for decodeJSON's callers that keep none.
var jdecPool = sync.Pool{New: func() any { return new(jdec) }}

// fastDecoder is a struct with a fast path.
type fastDecoder interface {
	decodeFast(d *jdec)
}

// decodeJSON decodes data into v, which must be zero (or, for a list, may
// hold storage to reuse from its length on): with the fast path when it
// can, else with encoding/json. On the fast path, v's json.RawMessage
// members are slices of data. d is the decoder to use, kept by the caller
// to reuse its buffer; nil makes a new one.
func decodeJSON[T any, P interface {
	*T
	fastDecoder
}](d *jdec, data []byte, v P) error {
	if fastJSON {
		if d == nil {
			d = jdecPool.Get().(*jdec)
			defer jdecPool.Put(d)
		}
		d.reset(data)
		v.decodeFast(d)
		if cap(d.scratch) > maxKeptBuffer {
			d.scratch = nil
		}
		if d.done() {
			return nil
		}
		var zero T
		*v = zero
	}
	return json.Unmarshal(data, v)
}

// validJSON reports whether data is one valid JSON value, as json.Valid.
func validJSON(data []byte) bool {
	if fastJSON {
		var d jdec
		d.reset(data)
		d.skip()
		if d.done() {
			return true
		}
	}
	return json.Valid(data)
}
