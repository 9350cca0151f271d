package config

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// setKey returns data with the value at path set to text, a YAML scalar,
// creating the mappings on the way as needed.
//
// It edits the text itself, using goccy/go-yaml's syntax tree only to find
// where, so every other byte stays as it was. When the file's shape defeats
// that (flow mappings such as {a: 1}, anchors, values over several lines),
// it edits the syntax tree and prints it again, which keeps comments but
// normalises spacing (one space before a trailing comment, no blank lines
// at the ends, \n line ends). Either way the result is checked: decoded, it
// must equal the old data with that one value changed, or nothing is
// returned.
func setKey(data []byte, path []string, text string) ([]byte, error) {
	want, err := expected(data, path, text)
	if err != nil {
		return nil, err
	}
	if out, ok := splice(data, path, text); ok && decodesTo(out, want) {
		return out, nil
	}
	if out, err := rewrite(data, path, text); err == nil && decodesTo(out, want) {
		return out, nil
	}
	return nil, errors.New("cannot change this file's layout safely; edit it by hand")
}

// expected returns what data should decode to once the value at path is
// text.
func expected(data []byte, path []string, text string) (map[string]any, error) {
	var doc any
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	var val any
	if err := yaml.Unmarshal([]byte(text), &val); err != nil {
		return nil, fmt.Errorf("value %s: %w", text, err)
	}
	top, ok := doc.(map[string]any)
	if doc == nil {
		top = map[string]any{}
	} else if !ok {
		return nil, errors.New("the file is not a mapping of settings")
	}
	m := top
	for i, seg := range path[:len(path)-1] {
		switch next := m[seg].(type) {
		case map[string]any:
			m = next
		case nil:
			n := map[string]any{}
			m[seg] = n
			m = n
		default:
			return nil, fmt.Errorf("%s holds a value, not a mapping", strings.Join(path[:i+1], "."))
		}
	}
	m[path[len(path)-1]] = val
	return top, nil
}

// decodesTo reports whether data decodes to want, both as plain YAML and,
// without error, as settings (the two decoders disagree on odd input such
// as a lone tag).
func decodesTo(data []byte, want map[string]any) bool {
	var s Settings
	if err := yaml.UnmarshalWithOptions(data, &s, yaml.Strict()); err != nil {
		return false
	}
	var got any
	if err := yaml.Unmarshal(data, &got); err != nil {
		return false
	}
	if got == nil {
		got = map[string]any{}
	}
	return reflect.DeepEqual(got, any(want))
}

// splice edits data as text. It reports false when the file's shape is one
// it does not handle.
func splice(data []byte, path []string, text string) ([]byte, bool) {
	f, err := parser.ParseBytes(data, parser.ParseComments)
	if err != nil || len(f.Docs) > 1 {
		return nil, false
	}
	nl := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		nl = "\r\n"
	}
	var body ast.Node
	if len(f.Docs) == 1 {
		body = f.Docs[0].Body
	}
	switch body.(type) {
	case nil, *ast.CommentGroupNode:
		return appendLines(data, block(path, text, 0, nl), nl), true
	}
	m, ok := body.(*ast.MappingNode)
	if !ok || m.IsFlowStyle || len(m.Values) == 0 {
		return nil, false
	}
	keyLine := 0 // the line of the key m is the value of; 0 at the top
	for i, seg := range path {
		mv := findKey(m, seg)
		if mv == nil {
			indent := m.Values[0].Key.GetToken().Position.Column - 1
			last := lastLine(data, keyLine, indent)
			if last == 0 {
				return nil, false
			}
			return insertAfterLine(data, last, block(path[i:], text, indent, nl), nl)
		}
		if i == len(path)-1 {
			return replaceScalar(data, mv.Value, text)
		}
		switch v := mv.Value.(type) {
		case *ast.MappingNode:
			if v.IsFlowStyle || len(v.Values) == 0 {
				return nil, false
			}
			m, keyLine = v, mv.Key.GetToken().Position.Line
		case *ast.NullNode:
			// "advisor:" with nothing below it.
			k := mv.Key.GetToken().Position
			return insertAfterLine(data, k.Line, block(path[i+1:], text, k.Column+1, nl), nl)
		default:
			return nil, false
		}
	}
	return nil, false
}

// lastLine returns the last line, after line from, that holds something
// other than white space or a comment and belongs to the block mapping
// whose keys are indented by indent: the line before the first one indented
// less. Comments and blank lines after it stay with what follows.
func lastLine(data []byte, from, indent int) int {
	last := 0
	n := 0
	for line := range strings.Lines(string(data)) {
		n++
		if n <= from {
			continue
		}
		trimmed := strings.TrimLeft(line, " ")
		content := strings.TrimSpace(trimmed)
		if content == "" || content[0] == '#' {
			continue
		}
		if len(line)-len(trimmed) < indent {
			break
		}
		last = n
	}
	return last
}

func findKey(m *ast.MappingNode, key string) *ast.MappingValueNode {
	for _, mv := range m.Values {
		if k, ok := mv.Key.(*ast.StringNode); ok && k.Value == key {
			return mv
		}
	}
	return nil
}

// block returns the lines that set path to text in a mapping indented by
// indent spaces.
func block(path []string, text string, indent int, nl string) string {
	var b strings.Builder
	for i, seg := range path {
		b.WriteString(strings.Repeat(" ", indent+2*i))
		b.WriteString(yamlString(seg))
		b.WriteString(":")
		if i == len(path)-1 {
			b.WriteString(" ")
			b.WriteString(text)
		}
		b.WriteString(nl)
	}
	return b.String()
}

