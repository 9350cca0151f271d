package rules

import (
	"strings"
	"sync"
)

// parseHand is the hand-written reader of a command line: it understands
// quotes, backslashes, the operators && || ; | & and newlines,
// redirections and here-documents, and expands nothing. It reads every
// line first; its reading stands for lines without compound syntax, for
// lines the bash parser rejects (truncated, a Windows path, PowerShell)
// and for lines nested too deep (see parseShell). Compound syntax is
// flattened: keywords that open or close a command (if, then, do, while,
// fi, done, …) are dropped from its front, and the headers of for, case
// and function are not commands. On malformed input it returns what it
// understood.
func parseHand(s string) []simpleCmd {
	cmds, _ := readHand(s)
	return cmds
}

// readHand is parseHand that also reports whether the line holds syntax
// the hand parser only flattens: a keyword of compound commands, a
// subshell or block, [[ ]], or a command or process substitution, outside
// here-document bodies.
func readHand(s string) (cmds []simpleCmd, compound bool) {
	p := handParsers.Get().(*shellParser)
	p.s = s
	p.run()
	cmds, compound = p.result(), p.compound
	p.release()
	return cmds, compound
}

// handParsers holds shellParsers whose memory is reused from one line to
// the next; readHand copies what it returns out of it.
var handParsers = sync.Pool{New: func() any { return new(shellParser) }}

// result copies the commands out of the parser's reused memory into two
// allocations of their exact size: one for the commands, one for their
// words.
func (p *shellParser) result() []simpleCmd {
	if len(p.cmds) == 0 {
		return nil
	}
	n := 0
	for i := range p.cmds {
		n += len(p.cmds[i].env) + len(p.cmds[i].args)
	}
	words := make([]string, 0, n)
	cmds := make([]simpleCmd, len(p.cmds))
	for i, c := range p.cmds {
		if len(c.env) > 0 {
			k := len(words)
			words = append(words, c.env...)
			c.env = words[k:len(words):len(words)]
		}
		if len(c.args) > 0 {
			k := len(words)
			words = append(words, c.args...)
			c.args = words[k:len(words):len(words)]
		}
		cmds[i] = c
	}
	return cmds
}

// release forgets the line (so that the pool keeps none of its text
// alive) and puts the parser back in the pool, unless a huge line made it
// too big to keep.
func (p *shellParser) release() {
	if cap(p.words) > 4096 || cap(p.cmds) > 1024 {
		return
	}
	clear(p.cmds)
	clear(p.words)
	clear(p.docs)
	*p = shellParser{cmds: p.cmds[:0], words: p.words[:0], docs: p.docs[:0]}
	handParsers.Put(p)
}

type shellParser struct {
	s    string
	i    int
	cmds []simpleCmd
	cur  simpleCmd
	// words holds the words of every command of the line; argStart is
	// where the current command's words start, the first assigns of them
	// its environment assignments.
	words    []string
	argStart int
	assigns  int
	// pending here-document delimiters, each with the index of the
	// command it feeds.
	docs []pendingDoc
	// redirect is the operator waiting for its target word: ">", ">>",
	// "<", "<<" (with strip set for <<-), or "" when none.
	redirect string
	strip    bool
	piped    bool
	// compound is set on meeting syntax this parser flattens (see
	// readHand).
	compound bool
}

type pendingDoc struct {
	delim string
	strip bool
	cmd   int
}

func (p *shellParser) run() {
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '\n':
			// A newline right after a | goes on with the pipeline, as
			// bash reads it; anywhere else it ends the command.
			if !p.piped || !p.curEmpty() {
				p.end(false)
			}
			p.i++
			p.readHeredocs()
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '\\' && p.i+1 < len(p.s) && p.s[p.i+1] == '\n':
			// A line continuation between words is a space, not an
			// empty word.
			p.i += 2
		case c == '#' && p.atWordStart():
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == ';':
			p.endOp(";")
			p.i++
		case c == '(' || c == ')' || c == '{' && p.standalone() || c == '}' && p.standalone():
			p.compound = true
			p.endOp(";")
			p.i++
		case c == '&':
			if strings.HasPrefix(p.s[p.i:], "&>") {
				p.i += 2
				p.redirect = ">"
				continue
			}
			op := "&"
			if strings.HasPrefix(p.s[p.i:], "&&") {
				p.i++
				op = "&&"
			}
			p.endOp(op)
			p.i++
		case c == '|':
			if strings.HasPrefix(p.s[p.i:], "||") {
				p.endOp("||")
				p.i += 2
				continue
			}
			p.endOp("|")
			p.i++
		case c == '>' || c == '<' || (c >= '0' && c <= '9' && p.isFDRedirect()):
			p.readRedirect()
		default:
			w := p.readWord()
			p.addWord(w)
		}
	}
	p.end(false)
}

