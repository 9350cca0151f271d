package transcript

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Parsing omp's hashline edit arguments into sections and ops: the patch
// text of omp 17.2 on ({"input": PATCH}, in both spellings of its ops)
// and the JSON shapes before it. What the ops mean is at the top of
// hashline.go.
// hlShape says which form of hashline arguments a call has.
type hlShape uint8

const (
	hlNone  hlShape = iota
	hlPatch         // {"input": PATCH}
	hlJSON          // {"path", "edits": [...]} with anchors
)

// hashlineSections reads a call's arguments as a hashline edit, if they
// are one.
func hashlineSections(raw json.RawMessage) ([]hlSection, hlShape) {
	hasInput, hasEdits := bytes.Contains(raw, []byte(`"input"`)), bytes.Contains(raw, []byte(`"edits"`))
	if !hasInput && !hasEdits {
		return nil, hlNone
	}
	var a struct {
		Input    string            `json:"input"`
		Path     string            `json:"path"`
		FilePath string            `json:"file_path"`
		Edits    []json.RawMessage `json:"edits"`
	}
	if json.Unmarshal(raw, &a) != nil {
		return nil, hlNone
	}
	if a.Input != "" {
		if s := parseHashlinePatch(a.Input); len(s) > 0 {
			return s, hlPatch
		}
		return nil, hlNone
	}
	path := firstNonEmpty(a.Path, a.FilePath)
	if path == "" || len(a.Edits) == 0 {
		return nil, hlNone
	}
	sec := hlSection{path: path}
	for _, e := range a.Edits {
		op, ok := hashlineJSONOp(e)
		if !ok {
			return nil, hlNone // another tool's edits (pi's oldText/newText)
		}
		sec.ops = append(sec.ops, op)
	}
	return []hlSection{sec}, hlJSON
}

// parseHashlinePatch reads a patch's sections; lines it does not know
// (envelope markers, comments, rows omp would recover) are passed over.
func parseHashlinePatch(input string) []hlSection {
	var out []hlSection
	var cur *hlSection
	var op *hlOp
	for line := range strings.Lines(input) {
		line = strings.TrimRight(line, "\r\n")
		if op != nil && strings.HasPrefix(line, "+") {
			op.body = append(op.body, line[1:])
			continue
		}
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") && strings.HasSuffix(t, "]") && len(t) > 2 {
			p, tag, _ := strings.Cut(t[1:len(t)-1], "#")
			if p = strings.TrimSpace(p); p != "" && !strings.ContainsAny(p, "[]") {
				out = append(out, hlSection{path: p, tag: tag})
				cur, op = &out[len(out)-1], nil
				continue
			}
		}
		if cur == nil {
			continue
		}
		if o, ok := parseHashlineOp(t); ok {
			cur.ops = append(cur.ops, o)
			op = &cur.ops[len(cur.ops)-1]
			if !hlTakesBody(o) {
				op = nil
			}
		}
	}
	// A section without ops edits nothing.
	return slices.DeleteFunc(out, func(s hlSection) bool { return len(s.ops) == 0 })
}

// hlTakesBody reports whether an op's header is followed by "+" rows.
func hlTakesBody(o hlOp) bool {
	return strings.HasSuffix(o.header, ":") && o.kind != hlCut && o.kind != hlFileOp
}

// parseHashlineOp reads an op's header.
func parseHashlineOp(t string) (hlOp, bool) {
	word, rest, _ := strings.Cut(t, " ")
	word = strings.TrimSuffix(word, ":")
	rest = strings.TrimSpace(rest)
	o := hlOp{header: t}
	switch word {
	case "REM", "MV", "PASTE", "PASTE.PRE", "PASTE.POST", "PASTE.HEAD", "PASTE.TAIL", "PASTE.BLK.POST":
		o.kind = hlFileOp
		return o, true
	case "INS.HEAD":
		o.kind = hlHead
		return o, true
	case "INS.TAIL":
		o.kind = hlTail
		return o, true
	}
	spec, register := rest, false
	if i := strings.IndexByte(spec, '@'); i >= 0 {
		spec, register = strings.TrimSpace(spec[:i]), true
	}
	spec = strings.TrimSpace(strings.TrimSuffix(spec, ":"))
	switch word {
	case "PUT":
		switch {
		case strings.HasPrefix(spec, ">$"):
			o.kind = hlTail
		case strings.HasPrefix(spec, "<") || strings.HasPrefix(spec, ">"):
			n, ok := hlLineNumber(strings.TrimSuffix(strings.TrimSpace(spec[1:]), "*"))
			if !ok {
				return o, false
			}
			o.kind, o.from, o.to = hlAfter, n, n
			if spec[0] == '<' {
				o.kind = hlBefore
				if n == 1 {
					o.kind = hlHead
				}
			}
		case strings.HasSuffix(spec, "*"):
			n, ok := hlLineNumber(strings.TrimSuffix(spec, "*"))
			if !ok {
				return o, false
			}
			o.kind, o.from, o.to = hlBlock, n, n
		default:
			from, to, ok := hlRange(spec)
			if !ok {
				return o, false
			}
			o.kind, o.from, o.to = hlReplace, from, to
		}
	case "SWAP":
		from, to, ok := hlRange(spec)
		if !ok {
			return o, false
		}
		o.kind, o.from, o.to = hlReplace, from, to
	case "CUT", "DEL":
		if strings.HasSuffix(spec, "*") {
			o.kind = hlFileOp // a block whose extent the call does not show
			return o, true
		}
		from, to, ok := hlRange(spec)
		if !ok {
			return o, false
		}
		o.kind, o.from, o.to = hlCut, from, to
	case "SWAP.BLK", "INS.PRE", "INS.POST", "INS.BLK.POST", "DEL.BLK", "CUT.BLK":
		n, ok := hlLineNumber(spec)
		if !ok {
			return o, false
		}
		o.from, o.to = n, n
		switch word {
		case "SWAP.BLK":
			o.kind = hlBlock
		case "INS.PRE":
			o.kind = hlBefore
		case "INS.POST":
			o.kind = hlAfter
		default:
			o.kind = hlFileOp // relative to a block's end, or the block itself
		}
	default:
		return o, false
	}
	if register && o.kind != hlCut {
		o.kind = hlFileOp // a paste: the register, not the call, holds the rows
	}
	return o, true
}

