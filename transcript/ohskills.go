package transcript

// OpenHands' early CodeAct agent (and the resolver built on it) edits
// files through run_ipython: a cell that calls one of the agentskills
// helpers (edit_file_by_replace, insert_content_at_line, append_file,
// create_file, edit_file). Read as Python, such a cell is an edit, and the
// reader gives it as the str_replace_editor call it amounts to, with its
// file, so that every edit reaches the detectors in one shape. A cell that
// is anything more than one such call, or whose arguments are not
// literals, stays run_ipython.

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode/utf8"
)

// skillParams are the helpers' parameters, in order, by helper.
var skillParams = map[string][]string{
	"edit_file_by_replace":   {"file_name", "to_replace", "new_content"},
	"insert_content_at_line": {"file_name", "line_number", "content"},
	"append_file":            {"file_name", "content"},
	"create_file":            {"filename"},
	"edit_file":              {"file_name", "start", "end", "content"},
}

// skillAliases are other names the helpers' versions give a parameter,
// mapped to the names skillParams uses.
var skillAliases = map[string]string{
	"filename": "file_name", "file_path": "file_name", "path": "file_name",
	"old_text": "to_replace", "old_str": "to_replace", "search": "to_replace",
	"new_text": "new_content", "new_str": "new_content", "replacement": "new_content",
	"insert_content": "content", "text": "content",
}

// skillCodeLimit bounds the cell read as a helper call.
const skillCodeLimit = 1 << 20

// ohSkillEdit returns the str_replace_editor call that a run_ipython
// cell (its arguments, {"code": …}) amounts to, when the cell is one call
// of an edit helper with literal arguments.
func ohSkillEdit(arguments json.RawMessage) (json.RawMessage, bool) {
	var a struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(arguments, &a) != nil || a.Code == "" {
		return nil, false
	}
	name, args, ok := parseSkillCall(a.Code)
	if !ok {
		return nil, false
	}
	named := map[string]pyArg{}
	params := skillParams[name]
	if name == "edit_file" && len(args) == 6 {
		params = []string{"file_name", "start", "start_str", "end", "end_str", "content"}
	}
	for i, arg := range args {
		key := arg.key
		if key == "" {
			if i >= len(params) {
				return nil, false
			}
			key = params[i]
		}
		if k, ok := skillAliases[key]; ok {
			key = k
		}
		named[key] = arg
	}
	file, ok := named["file_name"]
	if !ok || file.isInt || file.str == "" {
		return nil, false
	}
	out := map[string]any{"path": file.str}
	switch name {
	case "edit_file_by_replace":
		out["command"] = "str_replace"
		out["old_str"] = named["to_replace"].str
		out["new_str"] = named["new_content"].str
	case "edit_file":
		// A range of lines replaced: the text it replaces is not given.
		out["command"] = "str_replace"
		out["new_str"] = named["content"].str
	case "insert_content_at_line":
		out["command"] = "insert"
		out["new_str"] = named["content"].str
		if line := named["line_number"]; line.isInt {
			n, _ := strconv.Atoi(line.str)
			out["insert_line"] = n
		}
	case "append_file":
		out["command"] = "insert"
		out["new_str"] = named["content"].str
	case "create_file":
		out["command"] = "create"
		out["file_text"] = ""
	}
	raw, err := json.Marshal(out)
	return raw, err == nil
}

// ohIPythonFailed reports whether a run_ipython observation shows that
// its cell failed: an exception's traceback, or an edit helper's "No
// exact match found".
func ohIPythonFailed(text string) bool {
	return strings.Contains(text, "No exact match found") || strings.Contains(text, "Traceback (most recent call last)")
}

// pyArg is one argument of a Python call: a string or an integer literal,
// named by key when given as a keyword.
type pyArg struct {
	key   string
	str   string // the string's value, or the integer's digits
	isInt bool
}

// parseSkillCall reads code as one call of an agentskills helper whose
// arguments are literals, after import lines and comments. It reports
// false for anything else.
func parseSkillCall(code string) (name string, args []pyArg, ok bool) {
	if len(code) > skillCodeLimit {
		return "", nil, false
	}
	p := &pyScanner{s: code}
	for {
		p.skipSpace(true)
		if !strings.HasPrefix(p.rest(), "from ") && !strings.HasPrefix(p.rest(), "import ") {
			break
		}
		p.skipLine()
	}
	name = p.ident()
	if _, known := skillParams[name]; !known {
		return "", nil, false
	}
	p.skipSpace(false)
	if !p.eat('(') {
		return "", nil, false
	}
	for {
		p.skipSpace(true)
		if p.eat(')') {
			break
		}
		var arg pyArg
		save := p.i
		if key := p.ident(); key != "" {
			p.skipSpace(true)
			if p.eat('=') && !p.peek('=') {
				arg.key = key
			} else {
				p.i = save
			}
		}
		p.skipSpace(true)
		if !p.value(&arg) {
			return "", nil, false
		}
		args = append(args, arg)
		p.skipSpace(true)
		if p.eat(',') {
			continue
		}
		if !p.eat(')') {
			return "", nil, false
		}
		break
	}
	p.skipSpace(true)
	p.eat(';')
	p.skipSpace(true)
	if p.i != len(p.s) {
		return "", nil, false
	}
	return name, args, true
}