// atWordStart reports whether position i begins a word (a # there starts
// a comment).
func (p *shellParser) atWordStart() bool {
	return p.i == 0 || strings.IndexByte(" \t\n;&|()", p.s[p.i-1]) >= 0
}

// standalone reports whether a brace at i stands alone as a word.
func (p *shellParser) standalone() bool {
	next := p.i + 1
	return p.atWordStart() && (next >= len(p.s) || strings.IndexByte(" \t\n;", p.s[next]) >= 0)
}

// isFDRedirect reports whether the digits at i are a file descriptor
// before > or < (as in 2>&1 or 2>/dev/null).
func (p *shellParser) isFDRedirect() bool {
	if !p.atWordStart() {
		return false
	}
	j := p.i
	for j < len(p.s) && p.s[j] >= '0' && p.s[j] <= '9' {
		j++
	}
	return j < len(p.s) && (p.s[j] == '>' || p.s[j] == '<')
}

func (p *shellParser) readRedirect() {
	fd := ""
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		fd += p.s[p.i : p.i+1]
		p.i++
	}
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "<<<"):
		p.i += 3
		p.redirect = "<<<"
	case strings.HasPrefix(rest, "<<-"):
		p.i += 3
		p.redirect, p.strip = "<<", true
	case strings.HasPrefix(rest, "<<"):
		p.i += 2
		p.redirect, p.strip = "<<", false
	case strings.HasPrefix(rest, ">&") || strings.HasPrefix(rest, "<&"):
		// Duplicating a descriptor (2>&1) writes no file.
		p.i += 2
		p.readWord()
		return
	case strings.HasPrefix(rest, ">>"):
		p.i += 2
		p.redirect = ">>"
	case strings.HasPrefix(rest, ">|"):
		p.i += 2
		p.redirect = ">"
	case strings.HasPrefix(rest, ">"):
		p.i++
		p.redirect = ">"
	default:
		p.i++
		p.redirect = "<"
	}
	if fd != "" && fd != "1" && p.redirect != "<" && p.redirect != "<<" {
		// 2>file: error output to a file; it is not the command's result.
		p.redirect = "2>"
	}
}

func (p *shellParser) addWord(w string) {
	switch p.redirect {
	case "":
		if len(p.words) == p.argStart+p.assigns {
			if isAssignment(w) {
				p.words = append(p.words, w)
				p.assigns++
				return
			}
			switch w {
			case "if", "elif", "then", "else", "fi", "do", "done", "while", "until", "esac", "!", "time":
				p.compound = true
				return
			case "exec":
				return
			case "[[":
				p.compound = true
			}
		}
		p.words = append(p.words, w)
	case ">", ">>":
		if w != "/dev/null" {
			p.cur.out = append(p.cur.out, w)
			p.cur.appends = p.redirect == ">>"
		}
	case "<":
		p.cur.in = w
	case "<<":
		p.docs = append(p.docs, pendingDoc{delim: w, strip: p.strip, cmd: len(p.cmds)})
	case "<<<":
		p.cur.heredoc = w
	}
	p.redirect = ""
}

// endOp closes the current simple command at an operator.
func (p *shellParser) endOp(op string) {
	p.cur.op = op
	p.end(op == "|")
}

// end closes the current simple command; piped says the next one reads
// its output.
func (p *shellParser) end(piped bool) {
	if p.cur.op == "" && !piped {
		p.cur.op = ";"
	}
	if n := len(p.words); n > p.argStart {
		env := p.argStart + p.assigns
		if env > p.argStart {
			p.cur.env = p.words[p.argStart:env:env]
		}
		if n > env {
			p.cur.args = p.words[env:n:n]
		}
		p.argStart, p.assigns = n, 0
	}
	if len(p.cur.args) > 0 && isKeywordCommand(p.cur.args) {
		p.cur.args = nil
		p.compound = true
	}
	if len(p.cur.args) > 0 || len(p.cur.out) > 0 || p.cur.heredoc != "" || p.hasDocFor(len(p.cmds)) {
		p.cur.piped = p.piped
		p.cmds = append(p.cmds, p.cur)
		p.piped = piped
	} else if piped {
		p.piped = true
	} else {
		p.piped = false
	}
	p.cur = simpleCmd{}
	p.redirect = ""
}

