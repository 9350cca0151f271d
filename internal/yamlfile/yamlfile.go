package yamlfile

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
)

// Error is a problem at one place in a file.
type Error struct {
	File   string
	Line   int // 1-based; 0 when unknown
	Column int // 1-based; 0 when unknown
	// Key is the YAML path of the offending value, such as
	// $.providers.local.api, when known.
	Key string
	Msg string
	// Err is the cause, when there is one beyond the message (a read
	// error, for errors.Is).
	Err error
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Column)
	}
	b.WriteString(": ")
	if e.Key != "" {
		b.WriteString(strings.TrimPrefix(e.Key, "$."))
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Decode decodes data into v, rejecting unknown keys. JSON is accepted as
// the YAML subset it is. The file must be within the limits [Parse] checks.
// Errors are [*Error]s naming name, the position and, for a value of the
// wrong type or an unknown key, the key's path and what v takes there.
func Decode(name string, data []byte, v any) (err error) {
	f, err := Parse(name, data)
	if err != nil {
		return err
	}
	return DecodeParsed(name, data, f, v)
}

// DecodeParsed is [Decode] for data that [Parse] returned f for, for a
// caller that looked at f first.
func DecodeParsed(name string, data []byte, f *ast.File, v any) (err error) {
	// goccy/go-yaml v1.19.2 panics on some malformed input (a tagged scalar
	// where a list belongs, found by fuzzing); report it as a bad file.
	defer func() {
		if r := recover(); r != nil {
			err = &Error{File: name, Msg: fmt.Sprintf("cannot parse this file (the YAML parser failed: %v)", r)}
		}
	}()
	// The decoder parses again: it keeps what it parses to itself.
	err = yaml.UnmarshalWithOptions(stripBOM(data), v, yaml.Strict())
	if err == nil {
		return nil
	}
	e := wrap(name, err)
	explain(e, f, reflect.TypeOf(v))
	if e.Key == "" && strings.HasPrefix(e.Msg, "unknown field") {
		e.Msg += " (keys are case-sensitive)"
	}
	return e
}

// wrap returns err, from the YAML library, as an [*Error] about name.
func wrap(name string, err error) *Error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		e := &Error{File: name, Msg: ye.GetMessage()}
		if tok := ye.GetToken(); tok != nil && tok.Position != nil {
			e.Line, e.Column = tok.Position.Line, tok.Position.Column
		}
		return e
	}
	return &Error{File: name, Msg: err.Error()}
}

// At returns an [*Error] for the value at a YAML path (such as
// $.providers.local.api) in data, with its line and column when the path
// exists.
func At(name string, data []byte, key, format string, args ...any) *Error {
	e := &Error{File: name, Key: key, Msg: fmt.Sprintf(format, args...)}
	e.Line, e.Column = Locate(data, key)
	return e
}

// Locate returns the 1-based line and column of the value at a YAML path
// in data, or zeros when the path does not exist or data is not a file
// [Parse] accepts.
func Locate(data []byte, key string) (line, col int) {
	p, err := yaml.PathString(key)
	if err != nil {
		return 0, 0
	}
	f, err := Parse("", data)
	if err != nil {
		return 0, 0
	}
	n, err := p.FilterFile(f)
	if err != nil || n == nil {
		return 0, 0
	}
	tok := n.GetToken()
	if tok == nil || tok.Position == nil {
		return 0, 0
	}
	return tok.Position.Line, tok.Position.Column
}

// Quote returns a YAML path element for a map key, quoting keys that hold
// characters a path cannot take bare (dots, slashes, spaces).
func Quote(key string) string {
	if strings.ContainsAny(key, ".[]'\" /*@&") {
		return "'" + strings.ReplaceAll(key, "'", `\'`) + "'"
	}
	return key
}
