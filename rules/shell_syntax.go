package rules

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// syntaxParsers holds bash parsers for reuse: a parser keeps its buffers
// from one line to the next. RecoverErrors lets it read lines that lack
// a closing token (a truncated `if`, `(foo |`), which agents write often.
var syntaxParsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.RecoverErrors(8))
}}

// maxSyntaxDepth bounds how deep the walk goes into nested commands (if
// in while in $(…)); a command line nested deeper than any person writes
// is read down to here. Lists and pipelines do not nest.
const maxSyntaxDepth = 128

// parseSyntax reads a command line with mvdan.cc/sh's bash parser and
// returns its simple commands, or false when the parser rejects the line
// or could only read it by dropping text (an unclosed quote), for which
// the hand parser's reading is better.
func parseSyntax(s string) ([]simpleCmd, bool) {
	p := syntaxParsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(s), "")
	syntaxParsers.Put(p)
	if err != nil || f == nil {
		return nil, false
	}
	r := syntaxReader{src: s, pipeStart: -1}
	r.stmts(f.Stmts)
	if r.lost {
		return nil, false
	}
	return r.cmds, true
}

// syntaxReader turns a parsed command line into simple commands: every
// call inside lists, pipelines, if/while/until/for/case, subshells,
// blocks, functions, command and process substitutions, in the order
// they appear, with compound syntax and keywords left out.
type syntaxReader struct {
	src  string
	cmds []simpleCmd
	// pipeNext is set when the next command emitted reads the previous
	// one's output.
	pipeNext bool
	// pipeStart is where the commands of the pipeline being read start in
	// cmds, or -1 outside a pipeline. Commands that run inside a word of a
	// piped command ($(…)) are moved there, so the pipe stays between the
	// commands it joins.
	pipeStart int
	depth     int
	// lost is set when the parser recovered from an error by dropping
	// text the words needed.
	lost bool
}

func (r *syntaxReader) stmts(list []*syntax.Stmt) {
	for _, st := range list {
		r.stmt(st)
	}
}

func (r *syntaxReader) stmt(st *syntax.Stmt) {
	if st == nil || st.Cmd == nil {
		return
	}
	if bin, ok := st.Cmd.(*syntax.BinaryCmd); ok {
		// A list or pipeline is as long as the line makes it, not
		// nested: it does not count towards the depth.
		start := len(r.cmds)
		r.binary(bin)
		if st.Background {
			r.setOp(start, "&")
		}
		return
	}
	if r.depth >= maxSyntaxDepth {
		return
	}
	r.depth++
	defer func() { r.depth-- }()
	start := len(r.cmds)
	if call, ok := st.Cmd.(*syntax.CallExpr); ok {
		r.call(call, st.Redirs)
	} else {
		r.compound(st.Cmd)
		if len(st.Redirs) > 0 {
			r.redirectCompound(start, st.Redirs)
		}
	}
	if st.Background {
		r.setOp(start, "&")
	}
}

// setOp sets the operator after the last command emitted since start.
func (r *syntaxReader) setOp(start int, op string) {
	if len(r.cmds) > start {
		r.cmds[len(r.cmds)-1].op = op
	}
}

func (r *syntaxReader) compound(cmd syntax.Command) {
	switch c := cmd.(type) {
	case *syntax.BinaryCmd:
		r.binary(c)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			r.stmts(c.Cond)
			r.stmts(c.Then)
		}
	case *syntax.WhileClause:
		r.stmts(c.Cond)
		r.stmts(c.Do)
	case *syntax.ForClause:
		if it, ok := c.Loop.(*syntax.WordIter); ok {
			for _, w := range it.Items {
				r.substitutions(w)
			}
		}
		r.stmts(c.Do)
	case *syntax.CaseClause:
		r.substitutions(c.Word)
		for _, item := range c.Items {
			r.stmts(item.Stmts)
		}
	case *syntax.Block:
		r.stmts(c.Stmts)
	case *syntax.Subshell:
		r.stmts(c.Stmts)
	case *syntax.FuncDecl:
		// A function defined on the line is there to be called on it:
		// its body is what the line runs.
		r.stmt(c.Body)
	case *syntax.TimeClause:
		r.stmt(c.Stmt)
	case *syntax.CoprocClause:
		r.stmt(c.Stmt)
	case *syntax.DeclClause:
		r.decl(c)
	case *syntax.TestClause:
		r.test(c)
	case *syntax.LetClause:
		args := []string{"let"}
		for _, x := range c.Exprs {
			args = append(args, r.text(x.Pos(), x.End()))
		}
		r.emit(simpleCmd{args: args})
	}
	// Arithmetic commands (( … )) and bats tests run no program.
}

func (r *syntaxReader) binary(c *syntax.BinaryCmd) {
	switch c.Op {
	case syntax.Pipe, syntax.PipeAll:
		outer := r.pipeStart
		if outer < 0 {
			r.pipeStart = len(r.cmds)
		}
		start := len(r.cmds)
		r.stmt(c.X)
		r.setOp(start, "|")
		r.pipeNext = true
		r.stmt(c.Y)
		r.pipeStart = outer
		if outer < 0 {
			r.pipeNext = false
		}
	default:
		op := "&&"
		if c.Op == syntax.OrStmt {
			op = "||"
		}
		start := len(r.cmds)
		r.stmt(c.X)
		r.setOp(start, op)
		r.stmt(c.Y)
	}
}

