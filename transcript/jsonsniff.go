package transcript

import (
	"bytes"
	"encoding/json"
)

// jsonShape is what detection learns from the head of a JSON file without
// parsing it all: the kind of the first value, the top-level keys in order,
// and the members of the first element of each array met on the way. The
// head may be cut anywhere; the shape holds what came before the cut.
type jsonShape struct {
	// kind is '{' or '[' for an object or array, 0 when the head does not
	// start with one.
	kind byte
	// keys are the top-level object's keys, in order.
	keys []string
	// strs are the top-level object's string values.
	strs map[string]string
	// first maps a top-level key whose value is an array to the members of
	// that array's first element; "" stands for a top-level array itself.
	first map[string]shapeObj
}

// shapeObj is one object's members: each key with its value when the value
// is a string, "" otherwise.
type shapeObj map[string]string

func (o shapeObj) hasAny(keys ...string) bool {
	for _, k := range keys {
		if _, ok := o[k]; ok {
			return true
		}
	}
	return false
}

// top returns the top-level object's members as a shapeObj.
func (s jsonShape) top() shapeObj {
	o := make(shapeObj, len(s.keys))
	for _, k := range s.keys {
		o[k] = s.strs[k]
	}
	return o
}

// sniffJSONShape reads the shape of the JSON value head starts with (the
// first line of a JSON Lines file, or the start of a document), as far as
// its first maxKeys top-level keys. Values it does not look into are
// scanned, not decoded.
func sniffJSONShape(head []byte, maxKeys int) jsonShape {
	var s jsonShape
	trimmed := bytes.TrimLeft(head, " \t\r\n\ufeff")
	if len(trimmed) == 0 || (trimmed[0] != '{' && trimmed[0] != '[') {
		return s
	}
	s.kind = trimmed[0]
	s.strs = map[string]string{}
	s.first = map[string]shapeObj{}
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	if _, err := dec.Token(); err != nil {
		return s
	}
	if s.kind == '[' {
		if o, ok := shapeFirstElement(trimmed, dec); ok {
			s.first[""] = o
		}
		return s
	}
	for len(s.keys) < maxKeys && dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return s
		}
		k, _ := tok.(string)
		s.keys = append(s.keys, k)
		switch nextByte(trimmed, dec) {
		case '[':
			if _, err := dec.Token(); err != nil {
				return s
			}
			o, ok := shapeFirstElement(trimmed, dec)
			if ok {
				s.first[k] = o
			}
			if len(s.keys) == maxKeys {
				return s
			}
			for dec.More() {
				var skip json.RawMessage
				if dec.Decode(&skip) != nil {
					return s
				}
			}
			if _, err := dec.Token(); err != nil {
				return s
			}
		case '"':
			var v string
			if dec.Decode(&v) != nil {
				return s
			}
			s.strs[k] = v
		default:
			if len(s.keys) == maxKeys {
				return s // the value is not needed
			}
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return s
			}
		}
	}
	return s
}

// shapeFirstElement reads the members of the first element of the array
// dec has just entered, when that element is an object, and leaves dec
// after the element; ok is false when there is no such element or the
// head ends before dec is past it.
func shapeFirstElement(in []byte, dec *json.Decoder) (o shapeObj, ok bool) {
	if !dec.More() {
		return nil, false
	}
	if nextByte(in, dec) != '{' {
		var skip json.RawMessage
		dec.Decode(&skip)
		return nil, false
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	o = shapeObj{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return o, true
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			o[k] = ""
			return o, true
		}
		var str string
		if len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &str) == nil {
			o[k] = str
		} else {
			o[k] = ""
		}
	}
	dec.Token()
	return o, true
}

// nextByte returns the first byte of the next value dec will read from
// in: it looks past the whitespace and the colon after a key.
func nextByte(in []byte, dec *json.Decoder) byte {
	for i := int(dec.InputOffset()); i < len(in); i++ {
		switch in[i] {
		case ' ', '\t', '\r', '\n', ':':
			continue
		default:
			return in[i]
		}
	}
	return 0
}
