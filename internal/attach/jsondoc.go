package attach

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// This file holds a JSON tree that keeps the source's bytes: printing a
// parsed document with no edits gives back exactly what was parsed. Scalars
// keep their tokens; containers keep the whitespace around each item.

type kind uint8

const (
	scalarKind kind = iota
	objectKind
	arrayKind
)

// node is one JSON value.
type node struct {
	kind kind
	// raw is a scalar's token.
	raw []byte
	// items are an object's members or an array's elements, in order.
	items []*item
	// close is the whitespace before the closing bracket (after the last
	// item, or after the opening bracket when there is none).
	close []byte
	// pos is the value's offset in the source, for errors; -1 for values
	// vigil made.
	pos int
}

// item is an object member or an array element with the whitespace around
// it: lead before it (after '{', '[' or ','), and trail between its value
// and the comma that follows. The last item's trailing whitespace is its
// container's close.
type item struct {
	lead []byte
	// rawKey is a member's key as written (quoted); nil for an element.
	rawKey []byte
	key    string
	// colon is what lies between the key and the value: whitespace, ':'
	// and whitespace.
	colon []byte
	val   *node
	trail []byte
	// keyPos is the key's offset in the source, for errors.
	keyPos int
}

// document is a parsed file: whitespace, one value, whitespace.
type document struct {
	head []byte
	root *node
	tail []byte
}

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// parseDocument parses src. Its errors are [*yamlfile.Error]s naming name,
// the line and the column.
func parseDocument(name string, src []byte) (*document, error) {
	p := &parser{name: name, src: src}
	d := &document{head: p.space()}
	root, err := p.value(0)
	if err != nil {
		return nil, err
	}
	d.root = root
	d.tail = p.space()
	if p.pos < len(src) {
		return nil, p.errorf(p.pos, "%s after the top-level value", p.describe())
	}
	return d, nil
}

// bytes prints the document.
func (d *document) bytes() []byte {
	b := append([]byte(nil), d.head...)
	b = d.root.appendTo(b)
	return append(b, d.tail...)
}

func (n *node) appendTo(b []byte) []byte {
	switch n.kind {
	case scalarKind:
		return append(b, n.raw...)
	case objectKind:
		b = append(b, '{')
	default:
		b = append(b, '[')
	}
	for i, it := range n.items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it.lead...)
		if it.rawKey != nil {
			b = append(b, it.rawKey...)
			b = append(b, it.colon...)
		}
		b = it.val.appendTo(b)
		if i < len(n.items)-1 {
			b = append(b, it.trail...)
		}
	}
	b = append(b, n.close...)
	if n.kind == objectKind {
		return append(b, '}')
	}
	return append(b, ']')
}

type parser struct {
	name string
	src  []byte
	pos  int
}

func (p *parser) space() []byte {
	start := p.pos
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
			continue
		}
		break
	}
	return p.src[start:p.pos]
}

func (p *parser) value(depth int) (*node, error) {
	if depth > maxDepth {
		return nil, p.errorf(p.pos, "nested too deeply")
	}
	if p.pos == len(p.src) {
		return nil, p.errorf(p.pos, "unexpected end of file: want a value")
	}
	start := p.pos
	switch c := p.src[p.pos]; {
	case c == '{' || c == '[':
		return p.container(depth)
	case c == '"':
		if err := p.string(); err != nil {
			return nil, err
		}
	case c == '-' || '0' <= c && c <= '9':
		if err := p.number(); err != nil {
			return nil, err
		}
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.src[p.pos:], []byte(lit)) {
				p.pos += len(lit)
				break
			}
		}
		if p.pos == start {
			return nil, p.errorf(p.pos, "%s: want a value", p.describe())
		}
	default:
		return nil, p.errorf(p.pos, "%s: want a value", p.describe())
	}
	return &node{kind: scalarKind, raw: p.src[start:p.pos], pos: start}, nil
}

