package yamlfile

import (
	"fmt"
	"unicode/utf8"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/lexer"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// The limits on a file [Parse] and [Decode] accept. A settings file is a
// page or two; these are far above any real one and low enough that the
// YAML library's work on a file at every limit stays under a second and a
// hundred megabytes. A file over a limit is refused before anything is
// built from it.
const (
	// MaxSize is the largest file, in bytes.
	MaxSize = 1 << 20
	// MaxTokens bounds the YAML tokens in a file, counted generously (every
	// indicator character and every word, in comments and strings too).
	// The library's lexer and parser take memory in proportion to them, a
	// few hundred bytes each.
	MaxTokens = 50_000
	// MaxDepth bounds how deeply collections nest, in flow ([ {) and block
	// (indentation) style together. The parser recurses once per level and
	// never returns from some deep inputs.
	MaxDepth = 64
	// MaxKeys bounds the keys of one block-style mapping: the parser's
	// work grows with the square of them (ten thousand take 400 MB).
	MaxKeys = 500
	// MaxNodes bounds the values a file holds once every alias is replaced
	// by what its anchor stands for: decoding copies an anchored value for
	// each alias, so nine levels of ten aliases (a "billion laughs") are a
	// billion values from a few hundred bytes.
	MaxNodes = 100_000
	// maxExpandedBytes bounds the scalar text the same expansion yields,
	// for a few aliases of one huge string.
	maxExpandedBytes = 16 * MaxSize
)

// Parse checks data against the limits and parses it, after a leading
// UTF-8 byte-order mark (refusing UTF-16 text). name is used in errors, which are [*Error]s with the line and column where a limit was
// passed or the syntax went wrong.
func Parse(name string, data []byte) (f *ast.File, err error) {
	// The lexer and parser of goccy/go-yaml v1.19.2 panic on some
	// malformed input (found by fuzzing); report it as a bad file.
	defer func() {
		if r := recover(); r != nil {
			f, err = nil, &Error{File: name, Msg: fmt.Sprintf("cannot parse this file (the YAML parser failed: %v)", r)}
		}
	}()
	if data, err = prepare(name, data); err != nil {
		return nil, err
	}
	if err := scanBytes(name, data); err != nil {
		return nil, err
	}
	tokens := lexer.Tokenize(string(data))
	if err := checkNesting(name, tokens); err != nil {
		return nil, err
	}
	f, err = parser.Parse(tokens, 0)
	if err != nil {
		return nil, wrap(name, err)
	}
	if err := checkExpansion(name, f); err != nil {
		return nil, err
	}
	return f, nil
}

// scanBytes checks the size, the text and the token count of data in one
// pass over its bytes, before the lexer (which takes a few hundred bytes of
// memory for each token) sees it.
func scanBytes(name string, data []byte) error {
	if len(data) > MaxSize {
		return &Error{File: name, Msg: fmt.Sprintf("is larger than %s, the limit for a settings file", sizeText(MaxSize)), Err: errTooLarge}
	}
	line, col := 1, 1
	tokens := 0
	inWord := false
	for i := 0; i < len(data); {
		c := data[i]
		size := 1
		switch {
		case c == '\n':
			line, col, inWord = line+1, 1, false
			i++
			continue
		case c == ' ' || c == '\t' || c == '\r':
			inWord = false
		case c < 0x20 || c == 0x7f:
			return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("holds the control character %U; a settings file is printable text", c)}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("is not UTF-8 text (byte %#x)", c)}
			}
			size = n
			if !inWord {
				tokens++
			}
			inWord = true
		case isIndicator(c):
			// Each indicator may start a token of its own.
			tokens++
			inWord = false
		default:
			if !inWord {
				tokens++
			}
			inWord = true
		}
		if tokens > MaxTokens {
			return &Error{File: name, Line: line, Column: col, Msg: fmt.Sprintf("holds more than %d YAML tokens; a settings file may hold at most that many", MaxTokens)}
		}
		i += size
		col++
	}
	return nil
}

func isIndicator(c byte) bool {
	switch c {
	case '[', ']', '{', '}', ',', ':', '-', '?', '#', '&', '*', '!', '|', '>', '\'', '"', '%', '@', '`':
		return true
	}
	return false
}