func appendLines(data []byte, lines, nl string) []byte {
	out := bytes.Clone(data)
	if len(out) > 0 && out[len(out)-1] != '\n' {
		out = append(out, nl...)
	}
	return append(out, lines...)
}

// insertAfterLine inserts lines after the 1-based line n of data.
func insertAfterLine(data []byte, n int, lines, nl string) ([]byte, bool) {
	off, ok := offsetOf(data, n, 1)
	if !ok {
		return nil, false
	}
	end := bytes.IndexByte(data[off:], '\n')
	if end < 0 {
		return appendLines(data, lines, nl), true
	}
	at := off + end + 1
	return concat(data[:at], lines, data[at:]), true
}

// replaceScalar replaces the scalar value v in data with text.
func replaceScalar(data []byte, v ast.Node, text string) ([]byte, bool) {
	switch v.(type) {
	case *ast.StringNode, *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.NullNode, *ast.InfinityNode, *ast.NanNode:
	default:
		return nil, false
	}
	pos := v.GetToken().Position
	start, ok := offsetOf(data, pos.Line, pos.Column)
	if !ok {
		return nil, false
	}
	end := scalarEnd(data, start)
	if end < 0 {
		return nil, false
	}
	if start == end && start > 0 && data[start-1] == ':' {
		text = " " + text // "key:" with no value
	}
	return concat(data[:start], text, data[end:]), true
}

// scalarEnd returns where the one-line scalar starting at start ends, or -1
// when it does not end on its line.
func scalarEnd(data []byte, start int) int {
	if start >= len(data) {
		return start
	}
	switch data[start] {
	case '\'':
		for i := start + 1; i < len(data); i++ {
			switch {
			case data[i] == '\n':
				return -1
			case data[i] == '\'' && i+1 < len(data) && data[i+1] == '\'':
				i++
			case data[i] == '\'':
				return i + 1
			}
		}
		return -1
	case '"':
		for i := start + 1; i < len(data); i++ {
			switch data[i] {
			case '\\':
				i++
			case '\n':
				return -1
			case '"':
				return i + 1
			}
		}
		return -1
	case '\n', '\r', ' ', '\t', '#':
		return start
	}
	end := start
	for end < len(data) && data[end] != '\n' && data[end] != '\r' {
		if data[end] == '#' && (data[end-1] == ' ' || data[end-1] == '\t') {
			break
		}
		end++
	}
	for end > start && (data[end-1] == ' ' || data[end-1] == '\t') {
		end--
	}
	return end
}

// offsetOf returns the byte offset of a 1-based line and column (counted
// in characters, as goccy/go-yaml counts them).
func offsetOf(data []byte, line, col int) (int, bool) {
	if line < 1 || col < 1 {
		return 0, false
	}
	off := 0
	for range line - 1 {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for range col - 1 {
		if off >= len(data) || data[off] == '\n' {
			return 0, false
		}
		_, size := utf8.DecodeRune(data[off:])
		off += size
	}
	return off, true
}

func concat(before []byte, middle string, after []byte) []byte {
	out := make([]byte, 0, len(before)+len(middle)+len(after))
	out = append(out, before...)
	out = append(out, middle...)
	return append(out, after...)
}

// rewrite edits the syntax tree and prints it again.
func rewrite(data []byte, path []string, text string) (out []byte, err error) {
	defer func() {
		// go-yaml v1.19.2 panics printing some edited trees (a tag with
		// no value, "advisor: !"); such a file is left for the user.
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("print the edited file: %v", r)
		}
	}()
	f, err := parser.ParseBytes(data, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	full, err := yaml.PathString(yamlPath(path))
	if err != nil {
		return nil, err
	}
	if _, err := full.FilterFile(f); err == nil {
		if err := full.ReplaceWithReader(f, strings.NewReader(text)); err != nil {
			return nil, err
		}
		return []byte(f.String()), nil
	}
	for i := len(path) - 1; i >= 0; i-- {
		p, err := yaml.PathString(yamlPath(path[:i]))
		if err != nil {
			return nil, err
		}
		n, err := p.FilterFile(f)
		if err != nil {
			continue
		}
		switch n := n.(type) {
		case *ast.NullNode:
			// "advisor: ~": the value becomes a mapping.
			err = p.ReplaceWithReader(f, strings.NewReader(flow(path[i:], text)))
		case *ast.MappingNode:
			src := block(path[i:], text, 0, "\n")
			if n.IsFlowStyle {
				src = "{" + flow(path[i:], text) + "}"
			}
			err = p.MergeFromReader(f, strings.NewReader(src))
		default:
			return nil, fmt.Errorf("%s is not a mapping", strings.Join(path[:i], "."))
		}
		if err != nil {
			return nil, err
		}
		return []byte(f.String()), nil
	}
	return nil, errors.New("no mapping to add the setting to")
}

// flow returns path set to text as a flow mapping's entries: a: {b: text}.
func flow(path []string, text string) string {
	var b strings.Builder
	for i, seg := range path {
		if i > 0 {
			b.WriteString("{")
		}
		b.WriteString(yamlString(seg))
		b.WriteString(": ")
	}
	b.WriteString(text)
	b.WriteString(strings.Repeat("}", len(path)-1))
	return b.String()
}

// yamlPath returns the YAML path of a dotted key's parts; no parts is the
// top.
func yamlPath(path []string) string {
	var b strings.Builder
	b.WriteString("$")
	for _, seg := range path {
		b.WriteString(".")
		b.WriteString(yamlfile.Quote(seg))
	}
	return b.String()
}
