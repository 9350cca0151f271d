package yamlfile

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// step is one element of a YAML path: a mapping key, or a list index when
// key is empty and index is set.
type step struct {
	key   string
	index int
}

// explain adds to e, an error decoding f into a value of type t, the key
// path of the value it is about, found from its position, and says in
// words what was wanted: the decoder knows only Go types ("cannot unmarshal
// string into Go struct field File.Providers of type int") and the one key
// it stumbled on.
func explain(e *Error, f *ast.File, t reflect.Type) {
	if e.Key != "" || e.Line == 0 || f == nil || len(f.Docs) == 0 {
		return
	}
	path, value := nodeAt(f.Docs[0].Body, nil, e.Line, e.Column)
	if path == nil {
		return
	}
	e.Key = pathString(path)
	switch {
	case strings.HasPrefix(e.Msg, "unknown field"):
		parent := path[:len(path)-1]
		if st := typeAt(t, parent); st != nil && st.Kind() == reflect.Struct {
			what := "the top level takes"
			if len(parent) > 0 {
				what = strings.TrimPrefix(pathString(parent), "$.") + " takes"
			}
			e.Msg = fmt.Sprintf("unknown key (%s %s; keys are case-sensitive)", what, strings.Join(fieldKeys(st), ", "))
		}
	case strings.HasPrefix(e.Msg, "cannot unmarshal"):
		if value == nil {
			break
		}
		if lt := typeAt(t, path); lt != nil {
			e.Msg = fmt.Sprintf("want %s, got %s", describeType(lt), describeNode(value))
		}
	}
}

// nodeAt returns the path of the mapping entry or list item whose key or
// value starts at line:col, and the value when it is the value that starts
// there.
func nodeAt(n ast.Node, path []step, line, col int) ([]step, ast.Node) {
	switch m := unwrap(n).(type) {
	case *ast.MappingNode:
		for _, mv := range m.Values {
			k, ok := mv.Key.(*ast.StringNode)
			if !ok {
				continue
			}
			p := append(append([]step(nil), path...), step{key: k.Value})
			if at(k, line, col) {
				return p, nil
			}
			if found, v := valueAt(mv.Value, p, line, col); found != nil {
				return found, v
			}
		}
	case *ast.SequenceNode:
		for i, item := range m.Values {
			p := append(append([]step(nil), path...), step{index: i})
			if found, v := valueAt(item, p, line, col); found != nil {
				return found, v
			}
		}
	}
	return nil, nil
}

// valueAt is [nodeAt] for the value at path, which may itself start at
// line:col.
func valueAt(v ast.Node, path []step, line, col int) ([]step, ast.Node) {
	if at(v, line, col) || at(unwrap(v), line, col) {
		return path, unwrap(v)
	}
	return nodeAt(v, path, line, col)
}

// unwrap returns the value under a tag or an anchor.
func unwrap(n ast.Node) ast.Node {
	for {
		switch t := n.(type) {
		case *ast.TagNode:
			n = t.Value
		case *ast.AnchorNode:
			n = t.Value
		default:
			return n
		}
	}
}

func at(n ast.Node, line, col int) bool {
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return false
	}
	pos := n.GetToken().Position
	return pos.Line == line && pos.Column == col
}

// pathString writes a path as a YAML path: $.providers.local.models[0].id.
func pathString(path []step) string {
	var b strings.Builder
	b.WriteString("$")
	for _, s := range path {
		if s.key == "" {
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			continue
		}
		b.WriteString(".")
		b.WriteString(Quote(s.key))
	}
	return b.String()
}

// typeAt returns the Go type decoded at path below a value of type t, or
// nil when path leads nowhere in it.
func typeAt(t reflect.Type, path []step) reflect.Type {
	for _, s := range path {
		t = deref(t)
		if t == nil {
			return nil
		}
		switch t.Kind() {
		case reflect.Struct:
			f, ok := fieldByKey(t, s.key)
			if !ok || s.key == "" {
				return nil
			}
			t = f.Type
		case reflect.Map:
			if s.key == "" {
				return nil
			}
			t = t.Elem()
		case reflect.Slice, reflect.Array:
			if s.key != "" {
				return nil
			}
			t = t.Elem()
		default:
			return nil
		}
	}
	return deref(t)
}

func deref(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func fieldByKey(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && fieldKey(f) == key {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// fieldKeys returns the keys a struct takes, in its order.
func fieldKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		if f := t.Field(i); f.IsExported() && fieldKey(f) != "-" {
			keys = append(keys, fieldKey(f))
		}
	}
	return keys
}

// fieldKey returns the key of a struct field, by the decoder's rule: the
// yaml tag's name, else the json tag's, else the field's name in lower
// case.
func fieldKey(f reflect.StructField) string {
	tag, ok := f.Tag.Lookup("yaml")
	if !ok {
		tag = f.Tag.Get("json")
	}
	if name, _, _ := strings.Cut(tag, ","); name != "" {
		return name
	}
	return strings.ToLower(f.Name)
}

func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, 0 or more"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return t.String()
}

// describeNode names what a value is, quoting a scalar (cut short, with
// control characters escaped, since it is printed to a terminal).
func describeNode(n ast.Node) string {
	switch n.(type) {
	case *ast.SequenceNode:
		return "a list"
	case *ast.MappingNode:
		return "a mapping"
	}
	v := n.GetToken().Value
	if r := []rune(v); len(r) > 40 {
		v = string(r[:40]) + "…"
	}
	return strconv.Quote(v)
}
