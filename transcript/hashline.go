package transcript

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/vigil-dev/vigil/llm"
)

// omp's edit tool in its hashline mode names lines by number instead of
// quoting them. From omp 17.2 on (18.x is what the recordings hold) the
// call is {"input": PATCH}, a patch of file sections:
//
//	[calc.py#3F2A]
//	PUT 2.=2:
//	+    return a + b
//
// where 3F2A is the tag of the file's content the model last read (omp's
// read shows "[calc.py#3F2A]" and then one "N:TEXT" row a line), and the
// ops are PUT N.=M: (replace lines N to M with the "+" rows after it),
// PUT <N: and PUT >N: (insert before, after line N; <1 and >$ are the
// file's head and tail), PUT N*: (replace the block that opens on line N),
// CUT N.=M (delete), REM (delete the file) and MV DEST (rename). Earlier
// versions spelt the same ops SWAP, DEL, INS.PRE, INS.POST, INS.HEAD,
// INS.TAIL, SWAP.BLK; before that the call was JSON: {"path", "edits":
// [{"op": "replace"|"append"|"prepend", "pos": "N#ID", "end": "M#ID",
// "lines": [...]}]} or {"path", "edits": [{"set_line": {"anchor",
// "new_text"}}, {"replace_lines": {"start_anchor", "end_anchor",
// "new_text"}}, {"insert_after": {"anchor", "text"}}]}, each anchor a line
// number with the hash of that line's text, as that version's read showed
// them ("12#VK:TEXT").
//
// Detectors see edits as the text replaced and its replacement, whatever
// the tool (Claude Code's Edit, pi's edit). So the pi reader gives such a
// call, besides its own arguments, the canonical ones: "path" (the first
// section's file; the rules read one file a call, and the ops on other
// files stay only in the patch) and "edits": [{"op", "oldText",
// "newText"}, ...], one for each op on that file. oldText is the lines the
// op replaces or deletes, as the last hashline view of the file with that
// tag showed them (for an insertion, the line it goes before or after,
// with newText holding that line too, as the same edit made with Edit
// would); "" when no view in the session showed them. The views are the
// results of read, search and edit calls: rows under a "[PATH#TAG]"
// header anywhere in the text (an edit omp rejected for lines its read
// never showed quotes them), or, for the JSON shapes, hashed rows of the
// file a read named, used only when the anchor's hash matches. After an
// edit that applied and whose result names the file's new tag, the view
// of the new content is the old one with the edit applied. What the
// reader keeps of views is bounded (maxHashlineViews, maxHashlineBytes).

// The bounds on what the reader keeps of hashline views and calls.
const (
	maxHashlineViews = 64
	maxHashlineBytes = 4 << 20
	maxHashlineCalls = 256
	// maxHashlineLine is the highest line number the reader reads from a
	// view or an op.
	maxHashlineLine = 1 << 24
	// maxHashlineSpan and maxHashlineOps bound the lines an op may span
	// and the ops of a section for the reader to resolve them.
	maxHashlineSpan = 4096
	maxHashlineOps  = 256
)

// hlState is what a pi/omp run has shown of files, for hashline edits.
type hlState struct {
	views map[string]*hlView // "path#TAG", or "path" for hashed rows
	order []string           // views' keys, oldest first
	size  int                // bytes of text the views hold
	calls map[string]hlCall  // calls whose results are views
}

// hlView is the lines a view showed: their text and, for hashed rows, the
// hash each was shown with.
type hlView struct {
	text map[int]string
	hash map[int]string
}

// hlCall is a call whose result may be a view.
type hlCall struct {
	edit     bool
	path     string      // the file a read or search named
	sections []hlSection // an edit's patch
}

// hlSection is one file section of a patch.
type hlSection struct {
	path, tag string
	ops       []hlOp
}

// hlOp is one op of a section: what it does, to which lines, and the rows
// it writes.
type hlOp struct {
	header   string
	kind     hlKind
	from, to int // the lines it replaces or deletes; the line it inserts at
	fromHash string
	toHash   string
	body     []string
}

// hlKind says what an op does.
type hlKind uint8

const (
	hlReplace hlKind = iota + 1 // lines from..to become body
	hlCut                       // lines from..to go
	hlBefore                    // body goes before line from
	hlAfter                     // body goes after line from
	hlHead                      // body goes before the first line
	hlTail                      // body goes after the last line
	hlBlock                     // the block opening on line from becomes body
	hlFileOp                    // REM, MV, a paste: nothing a detector can use
)