// call emits a simple command, after the commands its words run.
func (r *syntaxReader) call(c *syntax.CallExpr, redirs []*syntax.Redirect) {
	r.callSubstitutions(c, redirs)
	var sc simpleCmd
	for _, a := range c.Assigns {
		sc.env = append(sc.env, r.assign(a))
	}
	if len(c.Args) > 0 {
		sc.args = make([]string, len(c.Args))
		for i, w := range c.Args {
			sc.args[i] = r.word(w)
		}
	}
	hasDoc := r.redirects(&sc, redirs)
	if len(sc.args) == 0 && len(sc.out) == 0 && sc.heredoc == "" && !hasDoc {
		// Assignments alone (x=$(…)) run nothing themselves.
		return
	}
	if len(sc.args) == 0 {
		sc.env = nil
	}
	r.emit(sc)
}

// callSubstitutions emits the commands that the words of a call run, at
// the start of the pipeline when the call is in one.
func (r *syntaxReader) callSubstitutions(c *syntax.CallExpr, redirs []*syntax.Redirect) {
	mark := len(r.cmds)
	piped := r.pipeNext
	r.pipeNext = false
	for _, a := range c.Assigns {
		if a.Value != nil {
			r.substitutions(a.Value)
		}
		if a.Array != nil {
			for _, e := range a.Array.Elems {
				r.substitutions(e.Value)
			}
		}
	}
	for _, w := range c.Args {
		r.substitutions(w)
	}
	for _, rd := range redirs {
		// A here-document's body is the text the agent meant to write,
		// not commands it meant to run, even when its delimiter is
		// unquoted.
		r.substitutions(rd.Word)
	}
	r.pipeNext = piped
	if r.pipeStart >= 0 && mark > r.pipeStart && len(r.cmds) > mark {
		rotate(r.cmds[r.pipeStart:], len(r.cmds)-mark)
	}
}

// rotate moves the last k elements of cmds to the front, keeping order.
func rotate(cmds []simpleCmd, k int) {
	reverse(cmds)
	reverse(cmds[:k])
	reverse(cmds[k:])
}

func reverse(cmds []simpleCmd) {
	for i, j := 0, len(cmds)-1; i < j; i, j = i+1, j-1 {
		cmds[i], cmds[j] = cmds[j], cmds[i]
	}
}

// substitutions emits the commands run by $(…), `…`, <(…) and >(…)
// anywhere in a word, quotes and parameter expansions included.
func (r *syntaxReader) substitutions(w *syntax.Word) {
	if w == nil || isPlainWord(w) {
		return
	}
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			r.nested(n.Stmts)
			return false
		case *syntax.ProcSubst:
			r.nested(n.Stmts)
			return false
		}
		return true
	})
}

// nested reads the statements of a substitution, which form their own
// command line: their pipelines are their own.
func (r *syntaxReader) nested(list []*syntax.Stmt) {
	outer := r.pipeStart
	r.pipeStart = -1
	r.stmts(list)
	r.pipeStart = outer
}

func isPlainWord(w *syntax.Word) bool {
	for _, p := range w.Parts {
		switch p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		default:
			return false
		}
	}
	return true
}

func (r *syntaxReader) emit(sc simpleCmd) {
	sc.piped = r.pipeNext
	r.pipeNext = false
	if sc.op == "" {
		sc.op = ";"
	}
	r.cmds = append(r.cmds, sc)
}

// redirects records a command's redirections in sc and reports whether
// one of them is a here-document.
func (r *syntaxReader) redirects(sc *simpleCmd, redirs []*syntax.Redirect) (hasDoc bool) {
	for _, rd := range redirs {
		switch rd.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrAllClob, syntax.AppAllClob:
			if rd.N != nil && rd.N.Value != "1" {
				// 2>file: error output to a file; it is not the
				// command's result.
				continue
			}
			if w := r.word(rd.Word); w != "/dev/null" {
				sc.out = append(sc.out, w)
				sc.appends = rd.Op == syntax.AppOut || rd.Op == syntax.AppClob || rd.Op == syntax.AppAll || rd.Op == syntax.AppAllClob
			}
		case syntax.RdrIn:
			if rd.N == nil || rd.N.Value == "0" {
				sc.in = r.word(rd.Word)
			}
		case syntax.Hdoc, syntax.DashHdoc:
			hasDoc = true
			sc.heredoc = r.heredoc(rd)
		case syntax.WordHdoc:
			sc.heredoc = r.word(rd.Word)
		}
		// Duplicating a descriptor (2>&1, <&3) and <> write no file.
	}
	return hasDoc
}

