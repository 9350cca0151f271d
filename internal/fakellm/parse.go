package fakellm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// LoadScript reads and parses the script file at path; see [ParseScript].
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load script: %w", err)
	}
	return ParseScript(path, data)
}

// ParseScript decodes a script from YAML or JSON (JSON is YAML) and validates
// it. Keys are matched exactly and unknown keys are errors. name labels
// errors, which read "NAME:LINE:COL: KEY: problem"; validation errors name the
// rule and step, as in "rules[1].steps[0]: ...", and all of them are reported.
func ParseScript(name string, data []byte) (*Script, error) {
	var s Script
	if err := decode(data, &s); err != nil {
		return nil, decodeError(name, err)
	}
	if json.Valid(data) {
		// YAML reads some JSON numbers differently (1e3 as a string), so
		// read a JSON script again as JSON, for tool arguments.
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var js Script
		if dec.Decode(&js) == nil {
			s = js
		}
	}
	if len(s.Rules) == 0 {
		return nil, fmt.Errorf("%s: script has no rules", name)
	}
	if err := s.Validate(); err != nil {
		return nil, locate(name, data, err)
	}
	return &s, nil
}

// decode decodes data strictly into s. goccy/go-yaml v1.19.2 panics on
// some malformed input (a tagged scalar where a list belongs, found by
// FuzzParseScript), so a panic becomes an error.
func decode(data []byte, s *Script) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("malformed YAML (decoder panic: %v)", r)
		}
	}()
	return yaml.UnmarshalWithOptions(data, s, yaml.Strict())
}

// decodeError formats a goccy/go-yaml error as NAME:LINE:COL: KEY: message.
func decodeError(name string, err error) error {
	var yerr yaml.Error
	if !errors.As(err, &yerr) || yerr.GetToken() == nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	tok := yerr.GetToken()
	msg := yerr.GetMessage()
	var terr *yaml.TypeError
	if errors.As(err, &terr) {
		msg = fmt.Sprintf("want %s, got %s", describeType(terr.DstType), describeType(terr.SrcType))
	}
	if key := keyOf(tok); key != "" && !strings.Contains(msg, `"`+key+`"`) {
		msg = key + ": " + msg
	}
	return fmt.Errorf("%s:%d:%d: %s", name, tok.Position.Line, tok.Position.Column, msg)
}

// keyOf finds the mapping key at tok, or whose value starts at tok.
func keyOf(tok *token.Token) string {
	if tok.Next != nil && tok.Next.Type == token.MappingValueType {
		return tok.Value
	}
	t := tok
	for range 3 {
		if t == nil {
			return ""
		}
		if t.Type == token.MappingValueType {
			if t.Prev != nil {
				return t.Prev.Value
			}
			return ""
		}
		t = t.Prev
	}
	return ""
}

// describeType names a Go type in the script's vocabulary.
func describeType(t reflect.Type) string {
	if t == nil {
		return "nothing"
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Pointer:
		return describeType(t.Elem())
	}
	return t.String()
}

// locate prefixes each validation error with the source position of the
// element it names, where the source has one.
func locate(name string, data []byte, err error) error {
	file := parseFile(data)
	var errs []error
	for _, e := range unjoin(err) {
		var ve *validationError
		if !errors.As(e, &ve) {
			errs = append(errs, fmt.Errorf("%s: %w", name, e))
			continue
		}
		if pos := position(file, ve.path); pos != nil {
			errs = append(errs, fmt.Errorf("%s:%d:%d: %w", name, pos.Line, pos.Column, e))
		} else {
			errs = append(errs, fmt.Errorf("%s: %w", name, e))
		}
	}
	return errors.Join(errs...)
}

// parseFile parses data for locating nodes, or returns nil.
func parseFile(data []byte) (file *ast.File) {
	defer func() {
		if recover() != nil {
			file = nil
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil
	}
	return f
}

// position finds the node at a validation path such as "rules[0].steps[1]",
// falling back to enclosing elements when the exact one is absent (as for a
// missing key).
func position(file *ast.File, elemPath string) (pos *token.Position) {
	if file == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			pos = nil // as for decode: no position rather than a crash
		}
	}()
	for p := elemPath; p != ""; p = parentPath(p) {
		yp, err := yaml.PathString("$." + p)
		if err != nil {
			continue
		}
		node, err := yp.FilterFile(file)
		if err == nil && node != nil && node.GetToken() != nil {
			return node.GetToken().Position
		}
	}
	return nil
}

// parentPath drops the last element of a validation path.
func parentPath(p string) string {
	if i := strings.LastIndexAny(p, ".["); i > 0 {
		return p[:i]
	}
	return ""
}

// unjoin lists the errors joined in err.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
