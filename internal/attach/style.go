package attach

import (
	"bytes"
	"slices"
	"strings"
)

// style is how a file lays out its JSON, so that what vigil adds looks like
// what is there: one indent unit per level on its own line, or everything
// on one line.
type style struct {
	compact bool
	newline string // "\n", or "\r\n" in a file that ends its lines so
	unit    string
	colon   []byte
}

// detectStyle reads the layout from the top-level object's first member:
// its indentation is one unit, and its colon is copied. An empty file gets
// two spaces, as Claude Code writes.
func detectStyle(root *node) style {
	s := style{newline: "\n", unit: "  ", colon: []byte(": ")}
	if len(root.items) == 0 {
		return s
	}
	first := root.items[0]
	s.colon = first.colon
	nl := bytes.LastIndexByte(first.lead, '\n')
	if nl < 0 {
		s.compact = true
		return s
	}
	if nl > 0 && first.lead[nl-1] == '\r' {
		s.newline = "\r\n"
	}
	if unit := string(first.lead[nl+1:]); unit != "" && strings.Trim(unit, " \t") == "" {
		s.unit = unit
	}
	return s
}

// lead is the whitespace before an item at depth (the top-level value is
// depth 0, its members depth 1).
func (s style) lead(depth int) []byte {
	if s.compact {
		return nil
	}
	return []byte(s.newline + strings.Repeat(s.unit, depth))
}

// object makes an object at depth holding members.
func (s style) object(depth int, members ...*item) *node {
	n := &node{kind: objectKind, pos: -1}
	for _, m := range members {
		s.appendItem(n, depth, m)
	}
	return n
}

// array makes an array at depth holding values.
func (s style) array(depth int, values ...*node) *node {
	n := &node{kind: arrayKind, pos: -1}
	for _, v := range values {
		s.appendItem(n, depth, &item{val: v})
	}
	return n
}

// member makes an object member.
func (s style) member(key string, val *node) *item {
	return &item{rawKey: quoteJSONString(key), key: key, colon: slices.Clone(s.colon), val: val}
}

func scalar(raw []byte) *node { return &node{kind: scalarKind, raw: raw, pos: -1} }

// appendItem adds it at the end of container n, which sits at depth. It
// copies the whitespace before the current last item, so the new one lines
// up with its siblings; into an empty container it lays out the item and
// the closing bracket from the style.
func (s style) appendItem(n *node, depth int, it *item) {
	if len(n.items) > 0 {
		it.lead = slices.Clone(n.items[len(n.items)-1].lead)
	} else {
		it.lead = s.lead(depth + 1)
		n.close = s.lead(depth)
	}
	n.items = append(n.items, it)
}

// removeItem deletes n's item i. The item that moves up to the front takes
// the whitespace after the opening bracket; a container left empty closes
// at once: {} or [].
func removeItem(n *node, i int) {
	if i == 0 && len(n.items) > 1 {
		n.items[1].lead = n.items[0].lead
	}
	n.items = slices.Delete(n.items, i, i+1)
	if len(n.items) == 0 {
		n.close = nil
	}
}