// curEmpty says the current simple command has nothing yet.
func (p *shellParser) curEmpty() bool {
	return len(p.words) == p.argStart && len(p.cur.out) == 0 && p.cur.in == "" && p.cur.heredoc == "" && !p.hasDocFor(len(p.cmds))
}

func (p *shellParser) hasDocFor(cmd int) bool {
	for _, d := range p.docs {
		if d.cmd == cmd {
			return true
		}
	}
	return false
}

// readHeredocs reads the bodies of the here-documents opened on the line
// that just ended.
func (p *shellParser) readHeredocs() {
	for _, d := range p.docs {
		start := p.i
		body := ""
		found := false
		for p.i <= len(p.s) {
			end := strings.IndexByte(p.s[p.i:], '\n')
			var line string
			if end < 0 {
				line = p.s[p.i:]
			} else {
				line = p.s[p.i : p.i+end]
			}
			check := line
			if d.strip {
				check = strings.TrimLeft(check, "\t")
			}
			if strings.TrimRight(check, " \r") == d.delim {
				body = p.s[start:p.i]
				found = true
				if end < 0 {
					p.i = len(p.s)
				} else {
					p.i += end + 1
				}
				break
			}
			if end < 0 {
				p.i = len(p.s)
				break
			}
			p.i += end + 1
		}
		if !found {
			body = p.s[start:p.i]
		}
		if d.cmd < len(p.cmds) {
			p.cmds[d.cmd].heredoc = body
		}
	}
	p.docs = p.docs[:0]
}

// readWord reads one word at i, removing quotes and backslashes. Command
// substitutions $(…) and backquotes are kept as they are, inside the word.
func (p *shellParser) readWord() string {
	// Most words are plain: return them as a slice of the line.
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == ')' {
			return p.s[start:p.i]
		}
		if c == '\'' || c == '"' || c == '\\' || c == '`' || c == '(' {
			break
		}
		p.i++
	}
	if p.i == len(p.s) {
		return p.s[start:]
	}
	var b strings.Builder
	b.WriteString(p.s[start:p.i])
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' || c == '<' || c == '>' || c == '(' || c == ')':
			if c == '(' && b.Len() > 0 && strings.HasSuffix(b.String(), "$") {
				p.compound = true
				p.readBalanced(&b)
				continue
			}
			if b.Len() == 0 && (c == '(' || c == ')') {
				// A lone paren is handled by run.
				return ""
			}
			return b.String()
		case c == '\'':
			end := strings.IndexByte(p.s[p.i+1:], '\'')
			if end < 0 {
				b.WriteString(p.s[p.i+1:])
				p.i = len(p.s)
				return b.String()
			}
			b.WriteString(p.s[p.i+1 : p.i+1+end])
			p.i += end + 2
		case c == '"':
			p.i++
			for p.i < len(p.s) && p.s[p.i] != '"' {
				if p.s[p.i] == '\\' && p.i+1 < len(p.s) && strings.IndexByte("\"\\$`\n", p.s[p.i+1]) >= 0 {
					p.i++
				} else if p.s[p.i] == '`' || p.s[p.i] == '$' && p.i+1 < len(p.s) && p.s[p.i+1] == '(' {
					// A substitution inside double quotes.
					p.compound = true
				}
				b.WriteByte(p.s[p.i])
				p.i++
			}
			p.i++
		case c == '\\':
			if p.i+1 < len(p.s) {
				if p.s[p.i+1] != '\n' {
					b.WriteByte(p.s[p.i+1])
				}
				p.i += 2
			} else {
				p.i++
			}
		case c == '`':
			p.compound = true
			end := strings.IndexByte(p.s[p.i+1:], '`')
			if end < 0 {
				b.WriteString(p.s[p.i:])
				p.i = len(p.s)
				return b.String()
			}
			b.WriteString(p.s[p.i : p.i+end+2])
			p.i += end + 2
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return b.String()
}

// readBalanced copies a parenthesised group starting at i into b.
func (p *shellParser) readBalanced(b *strings.Builder) {
	depth := 0
	for p.i < len(p.s) {
		c := p.s[p.i]
		b.WriteByte(c)
		p.i++
		switch c {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return
			}
		}
	}
}

// isKeywordCommand reports whether a flattened command is shell syntax
// rather than a program: the header of a for, select, case or function.
// (Keywords at the front of a command are dropped as it is read.)
func isKeywordCommand(args []string) bool {
	switch args[0] {
	case "{", "}":
		return len(args) == 1
	case "for", "select", "case", "function":
		return len(args) > 1
	}
	return false
}