// call takes a call of an assistant reply: an edit whose arguments are a
// hashline patch gets the canonical arguments; reads and searches are
// remembered so that their results are read as views.
func (h *hlState) call(b *llm.Block) {
	name := strings.ToLower(b.Name)
	switch name {
	case "edit":
		sections, shape := hashlineSections(b.Arguments)
		if shape == hlNone {
			return
		}
		if args, ok := h.canonical(b.Arguments, sections, shape); ok {
			b.Arguments = args
		}
		h.remember(b.ID, hlCall{edit: true, sections: sections})
	case "read", "search", "grep":
		var a struct {
			Path     string `json:"path"`
			FilePath string `json:"file_path"`
		}
		_ = json.Unmarshal(b.Arguments, &a)
		h.remember(b.ID, hlCall{path: firstNonEmpty(a.Path, a.FilePath)})
	}
}

// remember notes a call whose result is to be read, within bounds.
func (h *hlState) remember(id string, c hlCall) {
	if id == "" {
		return
	}
	if h.calls == nil {
		h.calls = map[string]hlCall{}
	}
	if len(h.calls) >= maxHashlineCalls {
		clear(h.calls) // results that never came; start again
	}
	h.calls[id] = c
}

// result takes the result of call id.
func (h *hlState) result(id string, isError bool, blocks []llm.Block) {
	c, ok := h.calls[id]
	if !ok {
		return
	}
	delete(h.calls, id)
	var text string
	for _, b := range blocks {
		if b.Type == llm.BlockText {
			text += b.Text
		}
	}
	if c.edit && !isError {
		h.derive(c.sections, text)
	}
	if !c.edit && !hlViewFirst(text) {
		return // a read of a file, not a hashline view
	}
	h.scan(text, c.path)
}

// hlViewFirst reports whether a read's or search's text opens as a
// hashline view does: a [PATH#TAG] header or a hashed row.
func hlViewFirst(text string) bool {
	first, _, _ := strings.Cut(strings.TrimLeft(text, "\r\n"), "\n")
	first = strings.TrimRight(first, "\r")
	if _, _, ok := hlHeaderIn(first); ok {
		return true
	}
	_, _, _, ok := hlHashedRow(first)
	return ok
}

// scan reads the views in a result's text: rows under [PATH#TAG] headers,
// or else, for a file the call named, hashed rows.
func (h *hlState) scan(text, path string) {
	if strings.IndexByte(text, '#') < 0 && strings.IndexByte(text, ':') < 0 {
		return
	}
	key := ""
	sawHeader := false
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if p, tag, ok := hlHeaderIn(line); ok {
			key, sawHeader = p+"#"+tag, true
			continue
		}
		if key == "" {
			continue
		}
		if n, rest, ok := hlRow(strings.TrimPrefix(line, "  ")); ok {
			h.put(key, n, rest, "")
		}
	}
	if sawHeader || path == "" {
		return
	}
	for line := range strings.Lines(text) {
		if n, hash, rest, ok := hlHashedRow(strings.TrimRight(line, "\r\n")); ok {
			h.put(path, n, rest, hash)
		}
	}
}

// put records line n of a view.
func (h *hlState) put(key string, n int, text, hash string) {
	if h.views == nil {
		h.views = map[string]*hlView{}
	}
	v := h.views[key]
	if v == nil {
		v = &hlView{text: map[int]string{}}
		h.views[key] = v
		h.order = append(h.order, key)
	}
	if old, ok := v.text[n]; ok {
		h.size -= len(old)
	}
	v.text[n] = strings.Clone(text)
	h.size += len(text)
	if hash != "" {
		if v.hash == nil {
			v.hash = map[int]string{}
		}
		v.hash[n] = strings.Clone(hash)
	}
	for (len(h.order) > maxHashlineViews || h.size > maxHashlineBytes) && len(h.order) > 1 {
		h.drop(h.order[0])
	}
}

// drop forgets a view.
func (h *hlState) drop(key string) {
	if v, ok := h.views[key]; ok {
		for _, t := range v.text {
			h.size -= len(t)
		}
		delete(h.views, key)
	}
	if i := slices.Index(h.order, key); i >= 0 {
		h.order = slices.Delete(h.order, i, i+1)
	}
}