// checkNesting follows the nesting of tokens, flow collections by their
// brackets and block ones by the columns their entries start at (a deeper
// level starts further right), and counts the keys of each block mapping.
func checkNesting(name string, tokens token.Tokens) error {
	type level struct{ col, keys int }
	flow := 0
	var block []level // the open block collections
	for _, tk := range tokens {
		start := tk // where the entry tk belongs to starts
		switch tk.Type {
		case token.SequenceStartType, token.MappingStartType:
			flow++
		case token.SequenceEndType, token.MappingEndType:
			flow = max(flow-1, 0)
		case token.SequenceEntryType, token.MappingKeyType, token.MappingValueType:
			if flow > 0 {
				continue
			}
			if tk.Type == token.MappingValueType && tk.Prev != nil {
				start = tk.Prev // the key
			}
			col := start.Position.Column
			for len(block) > 0 && block[len(block)-1].col > col {
				block = block[:len(block)-1]
			}
			if len(block) == 0 || block[len(block)-1].col < col {
				block = append(block, level{col: col})
			}
			top := &block[len(block)-1]
			if tk.Type == token.MappingValueType {
				top.keys++
			}
			if top.keys > MaxKeys {
				return &Error{File: name, Line: start.Position.Line, Column: start.Position.Column, Msg: fmt.Sprintf("has more than %d keys in one mapping; a settings file may have at most that many", MaxKeys)}
			}
		default:
			continue
		}
		if flow+len(block) > MaxDepth {
			return &Error{File: name, Line: start.Position.Line, Column: start.Position.Column, Msg: fmt.Sprintf("nests more than %d levels deep; a settings file may nest at most that deep", MaxDepth)}
		}
	}
	return nil
}

// checkExpansion counts the values of f with every alias standing for its
// anchor's values, as decoding will make them, and stops at the alias
// where the count passes the limit.
func checkExpansion(name string, f *ast.File) error {
	x := &expansion{anchors: map[string]weight{}}
	for _, doc := range f.Docs {
		ast.Walk(x, doc.Body)
		if x.over != nil {
			e := &Error{File: name, Msg: fmt.Sprintf("aliases here expand the file to more than %d values or %s of text, as a \"billion laughs\" file does; a settings file may hold at most that", MaxNodes, sizeText(maxExpandedBytes))}
			if tk := x.over.GetToken(); tk != nil && tk.Position != nil {
				e.Line, e.Column = tk.Position.Line, tk.Position.Column
			}
			return e
		}
	}
	return nil
}

// weight is what a part of a file becomes once decoded: values, and bytes
// of scalar text.
type weight struct{ nodes, bytes int }

// expansion is an [ast.Visitor] that adds up the weight of what it walks,
// in document order, so an alias stands for the anchor defined last before
// it, as in YAML.
type expansion struct {
	weight
	anchors map[string]weight
	over    ast.Node // the node at which the total passed a limit
}

func (x *expansion) Visit(n ast.Node) ast.Visitor {
	if x.over != nil || n == nil {
		return nil
	}
	switch n := n.(type) {
	case *ast.CommentGroupNode, *ast.CommentNode:
		return nil
	case *ast.AnchorNode:
		before := x.weight
		ast.Walk(x, n.Value)
		if n.Name != nil {
			x.anchors[n.Name.GetToken().Value] = weight{x.nodes - before.nodes, x.bytes - before.bytes}
		}
		return nil
	case *ast.AliasNode:
		w := weight{nodes: 1}
		if n.Value != nil {
			if a, ok := x.anchors[n.Value.GetToken().Value]; ok {
				w = a
			}
		}
		x.add(w, n)
		return nil
	}
	w := weight{nodes: 1}
	if tk := n.GetToken(); tk != nil {
		w.bytes = len(tk.Value)
	}
	x.add(w, n)
	return x
}

// add adds w; the totals stay within twice the limits, so they cannot
// overflow.
func (x *expansion) add(w weight, at ast.Node) {
	x.nodes += w.nodes
	x.bytes += w.bytes
	if x.nodes > MaxNodes || x.bytes > maxExpandedBytes {
		x.over = at
	}
}

// sizeText writes a byte count for people: 1 MiB, 3.2 MiB, 512 KiB, 10 bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
