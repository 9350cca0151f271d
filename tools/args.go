package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// argKind is the JSON type of one argument.
type argKind int

const (
	kindString argKind = iota + 1
	kindInteger
	kindBoolean
)

func (k argKind) String() string {
	switch k {
	case kindString:
		return "string"
	case kindInteger:
		return "integer"
	case kindBoolean:
		return "boolean"
	}
	return "unknown"
}

// param describes one argument of a tool. A tool's params are the single
// source of both its JSON schema and the validation of its arguments, so the
// two cannot drift apart.
type param struct {
	name     string
	kind     argKind
	required bool
	// min, for integers, is the smallest value allowed.
	min *int
	// desc is what the model reads about the argument.
	desc string
}

func intPtr(n int) *int { return &n }

// schema returns the JSON schema of an arguments object with these params.
func schema(params []param) json.RawMessage {
	props := make(map[string]any, len(params))
	required := []string{}
	for _, p := range params {
		prop := map[string]any{"type": p.kind.String(), "description": p.desc}
		if p.min != nil {
			prop["minimum"] = *p.min
		}
		props[p.name] = prop
		if p.required {
			required = append(required, p.name)
		}
	}
	s := map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
	b, err := json.Marshal(s)
	if err != nil {
		// Only strings, ints and maps of them: Marshal cannot fail.
		panic(fmt.Sprintf("tools: marshal schema: %v", err))
	}
	return b
}

// decodeArgs checks raw against params and, when it passes, decodes it into
// dst, a pointer to a struct whose json tags are the param names. Errors
// name the tool and the argument. A null value counts as absent. An integer
// written with a zero fraction (5.0) is accepted as that integer.
func decodeArgs(tool string, raw json.RawMessage, params []param, dst any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		raw = []byte("{}")
	}
	if !utf8.Valid(raw) {
		return fmt.Errorf("%s: arguments are not valid UTF-8", tool)
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return fmt.Errorf("%s: arguments must be a JSON object, got %s", tool, jsonKind(raw))
		}
		return fmt.Errorf("%s: arguments are not valid JSON: %v", tool, err)
	}
	byName := make(map[string]param, len(params))
	for _, p := range params {
		byName[p.name] = p
	}
	var unknown []string
	for name := range obj {
		if _, ok := byName[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fmt.Errorf("%s: unknown argument %s (%s takes: %s)", tool, quoteAll(unknown), tool, paramNames(params))
	}
	clean := make(map[string]json.RawMessage, len(obj))
	for _, p := range params {
		v, ok := obj[p.name]
		if ok && bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			ok = false
		}
		if !ok {
			if p.required {
				return fmt.Errorf("%s: missing required argument %q (%s)", tool, p.name, p.kind)
			}
			continue
		}
		norm, err := checkValue(p, v)
		if err != nil {
			return fmt.Errorf("%s: argument %q %v", tool, p.name, err)
		}
		clean[p.name] = norm
	}
	b, err := json.Marshal(clean)
	if err != nil {
		return fmt.Errorf("%s: re-encode arguments: %w", tool, err)
	}
	if err := json.Unmarshal(b, dst); err != nil {
		return fmt.Errorf("%s: decode arguments: %w", tool, err)
	}
	return nil
}

// checkValue checks one present, non-null value and returns it in the form
// dst's field accepts.
func checkValue(p param, v json.RawMessage) (json.RawMessage, error) {
	v = bytes.TrimSpace(v)
	got := jsonKind(v)
	switch p.kind {
	case kindString:
		if got != "string" {
			return nil, fmt.Errorf("must be a string, got %s %s", got, excerpt(v))
		}
	case kindBoolean:
		if got != "boolean" {
			return nil, fmt.Errorf("must be a boolean (true or false), got %s %s", got, excerpt(v))
		}
	case kindInteger:
		if got != "number" {
			return nil, fmt.Errorf("must be an integer, got %s %s", got, excerpt(v))
		}
		f, err := strconv.ParseFloat(string(v), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("must be an integer, got %s", excerpt(v))
		}
		n := int(f)
		if p.min != nil && n < *p.min {
			return nil, fmt.Errorf("must be at least %d, got %d", *p.min, n)
		}
		v = json.RawMessage(strconv.Itoa(n))
	}
	return v, nil
}

// jsonKind names the JSON type of a syntactically valid value.
func jsonKind(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// excerpt shows a JSON value in an error message, shortened if long.
func excerpt(v []byte) string {
	const max = 40
	s := string(v)
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

func paramNames(params []param) string {
	names := make([]string, len(params))
	for i, p := range params {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func quote(s string) string { return strconv.Quote(s) }
