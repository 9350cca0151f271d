package attach

import (
	"bytes"
	"slices"
	"strings"

	"github.com/tailscale/hujson"
)

// style is how a file lays out its JSON, so that what vigil adds looks like
// what is there: one indent unit per level on its own line, or everything
// on one line.
type style struct {
	compact bool
	newline string // "\n", or "\r\n" in a file that ends its lines so
	unit    string
	// beforeColon and afterColon are the whitespace around a member's ':'.
	beforeColon, afterColon []byte
}

// detectStyle reads the layout from the top-level object's first member:
// its indentation is one unit, and the whitespace around its colon is
// copied. An empty file gets two spaces, as Claude Code writes.
func detectStyle(root hujson.Value) style {
	s := style{newline: "\n", unit: "  ", afterColon: []byte(" ")}
	obj, ok := root.Value.(*hujson.Object)
	if !ok || len(obj.Members) == 0 {
		return s
	}
	first := obj.Members[0]
	s.beforeColon, s.afterColon = first.Name.AfterExtra, first.Value.BeforeExtra
	lead := first.Name.BeforeExtra
	nl := bytes.LastIndexByte(lead, '\n')
	if nl < 0 {
		s.compact = true
		return s
	}
	if nl > 0 && lead[nl-1] == '\r' {
		s.newline = "\r\n"
	}
	if unit := string(lead[nl+1:]); unit != "" && strings.Trim(unit, " \t") == "" {
		s.unit = unit
	}
	return s
}

// lead is the whitespace before an item at depth (the top-level value is
// depth 0, its members depth 1).
func (s style) lead(depth int) hujson.Extra {
	if s.compact {
		return nil
	}
	return hujson.Extra(s.newline + strings.Repeat(s.unit, depth))
}

// object makes an object at depth holding members.
func (s style) object(depth int, members ...hujson.ObjectMember) hujson.Value {
	obj := &hujson.Object{}
	for _, m := range members {
		s.appendMember(obj, depth, m)
	}
	return hujson.Value{Value: obj}
}

// array makes an array at depth holding values.
func (s style) array(depth int, values ...hujson.Value) hujson.Value {
	arr := &hujson.Array{}
	for _, v := range values {
		s.appendElement(arr, depth, v)
	}
	return hujson.Value{Value: arr}
}

// member makes an object member.
func (s style) member(key string, val hujson.Value) hujson.ObjectMember {
	val.BeforeExtra = slices.Clone(s.afterColon)
	return hujson.ObjectMember{
		Name:  hujson.Value{Value: hujson.Literal(quoteJSONString(key)), AfterExtra: slices.Clone(s.beforeColon)},
		Value: val,
	}
}

func scalar(raw []byte) hujson.Value { return hujson.Value{Value: hujson.Literal(raw)} }

// appendMember adds m at the end of obj, which sits at depth. It copies
// the whitespace before the current last member, so the new one lines up
// with its siblings; into an empty object it lays out the member and the
// closing brace from the style.
func (s style) appendMember(obj *hujson.Object, depth int, m hujson.ObjectMember) {
	if n := len(obj.Members); n > 0 {
		m.Name.BeforeExtra = slices.Clone(obj.Members[n-1].Name.BeforeExtra)
	} else {
		m.Name.BeforeExtra, obj.AfterExtra = s.lead(depth+1), s.lead(depth)
	}
	// A last value with whitespace after it would print a trailing comma.
	m.Value.AfterExtra = nil
	obj.Members = append(obj.Members, m)
}

// appendElement is [style.appendMember] for a list.
func (s style) appendElement(arr *hujson.Array, depth int, v hujson.Value) {
	if n := len(arr.Elements); n > 0 {
		v.BeforeExtra = slices.Clone(arr.Elements[n-1].BeforeExtra)
	} else {
		v.BeforeExtra, arr.AfterExtra = s.lead(depth+1), s.lead(depth)
	}
	v.AfterExtra = nil
	arr.Elements = append(arr.Elements, v)
}

// removeMember deletes obj's member i. The member that moves up to the
// front takes the whitespace after the opening brace, one that becomes
// the last loses the whitespace before the comma it no longer has, and an
// object left empty closes at once: {}.
func removeMember(obj *hujson.Object, i int) {
	ms := obj.Members
	if i == 0 && len(ms) > 1 {
		ms[1].Name.BeforeExtra = ms[0].Name.BeforeExtra
	}
	obj.Members = slices.Delete(ms, i, i+1)
	if n := len(obj.Members); n == 0 {
		obj.AfterExtra = nil
	} else {
		obj.Members[n-1].Value.AfterExtra = nil
	}
}

// removeElement is [removeMember] for a list.
func removeElement(arr *hujson.Array, i int) {
	es := arr.Elements
	if i == 0 && len(es) > 1 {
		es[1].BeforeExtra = es[0].BeforeExtra
	}
	arr.Elements = slices.Delete(es, i, i+1)
	if n := len(arr.Elements); n == 0 {
		arr.AfterExtra = nil
	} else {
		arr.Elements[n-1].AfterExtra = nil
	}
}