// redirectCompound applies the redirections of a compound command to the
// commands it emitted from start: what it reads goes to the first, what it
// writes to the last.
func (r *syntaxReader) redirectCompound(start int, redirs []*syntax.Redirect) {
	var sc simpleCmd
	hasDoc := r.redirects(&sc, redirs)
	if len(r.cmds) == start {
		if len(sc.out) > 0 || sc.heredoc != "" || hasDoc {
			r.emit(sc)
		}
		return
	}
	first, last := &r.cmds[start], &r.cmds[len(r.cmds)-1]
	if sc.in != "" {
		first.in = sc.in
	}
	if sc.heredoc != "" {
		first.heredoc = sc.heredoc
	}
	if len(sc.out) > 0 {
		last.out = append(last.out[:len(last.out):len(last.out)], sc.out...)
		last.appends = sc.appends
	}
}

// heredoc renders a here-document's body as written, expansions kept.
func (r *syntaxReader) heredoc(rd *syntax.Redirect) string {
	if rd.Hdoc == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range rd.Hdoc.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			// A literal's end may lie past the closing delimiter; its
			// value is the text.
			b.WriteString(l.Value)
		} else {
			b.WriteString(r.text(p.Pos(), p.End()))
		}
	}
	body := b.String()
	if rd.Op == syntax.DashHdoc {
		// The parser leaves the tabs before a <<- delimiter in the body.
		if t := strings.TrimRight(body, "\t"); t == "" || strings.HasSuffix(t, "\n") {
			body = t
		}
	}
	return body
}

// decl emits export, local, declare and the like with their arguments.
func (r *syntaxReader) decl(c *syntax.DeclClause) {
	for _, a := range c.Args {
		if a.Value != nil {
			r.substitutions(a.Value)
		}
	}
	args := []string{c.Variant.Value}
	for _, a := range c.Args {
		args = append(args, r.assign(a))
	}
	r.emit(simpleCmd{args: args})
}

// test emits [[ … ]] as a command named "[[" with its words and
// operators, after the commands its words run.
func (r *syntaxReader) test(c *syntax.TestClause) {
	args := []string{"[["}
	var walk func(x syntax.TestExpr)
	walk = func(x syntax.TestExpr) {
		switch x := x.(type) {
		case *syntax.BinaryTest:
			walk(x.X)
			args = append(args, x.Op.String())
			walk(x.Y)
		case *syntax.UnaryTest:
			args = append(args, x.Op.String())
			walk(x.X)
		case *syntax.ParenTest:
			args = append(args, "(")
			walk(x.X)
			args = append(args, ")")
		case *syntax.Word:
			r.substitutions(x)
			args = append(args, r.word(x))
		}
	}
	walk(c.X)
	r.emit(simpleCmd{args: append(args, "]]")})
}

// assign renders an assignment as NAME=value with quotes removed.
func (r *syntaxReader) assign(a *syntax.Assign) string {
	if a.Naked {
		if a.Name != nil {
			return a.Name.Value
		}
		return r.word(a.Value)
	}
	if a.Name == nil || a.Index != nil || a.Array != nil {
		return r.text(a.Pos(), a.End())
	}
	eq := "="
	if a.Append {
		eq = "+="
	}
	if a.Value == nil {
		return a.Name.Value + eq
	}
	return a.Name.Value + eq + r.word(a.Value)
}

// word renders a word to its literal text where it is static, quotes
// and backslashes removed, and keeps expansions ($x, $(…), $((…))) as
// written.
func (r *syntaxReader) word(w *syntax.Word) string {
	if w == nil {
		return ""
	}
	if len(w.Parts) == 1 {
		switch p := w.Parts[0].(type) {
		case *syntax.Lit:
			if strings.IndexByte(p.Value, '\\') < 0 {
				return p.Value
			}
		case *syntax.SglQuoted:
			if !p.Dollar && !p.Right.IsRecovered() {
				return p.Value
			}
		}
	}
	var b strings.Builder
	for _, p := range w.Parts {
		r.part(&b, p, false)
	}
	return b.String()
}

func (r *syntaxReader) part(b *strings.Builder, p syntax.WordPart, quoted bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		unescape(b, p.Value, quoted)
	case *syntax.SglQuoted:
		if p.Right.IsRecovered() {
			r.lost = true
		}
		if p.Dollar {
			b.WriteByte('$')
		}
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		if p.Right.IsRecovered() {
			r.lost = true
		}
		for _, q := range p.Parts {
			r.part(b, q, true)
		}
	default:
		b.WriteString(r.text(p.Pos(), p.End()))
	}
}

// unescape writes a literal without its backslashes: outside quotes a
// backslash quotes any character; inside double quotes only $ ` " \ and
// newline. (The parser has already removed line continuations outside
// quotes.)
func unescape(b *strings.Builder, s string, quoted bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(c)
		}
	}
}

// text returns the line's text between two positions; an end the parser
// made up while recovering from an error, or one out of range, reads to
// the end of the line.
func (r *syntaxReader) text(from, to syntax.Pos) string {
	start, end := int(from.Offset()), int(to.Offset())
	if !from.IsValid() || from.IsRecovered() || start > len(r.src) {
		return ""
	}
	if !to.IsValid() || to.IsRecovered() || end > len(r.src) || end < start {
		end = len(r.src)
	}
	return r.src[start:end]
}
