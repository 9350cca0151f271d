package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// explain adds to a decoding error the key it is about, found from its
// position in f, and says in the settings' own words what was wanted: the
// decoder knows only Go types and the one key it stumbled on.
func explain(err error, f *ast.File) error {
	var e *yamlfile.Error
	if !errors.As(err, &e) || e.Key != "" || e.Line == 0 || len(f.Docs) == 0 {
		return err
	}
	path, value := nodeAt(f.Docs[0].Body, nil, e.Line, e.Column)
	if path == nil {
		return err
	}
	e.Key = yamlPath(path)
	switch {
	case strings.HasPrefix(e.Msg, "unknown field"):
		parent := strings.Join(path[:len(path)-1], ".")
		if t := groupType(path[:len(path)-1]); t != nil {
			what := parent + " takes"
			if parent == "" {
				what = "the top level takes"
			}
			e.Msg = fmt.Sprintf("unknown key (%s %s; keys are case-sensitive)", what, strings.Join(fieldKeys(t), ", "))
		}
	case strings.HasPrefix(e.Msg, "cannot unmarshal"):
		if value == nil {
			break
		}
		if t := leafType(path); t != nil {
			e.Msg = fmt.Sprintf("want %s, got %s", describeType(t), describeNode(value))
		}
	}
	return e
}

// nodeAt returns the key path of the mapping entry whose key or value
// starts at line:col, and the value when it is the value that starts there.
func nodeAt(n ast.Node, path []string, line, col int) ([]string, ast.Node) {
	m, ok := n.(*ast.MappingNode)
	if !ok {
		return nil, nil
	}
	for _, mv := range m.Values {
		k, ok := mv.Key.(*ast.StringNode)
		if !ok {
			continue
		}
		p := append(append([]string(nil), path...), k.Value)
		if at(k, line, col) {
			return p, nil
		}
		if at(mv.Value, line, col) {
			return p, mv.Value
		}
		if found, v := nodeAt(mv.Value, p, line, col); found != nil {
			return found, v
		}
	}
	return nil, nil
}

func at(n ast.Node, line, col int) bool {
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return false
	}
	pos := n.GetToken().Position
	return pos.Line == line && pos.Column == col
}

// groupType returns the struct type of the settings group at path (the top
// for no path), or nil.
func groupType(path []string) reflect.Type {
	t := reflect.TypeFor[Settings]()
	for _, seg := range path {
		f, ok := fieldByKey(t, seg)
		if !ok || f.Type.Kind() != reflect.Struct {
			return nil
		}
		t = f.Type
	}
	return t
}

func fieldKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		keys = append(keys, yamlKey(t.Field(i)))
	}
	return keys
}

func describeNode(n ast.Node) string {
	switch n.(type) {
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode:
		return "a mapping"
	}
	return fmt.Sprintf("%q", n.GetToken().Value)
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.String:
		return "a string"
	}
	return t.String()
}

// checkKeys rejects mapping keys that are not names (10, true, [a]): the
// decoder skips those silently, even in strict mode, and with them the
// rest of their mapping.
func checkKeys(name string, f *ast.File) error {
	var c keyChecker
	for _, doc := range f.Docs {
		ast.Walk(&c, doc.Body)
	}
	if c.bad == nil {
		return nil
	}
	e := &yamlfile.Error{File: name, Msg: fmt.Sprintf("key %s is not a name; quote it if it is meant as one", c.bad.GetToken().Value)}
	if pos := c.bad.GetToken().Position; pos != nil {
		e.Line, e.Column = pos.Line, pos.Column
	}
	return e
}

// keyChecker finds the first mapping key that is neither a name nor a
// merge key (<<).
type keyChecker struct{ bad ast.Node }

func (c *keyChecker) Visit(n ast.Node) ast.Visitor {
	if c.bad != nil {
		return nil
	}
	if mv, ok := n.(*ast.MappingValueNode); ok {
		switch mv.Key.(type) {
		case *ast.StringNode, *ast.MergeKeyNode:
		default:
			c.bad = mv.Key
			return nil
		}
	}
	return c
}