// hlHeaderIn finds the last "[PATH#TAG]" in a line, TAG four hex digits.
func hlHeaderIn(line string) (path, tag string, ok bool) {
	for end := len(line); end > 0; {
		i := strings.LastIndex(line[:end], "]")
		if i < 5 {
			return "", "", false
		}
		if line[i-5] == '#' && isHex4(line[i-4:i]) {
			if open := strings.LastIndexByte(line[:i-5], '['); open >= 0 && open+1 < i-5 {
				p := line[open+1 : i-5]
				if !strings.ContainsAny(p, "[]\t") {
					return p, line[i-4 : i], true
				}
			}
		}
		end = i
	}
	return "", "", false
}

func isHex4(s string) bool {
	if len(s) != 4 {
		return false
	}
	for i := 0; i < 4; i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}

// hlRow reads a view's row "N:TEXT".
func hlRow(line string) (n int, text string, ok bool) {
	colon := strings.IndexByte(line, ':')
	if colon <= 0 {
		return 0, "", false
	}
	n, ok = hlLineNumber(line[:colon])
	return n, line[colon+1:], ok
}

// hlHashedRow reads a row of the JSON versions' views: "N#ID:TEXT",
// "N#ID|TEXT" or "N:HH|TEXT".
func hlHashedRow(line string) (n int, hash, text string, ok bool) {
	line = strings.TrimLeft(line, " ")
	sep := strings.IndexAny(line, "#:")
	if sep <= 0 {
		return 0, "", "", false
	}
	if n, ok = hlLineNumber(line[:sep]); !ok {
		return 0, "", "", false
	}
	rest := line[sep+1:]
	end := strings.IndexAny(rest, "|:")
	if line[sep] == ':' {
		end = strings.IndexByte(rest, '|')
	}
	if end < 2 || end > 16 || !isAlnum(rest[:end]) {
		return 0, "", "", false
	}
	return n, rest[:end], rest[end+1:], true
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return s != ""
}