// pyScanner reads Python source from s at i.
type pyScanner struct {
	s string
	i int
}

func (p *pyScanner) rest() string { return p.s[p.i:] }

func (p *pyScanner) peek(c byte) bool { return p.i < len(p.s) && p.s[p.i] == c }

func (p *pyScanner) eat(c byte) bool {
	if p.peek(c) {
		p.i++
		return true
	}
	return false
}

// skipSpace skips blanks and comments, and line ends when lines is set.
func (p *pyScanner) skipSpace(lines bool) {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '\n' && lines:
			p.i++
		case c == '\\' && strings.HasPrefix(p.s[p.i:], "\\\n"):
			p.i += 2
		case c == '#':
			p.skipLine()
		default:
			return
		}
	}
}

func (p *pyScanner) skipLine() {
	if n := strings.IndexByte(p.s[p.i:], '\n'); n >= 0 {
		p.i += n + 1
	} else {
		p.i = len(p.s)
	}
}

// ident reads an identifier, or returns "".
func (p *pyScanner) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || p.i > start && c >= '0' && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// value reads a literal into arg: an integer, one or more adjacent
// strings, or either in parentheses.
func (p *pyScanner) value(arg *pyArg) bool {
	if p.eat('(') {
		p.skipSpace(true)
		if !p.value(arg) {
			return false
		}
		p.skipSpace(true)
		return p.eat(')')
	}
	if p.i < len(p.s) && (p.s[p.i] == '-' || p.s[p.i] >= '0' && p.s[p.i] <= '9') {
		start := p.i
		p.i++
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		arg.str, arg.isInt = p.s[start:p.i], true
		_, err := strconv.Atoi(arg.str)
		return err == nil
	}
	var b strings.Builder
	n := 0
	for {
		save := p.i
		if n > 0 {
			p.skipSpace(true)
		}
		if !p.str(&b) {
			p.i = save
			break
		}
		n++
	}
	arg.str = b.String()
	return n > 0
}

// str reads one string literal onto b: an optional r or u prefix, then
// '…', "…", ”'…”' or """…""". An f-string or bytes is not a literal
// the reader knows the value of.
func (p *pyScanner) str(b *strings.Builder) bool {
	raw := false
	switch {
	case strings.HasPrefix(p.rest(), "r") || strings.HasPrefix(p.rest(), "R"):
		raw = true
		p.i++
	case strings.HasPrefix(p.rest(), "u") || strings.HasPrefix(p.rest(), "U"):
		p.i++
	}
	if p.i >= len(p.s) || p.s[p.i] != '\'' && p.s[p.i] != '"' {
		return false
	}
	q := p.s[p.i : p.i+1]
	if strings.HasPrefix(p.rest(), q+q+q) {
		q += q + q
	}
	p.i += len(q)
	for p.i < len(p.s) {
		if strings.HasPrefix(p.rest(), q) {
			p.i += len(q)
			return true
		}
		c := p.s[p.i]
		switch {
		case c == '\n' && len(q) == 1:
			return false
		case c == '\\' && p.i+1 < len(p.s):
			if raw {
				b.WriteString(p.s[p.i : p.i+2])
				p.i += 2
				continue
			}
			p.escape(b)
		default:
			_, size := utf8.DecodeRuneInString(p.rest())
			b.WriteString(p.s[p.i : p.i+size])
			p.i += size
		}
	}
	return false
}

// escape reads the escape sequence at i onto b.
func (p *pyScanner) escape(b *strings.Builder) {
	c := p.s[p.i+1]
	p.i += 2
	switch c {
	case '\n':
	case 'n':
		b.WriteByte('\n')
	case 't':
		b.WriteByte('\t')
	case 'r':
		b.WriteByte('\r')
	case '0':
		b.WriteByte(0)
	case 'a':
		b.WriteByte('\a')
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'v':
		b.WriteByte('\v')
	case '\\', '\'', '"':
		b.WriteByte(c)
	case 'x', 'u', 'U':
		width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
		if p.i+width <= len(p.s) {
			if n, err := strconv.ParseUint(p.s[p.i:p.i+width], 16, 32); err == nil && utf8.ValidRune(rune(n)) {
				b.WriteRune(rune(n))
				p.i += width
				return
			}
		}
		b.WriteByte('\\')
		b.WriteByte(c)
	default:
		b.WriteByte('\\')
		b.WriteByte(c)
	}
}
