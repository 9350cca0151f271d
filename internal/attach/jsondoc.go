package attach

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tailscale/hujson"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// This file reads a settings file into a hujson tree, which keeps every
// byte of the source: packing a parsed document with no edits gives back
// exactly what was parsed. The files must be plain JSON, so encoding/json's
// scanner checks them first (and explains what is wrong); hujson, which
// also reads comments and trailing commas, only sees files it accepted.

// maxDepth bounds nesting: it is encoding/json's limit, which the check
// before parsing enforces, so hujson's recursive parser never goes deeper.
const maxDepth = 10000

// document is a parsed file.
type document struct {
	// root is the top-level value; its BeforeExtra and AfterExtra are the
	// whitespace before and after it.
	root hujson.Value
}

// parseDocument parses src. Its errors are [*yamlfile.Error]s naming name,
// the line and the column.
func parseDocument(name string, src []byte) (*document, error) {
	if !json.Valid(src) {
		return nil, syntaxError(name, src)
	}
	v, err := hujson.Parse(src)
	if err != nil {
		// hujson reads a superset of JSON: this cannot happen.
		return nil, &yamlfile.Error{File: name, Msg: err.Error()}
	}
	return &document{root: v}, nil
}

// bytes prints the document.
func (d *document) bytes() []byte { return d.root.Pack() }

// syntaxError explains why src, which is not JSON, is not: where
// encoding/json's scanner stopped, and what it wanted there.
func syntaxError(name string, src []byte) error {
	pos, msg := explain(src)
	line, col := lineCol(src, pos)
	return &yamlfile.Error{File: name, Line: line, Column: col, Msg: msg}
}

// explain returns the offset in src of what makes it invalid JSON and
// the message for it.
func explain(src []byte) (int, string) {
	// The scanner is given one more byte, which no state accepts: it
	// stops at the first byte of src that is wrong, or at that one when
	// src ends before its value does (and then names the state it was in).
	pos, context, ok := scanError(append(bytes.Clone(src), 0x01))
	if !ok {
		return len(src), "unexpected end of file"
	}
	eof := pos == len(src)
	switch {
	case context == "exceeded max depth":
		return pos, "nested too deeply"
	case context == "looking for beginning of value":
		if !eof && src[pos] == ']' && lastNonSpace(src, pos) == ',' {
			return pos, "a comma before ']': JSON allows no trailing comma"
		}
		return pos, describe(src, pos) + ": want a value"
	case context == "looking for beginning of object key string":
		if !eof && src[pos] == '}' {
			// Only a comma comes before a '}' that does not close.
			return pos, "a comma before '}': JSON allows no trailing comma"
		}
		return pos, describe(src, pos) + ": want a key in double quotes"
	case context == "after object key":
		return pos, describe(src, pos) + ": want ':' after the key"
	case context == "after object key:value pair":
		return pos, describe(src, pos) + ": want ',' or '}'"
	case context == "after array element":
		return pos, describe(src, pos) + ": want ',' or ']'"
	case context == "after top-level value":
		return pos, describe(src, pos) + " after the top-level value"
	case context == "in string literal" || context == "in string escape code":
		switch {
		case eof:
			return stringStart(src, pos), "unterminated string"
		case context == "in string literal":
			return pos, fmt.Sprintf("a control character (%#02x) in a string: write it as an escape", src[pos])
		}
		return pos - 1, fmt.Sprintf("bad escape \\%c in a string", src[pos])
	case context == `in \u hexadecimal character escape`:
		return bytes.LastIndexByte(src[:pos], '\\'), `bad \u escape in a string`
	case strings.HasSuffix(context, "numeric literal"):
		return tokenStart(src, pos, "0123456789+-.eE"), "bad number"
	case strings.HasPrefix(context, "in literal "):
		start := tokenStart(src, pos, "abcdefghijklmnopqrstuvwxyz")
		return start, describe(src, start) + ": want a value"
	}
	return pos, context
}