// hlLineNumber reads a line number from 1.
func hlLineNumber(s string) (int, bool) {
	if s == "" || s[0] < '1' || s[0] > '9' || len(s) > 8 {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > maxHashlineLine {
		return 0, false
	}
	return n, true
}

// canonical returns the call's arguments with the canonical "path" and
// "edits" added (see the top of this file).
func (h *hlState) canonical(raw json.RawMessage, sections []hlSection, shape hlShape) (json.RawMessage, bool) {
	var args map[string]json.RawMessage
	if json.Unmarshal(raw, &args) != nil || args == nil {
		return nil, false
	}
	sec := sections[0]
	type canon struct {
		Op      string `json:"op,omitempty"`
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
	}
	var edits []json.RawMessage
	var originals []json.RawMessage
	if shape == hlJSON {
		_ = json.Unmarshal(args["edits"], &originals)
	}
	for k, o := range sec.ops {
		old, repl, ok := h.texts(sec, o)
		if !ok && o.kind == hlFileOp {
			continue
		}
		if shape == hlJSON && k < len(originals) {
			// The element as the model wrote it, with the canonical texts.
			var el map[string]json.RawMessage
			if json.Unmarshal(originals[k], &el) == nil && el != nil {
				el["oldText"], _ = json.Marshal(old)
				el["newText"], _ = json.Marshal(repl)
				b, _ := json.Marshal(el)
				edits = append(edits, b)
				continue
			}
		}
		b, _ := json.Marshal(canon{Op: o.header, OldText: old, NewText: repl})
		edits = append(edits, b)
	}
	if _, has := args["path"]; !has {
		args["path"], _ = json.Marshal(sec.path)
	}
	list, err := json.Marshal(edits)
	if err != nil {
		return nil, false
	}
	if len(edits) == 0 {
		list = json.RawMessage("[]")
	}
	args["edits"] = list
	out, err := json.Marshal(args)
	return out, err == nil
}

// texts returns an op's canonical old and new text; ok is false when its
// old text is not known from a view (old is then "").
func (h *hlState) texts(sec hlSection, o hlOp) (old, repl string, ok bool) {
	body := strings.Join(o.body, "\n")
	switch o.kind {
	case hlHead, hlTail:
		return "", body, true
	case hlFileOp:
		return "", "", false
	}
	lines, ok := h.lines(sec, o)
	if !ok {
		if o.kind == hlCut {
			return "", "", false
		}
		return "", body, false
	}
	old = strings.Join(lines, "\n")
	switch o.kind {
	case hlCut:
		return old, "", true
	case hlBefore:
		return old, body + "\n" + old, true
	case hlAfter:
		return old, old + "\n" + body, true
	}
	return old, body, true
}

// lines returns the lines from..to of an op's file as a view showed them.
func (h *hlState) lines(sec hlSection, o hlOp) ([]string, bool) {
	key := sec.path
	if sec.tag != "" {
		key += "#" + sec.tag
	}
	v := h.views[key]
	if v == nil || o.from == 0 || o.to-o.from > maxHashlineSpan {
		return nil, false
	}
	if sec.tag == "" {
		// Hashed rows: the anchors' hashes must be the ones shown.
		if v.hash[o.from] != o.fromHash || v.hash[o.to] != o.toHash {
			return nil, false
		}
	}
	out := make([]string, 0, o.to-o.from+1)
	for n := o.from; n <= o.to; n++ {
		t, ok := v.text[n]
		if !ok {
			return nil, false
		}
		out = append(out, t)
	}
	return out, true
}

// derive records the view of each file an edit applied to, when the
// result names the file's new tag and the ops' lines were all known: the
// old view with the ops applied.
func (h *hlState) derive(sections []hlSection, result string) {
	for _, sec := range sections {
		if sec.tag == "" {
			continue
		}
		newTag := ""
		for line := range strings.Lines(result) {
			if p, tag, ok := hlHeaderIn(strings.TrimRight(line, "\r\n")); ok && p == sec.path && !strings.EqualFold(tag, sec.tag) {
				newTag = tag
			}
		}
		old := h.views[sec.path+"#"+sec.tag]
		if newTag == "" || old == nil || h.views[sec.path+"#"+newTag] != nil {
			continue
		}
		text, ok := h.apply(old, sec)
		if !ok {
			continue
		}
		key := sec.path + "#" + newTag
		for n, t := range text {
			h.put(key, n, t, "")
		}
	}
}

// apply returns a view's lines after a section's ops, numbered anew; ok
// is false when an op touches a line the view did not show, or its place
// in the new file is unknown.
func (h *hlState) apply(v *hlView, sec hlSection) (map[int]string, bool) {
	if len(sec.ops) > maxHashlineOps {
		return nil, false
	}
	ops := slices.Clone(sec.ops)
	slices.SortStableFunc(ops, func(a, b hlOp) int { return hlStart(a) - hlStart(b) })
	out := make(map[int]string, len(v.text))
	// Each shown line moves by the lines the ops before it add or remove.
	type change struct{ at, delta int }
	var changes []change
	for _, o := range ops {
		switch o.kind {
		case hlReplace, hlCut:
			if o.to-o.from > maxHashlineSpan {
				return nil, false
			}
			for n := o.from; n <= o.to; n++ {
				if _, ok := v.text[n]; !ok {
					return nil, false
				}
			}
			changes = append(changes, change{o.to + 1, len(o.body) - (o.to - o.from + 1)})
		case hlBefore, hlHead:
			changes = append(changes, change{max(o.from, 1), len(o.body)})
		case hlAfter:
			changes = append(changes, change{o.from + 1, len(o.body)})
		case hlTail:
		default:
			return nil, false
		}
	}
	shift := func(n int) int {
		d := 0
		for _, c := range changes {
			if c.at <= n {
				d += c.delta
			}
		}
		return n + d
	}
	removed := func(n int) bool {
		for _, o := range ops {
			if (o.kind == hlReplace || o.kind == hlCut) && o.from <= n && n <= o.to {
				return true
			}
		}
		return false
	}
	for n, t := range v.text {
		if !removed(n) {
			out[shift(n)] = t
		}
	}
	for _, o := range ops {
		var at int
		switch o.kind {
		case hlReplace:
			at = shift(o.from)
		case hlBefore, hlHead:
			at = shift(max(o.from, 1)) - len(o.body)
		case hlAfter:
			at = shift(o.from+1) - len(o.body)
		default:
			continue
		}
		for i, l := range o.body {
			out[at+i] = l
		}
	}
	return out, true
}

// hlStart is where an op acts, for ordering.
func hlStart(o hlOp) int {
	switch o.kind {
	case hlHead:
		return 0
	case hlTail:
		return maxHashlineLine + 1
	}
	return o.from
}