// container parses an object or an array.
func (p *parser) container(depth int) (*node, error) {
	n := &node{kind: objectKind, pos: p.pos}
	closer := byte('}')
	if p.src[p.pos] == '[' {
		n.kind, closer = arrayKind, ']'
	}
	p.pos++
	lead := p.space()
	if p.pos < len(p.src) && p.src[p.pos] == closer {
		n.close = lead
		p.pos++
		return n, nil
	}
	for {
		it := &item{lead: lead}
		if n.kind == objectKind {
			if p.pos == len(p.src) || p.src[p.pos] != '"' {
				if len(n.items) > 0 && p.pos < len(p.src) && p.src[p.pos] == '}' {
					return nil, p.errorf(p.pos, "a comma before '}': JSON allows no trailing comma")
				}
				return nil, p.errorf(p.pos, "%s: want a key in double quotes", p.describe())
			}
			it.keyPos = p.pos
			if err := p.string(); err != nil {
				return nil, err
			}
			it.rawKey = p.src[it.keyPos:p.pos]
			if err := json.Unmarshal(it.rawKey, &it.key); err != nil {
				return nil, p.errorf(it.keyPos, "bad key: %v", err)
			}
			colonStart := p.pos
			p.space()
			if p.pos == len(p.src) || p.src[p.pos] != ':' {
				return nil, p.errorf(p.pos, "%s: want ':' after the key", p.describe())
			}
			p.pos++
			p.space()
			it.colon = p.src[colonStart:p.pos]
		} else if len(n.items) > 0 && p.pos < len(p.src) && p.src[p.pos] == ']' {
			return nil, p.errorf(p.pos, "a comma before ']': JSON allows no trailing comma")
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		it.val = v
		n.items = append(n.items, it)
		after := p.space()
		if p.pos == len(p.src) {
			return nil, p.errorf(p.pos, "unexpected end of file: want ',' or '%c'", closer)
		}
		switch p.src[p.pos] {
		case ',':
			it.trail = after
			p.pos++
			lead = p.space()
		case closer:
			n.close = after
			p.pos++
			return n, nil
		default:
			return nil, p.errorf(p.pos, "%s: want ',' or '%c'", p.describe(), closer)
		}
	}
}

func (p *parser) string() error {
	start := p.pos
	p.pos++
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			return nil
		case c == '\\':
			if p.pos+1 == len(p.src) {
				return p.errorf(start, "unterminated string")
			}
			switch p.src[p.pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.pos += 2
			case 'u':
				for i := 2; i < 6; i++ {
					if p.pos+i >= len(p.src) || !isHex(p.src[p.pos+i]) {
						return p.errorf(p.pos, `bad \u escape in a string`)
					}
				}
				p.pos += 6
			default:
				return p.errorf(p.pos, "bad escape \\%c in a string", p.src[p.pos+1])
			}
		case c < 0x20:
			return p.errorf(p.pos, "a control character (%#02x) in a string: write it as an escape", c)
		default:
			p.pos++
		}
	}
	return p.errorf(start, "unterminated string")
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (p *parser) number() error {
	start := p.pos
	digits := func() int {
		n := 0
		for p.pos < len(p.src) && '0' <= p.src[p.pos] && p.src[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.src[p.pos] == '-' {
		p.pos++
	}
	switch {
	case p.pos < len(p.src) && p.src[p.pos] == '0':
		p.pos++
	case digits() == 0:
		return p.errorf(start, "bad number")
	}
	if p.pos < len(p.src) && p.src[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return p.errorf(start, "bad number")
		}
	}
	if p.pos < len(p.src) && (p.src[p.pos] == 'e' || p.src[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.src) && (p.src[p.pos] == '+' || p.src[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return p.errorf(start, "bad number")
		}
	}
	return nil
}

// describe names what is at the parser's position, for errors.
func (p *parser) describe() string {
	if p.pos >= len(p.src) {
		return "unexpected end of file"
	}
	rest := p.src[p.pos:]
	if bytes.HasPrefix(rest, []byte("//")) || bytes.HasPrefix(rest, []byte("/*")) {
		return "a comment (JSON has none; these files must be plain JSON)"
	}
	r, _ := utf8.DecodeRune(rest)
	if r == utf8.RuneError {
		return fmt.Sprintf("unexpected byte %#02x", rest[0])
	}
	return fmt.Sprintf("unexpected %q", r)
}

func (p *parser) errorf(pos int, format string, args ...any) error {
	line, col := lineCol(p.src, pos)
	return &yamlfile.Error{File: p.name, Line: line, Column: col, Msg: fmt.Sprintf(format, args...)}
}

// lineCol returns the 1-based line and column (in characters) of offset
// pos in src.
func lineCol(src []byte, pos int) (line, col int) {
	pos = min(pos, len(src))
	before := src[:pos]
	line = 1 + bytes.Count(before, []byte{'\n'})
	lineStart := bytes.LastIndexByte(before, '\n') + 1
	return line, 1 + utf8.RuneCount(before[lineStart:])
}

// member returns the member of object n named key. A key that appears
// more than once is an error: the agents would read one of them, and
// editing the other would change nothing.
func (n *node) member(name string, src []byte, key string) (*item, error) {
	var found *item
	for _, it := range n.items {
		if it.key != key {
			continue
		}
		if found != nil {
			line, col := lineCol(src, it.keyPos)
			return nil, &yamlfile.Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("%q appears twice in one object", key)}
		}
		found = it
	}
	return found, nil
}

// kindName names a value's JSON type, for errors.
func (n *node) kindName() string {
	switch n.kind {
	case objectKind:
		return "an object"
	case arrayKind:
		return "a list"
	}
	switch n.raw[0] {
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// str returns the string a scalar holds, if it is a string.
func (n *node) str() (string, bool) {
	if n.kind != scalarKind || n.raw[0] != '"' {
		return "", false
	}
	var s string
	if json.Unmarshal(n.raw, &s) != nil {
		return "", false
	}
	return s, true
}
