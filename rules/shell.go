package rules

import (
	"strings"
	"sync"
)

// simpleCmd is one simple command of a shell command line: its words
// after quote removal, where its output goes and what it reads.
type simpleCmd struct {
	// args are the words, environment assignments (A=b) left out.
	args []string
	// env are the environment assignments before the words, which run
	// the command in another environment.
	env []string
	// out lists files the command writes with > or >>.
	out []string
	// appends is set when an output redirection is >>.
	appends bool
	// in is a file redirected to standard input with <.
	in string
	// heredoc is the body of a here-document fed to the command.
	heredoc string
	// piped is set when the command reads the previous one's output.
	piped bool
	// op is the operator that follows the command: "&&", "||", ";", "|",
	// "&", or "" at the end.
	op string
}

// parseShell splits a command line into its simple commands, in order. It
// understands quotes, backslashes, the operators && || ; | & and newlines,
// redirections and here-documents; it does not expand anything. Compound
// syntax (for, if, while, subshells) is flattened: keywords such as "do"
// and "then" are dropped from the front of the command they introduce.
// It is a reader of intent for detectors, not a shell: on malformed input
// it returns what it understood.
func parseShell(s string) []simpleCmd {
	p := shellParser{s: s}
	p.run()
	return p.cmds
}

// parsers holds shellParsers whose memory is reused from one command line
// to the next.
var parsers = sync.Pool{New: func() any { return new(shellParser) }}

// parsePooled is parseShell with a parser taken from parsers: the
// commands are in its cmds, valid until its release method hands it back.
func parsePooled(s string) *shellParser {
	p := parsers.Get().(*shellParser)
	p.s = s
	p.run()
	return p
}

// release forgets the line (so that the pool keeps none of its text
// alive) and puts the parser back in the pool, unless a huge line made it
// too big to keep.
func (p *shellParser) release() {
	if cap(p.words) > 4096 || cap(p.cmds) > 1024 || cap(p.scratch) > 64<<10 {
		return
	}
	clear(p.cmds)
	clear(p.words)
	clear(p.docs)
	*p = shellParser{cmds: p.cmds[:0], words: p.words[:0], docs: p.docs[:0], scratch: p.scratch[:0]}
	parsers.Put(p)
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
	// scratch is a buffer for renderings of the line.
	scratch []byte
	// pending here-document delimiters, each with the index of the
	// command it feeds.
	docs []pendingDoc
	// redirect is the operator waiting for its target word: ">", ">>",
	// "<", "<<" (with strip set for <<-), or "" when none.
	redirect string
	strip    bool
	piped    bool
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
			p.end(false)
			p.i++
			p.readHeredocs()
		case c == ' ' || c == '\t' || c == '\r':
			p.i++
		case c == '#' && p.atWordStart():
			for p.i < len(p.s) && p.s[p.i] != '\n' {
				p.i++
			}
		case c == ';' || c == '(' || c == ')' || c == '{' && p.standalone() || c == '}' && p.standalone():
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
			case "do", "then", "else", "elif", "!", "time", "exec":
				return
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

func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		if !isWordByte(w[i]) {
			return false
		}
	}
	return true
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

// program returns the command's program name without its folder, after
// skipping wrappers that run another command (sudo, env, timeout N,
// nohup, xargs, …), and the arguments that follow it.
func (c *simpleCmd) program() (string, []string) {
	args := c.args
	for len(args) > 0 {
		name := baseName(args[0])
		switch name {
		case "sudo", "nohup", "nice", "command", "builtin", "stdbuf", "unbuffer", "caffeinate":
			args = skipFlags(args[1:])
			continue
		case "env":
			args = args[1:]
			for len(args) > 0 && (isAssignment(args[0]) || strings.HasPrefix(args[0], "-")) {
				args = args[1:]
			}
			continue
		case "timeout", "gtimeout":
			args = skipFlags(args[1:])
			if len(args) > 0 {
				args = args[1:] // the duration
			}
			continue
		case "xargs":
			args = skipFlags(args[1:])
			continue
		case "time":
			args = args[1:]
			continue
		}
		return name, args[1:]
	}
	return "", nil
}

func skipFlags(args []string) []string {
	for len(args) > 0 && strings.HasPrefix(args[0], "-") {
		args = args[1:]
	}
	return args
}

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}