// hlRange reads "N", "N.=M" or the separators omp also takes ("N-M",
// "N..M", "N…M", "N M").
func hlRange(spec string) (from, to int, ok bool) {
	i := 0
	for i < len(spec) && spec[i] >= '0' && spec[i] <= '9' {
		i++
	}
	from, ok = hlLineNumber(spec[:i])
	if !ok {
		return 0, 0, false
	}
	rest := strings.TrimLeft(spec[i:], " .=-")
	rest = strings.TrimLeft(strings.TrimPrefix(rest, "…"), " .=-")
	if rest == "" {
		return from, from, true
	}
	to, ok = hlLineNumber(rest)
	if !ok || to < from {
		return 0, 0, false
	}
	return from, to, true
}

// hashlineJSONOp reads one element of the JSON shapes' edits.
func hashlineJSONOp(raw json.RawMessage) (hlOp, bool) {
	var e struct {
		Op      string          `json:"op"`
		Pos     string          `json:"pos"`
		End     string          `json:"end"`
		Lines   json.RawMessage `json:"lines"`
		OldText *string         `json:"oldText"`
		SetLine *struct {
			Anchor  string `json:"anchor"`
			NewText string `json:"new_text"`
		} `json:"set_line"`
		ReplaceLines *struct {
			Start   string `json:"start_anchor"`
			End     string `json:"end_anchor"`
			NewText string `json:"new_text"`
		} `json:"replace_lines"`
		InsertAfter *struct {
			Anchor string `json:"anchor"`
			Text   string `json:"text"`
		} `json:"insert_after"`
		InsertBefore *struct {
			Anchor string `json:"anchor"`
			Text   string `json:"text"`
		} `json:"insert_before"`
	}
	if json.Unmarshal(raw, &e) != nil || e.OldText != nil {
		return hlOp{}, false
	}
	anchor := func(o *hlOp, pos, end string) bool {
		var ok bool
		if o.from, o.fromHash, ok = hlAnchor(pos); !ok {
			return false
		}
		o.to, o.toHash = o.from, o.fromHash
		if end != "" {
			if o.to, o.toHash, ok = hlAnchor(end); !ok || o.to < o.from {
				return false
			}
		}
		return true
	}
	var o hlOp
	switch {
	case e.SetLine != nil:
		o = hlOp{header: "set_line", kind: hlReplace, body: splitBody(e.SetLine.NewText)}
		return o, anchor(&o, e.SetLine.Anchor, "")
	case e.ReplaceLines != nil:
		o = hlOp{header: "replace_lines", kind: hlReplace, body: splitBody(e.ReplaceLines.NewText)}
		if len(o.body) == 0 {
			o.kind = hlCut
		}
		return o, anchor(&o, e.ReplaceLines.Start, e.ReplaceLines.End)
	case e.InsertAfter != nil:
		o = hlOp{header: "insert_after", kind: hlAfter, body: splitBody(e.InsertAfter.Text)}
		return o, anchor(&o, e.InsertAfter.Anchor, "")
	case e.InsertBefore != nil:
		o = hlOp{header: "insert_before", kind: hlBefore, body: splitBody(e.InsertBefore.Text)}
		return o, anchor(&o, e.InsertBefore.Anchor, "")
	}
	o = hlOp{header: e.Op, body: jsonLines(e.Lines)}
	switch e.Op {
	case "replace":
		o.kind = hlReplace
		if len(o.body) == 0 {
			o.kind = hlCut
		}
		return o, anchor(&o, e.Pos, e.End)
	case "append":
		if e.Pos == "" {
			o.kind = hlTail
			return o, true
		}
		o.kind = hlAfter
		return o, anchor(&o, e.Pos, "")
	case "prepend":
		if e.Pos == "" {
			o.kind = hlHead
			return o, true
		}
		o.kind = hlBefore
		return o, anchor(&o, e.Pos, "")
	}
	return hlOp{}, false
}

// hlAnchor reads "N#ID" or "N:HH" (a trailing "|TEXT" or ":TEXT" copied
// from the view is passed over).
func hlAnchor(s string) (n int, hash string, ok bool) {
	s = strings.TrimSpace(s)
	sep := strings.IndexAny(s, "#:")
	if sep <= 0 {
		n, ok = hlLineNumber(s)
		return n, "", ok
	}
	if n, ok = hlLineNumber(s[:sep]); !ok {
		return 0, "", false
	}
	hash = s[sep+1:]
	if i := strings.IndexAny(hash, "|:"); i >= 0 {
		hash = hash[:i]
	}
	return n, hash, true
}

// splitBody splits new text into lines; "" is no lines.
func splitBody(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// jsonLines reads "lines": a list of strings, one string, or null.
func jsonLines(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) == nil {
		return list
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return splitBody(one)
	}
	return nil
}