// scanError runs encoding/json's scanner over src and returns the offset
// of the byte it refused and the context it names ("after array
// element"); ok is false when it refused none.
func scanError(src []byte) (pos int, context string, ok bool) {
	var serr *json.SyntaxError
	if !errors.As(json.Unmarshal(src, new(json.RawMessage)), &serr) {
		return 0, "", false
	}
	msg, ok := strings.CutPrefix(serr.Error(), "invalid character ")
	if !ok {
		return 0, "", false
	}
	// What follows the quoted character (as in '\'' or '\x01').
	if i := strings.Index(msg[1:], "' "); i >= 0 {
		context = msg[i+3:]
	}
	return int(serr.Offset) - 1, context, true
}

// lastNonSpace returns the last byte before pos that is not JSON
// whitespace, 0 when there is none.
func lastNonSpace(src []byte, pos int) byte {
	if i := bytes.LastIndexFunc(src[:pos], func(r rune) bool { return !strings.ContainsRune(" \t\r\n", r) }); i >= 0 {
		return src[i]
	}
	return 0
}

// tokenStart returns where the token that holds the byte before pos
// starts: the first of the bytes of set that run up to pos.
func tokenStart(src []byte, pos int, set string) int {
	for pos > 0 && strings.IndexByte(set, src[pos-1]) >= 0 {
		pos--
	}
	return pos
}

// stringStart returns where the string that is open at pos starts: at the
// last quote before pos that no backslash escapes.
func stringStart(src []byte, pos int) int {
	for i := pos - 1; i >= 0; i-- {
		if src[i] != '"' {
			continue
		}
		backslashes := 0
		for j := i - 1; j >= 0 && src[j] == '\\'; j-- {
			backslashes++
		}
		if backslashes%2 == 0 {
			return i
		}
	}
	return 0
}

// describe names what is at offset pos of src, for errors.
func describe(src []byte, pos int) string {
	if pos >= len(src) {
		return "unexpected end of file"
	}
	rest := src[pos:]
	if bytes.HasPrefix(rest, []byte("//")) || bytes.HasPrefix(rest, []byte("/*")) {
		return "a comment (JSON has none; these files must be plain JSON)"
	}
	r, _ := utf8.DecodeRune(rest)
	if r == utf8.RuneError {
		return fmt.Sprintf("unexpected byte %#02x", rest[0])
	}
	return fmt.Sprintf("unexpected %q", r)
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

// member returns the index of the member of obj named key, -1 when there
// is none. A key that appears more than once is an error: the agents
// would read one of them, and editing the other would change nothing.
func member(name string, src []byte, obj *hujson.Object, key string) (int, error) {
	found := -1
	for i, m := range obj.Members {
		if !keyIs(m.Name, key) {
			continue
		}
		if found >= 0 {
			line, col := lineCol(src, m.Name.StartOffset)
			return -1, &yamlfile.Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("%q appears twice in one object", key)}
		}
		found = i
	}
	return found, nil
}

// keyIs tells whether a member's name is key. Names without escapes are
// compared as written; the keys vigil looks for are plain ASCII.
func keyIs(name hujson.Value, key string) bool {
	lit, _ := name.Value.(hujson.Literal)
	if len(lit) >= 2 && bytes.IndexByte(lit, '\\') < 0 {
		return string(lit[1:len(lit)-1]) == key
	}
	return lit.String() == key
}

// keyOf returns a member's name, unquoted.
func keyOf(name hujson.Value) string {
	lit, _ := name.Value.(hujson.Literal)
	return lit.String()
}

// kindName names a value's JSON type, for errors.
func kindName(v hujson.Value) string {
	switch v.Value.Kind() {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// str returns the string a value holds, if it is a string.
func str(v hujson.Value) (string, bool) {
	lit, ok := v.Value.(hujson.Literal)
	if !ok || lit.Kind() != '"' {
		return "", false
	}
	return lit.String(), true
}

// literal returns the token of a value that is neither an object nor a
// list, nil for one that is.
func literal(v hujson.Value) []byte {
	lit, _ := v.Value.(hujson.Literal)
	return lit
}
