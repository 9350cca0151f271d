package rules

import (
	"path"
	"strings"
	"sync"
)

// shellFacts is what a shell command line does, as far as detectors care.
type shellFacts struct {
	kind Kind
	// test is set when the line runs a test suite or a test runner.
	test bool
	// run is set when the line runs a program or script written for the
	// task (python x.py, node x.js, ./x) or inline code (python -c).
	run bool
	// install is set when it installs packages or sets up the
	// environment (pip install, apt-get install, npm install, …).
	install bool
	// scripts are files the line runs with an interpreter.
	scripts []string
	// code is inline code the line runs (python -c, a here-document fed
	// to an interpreter).
	code string
	// edits are the files the line changes, in order.
	edits []Edit
	// paths are files the line reads or mentions, for "was it used".
	paths []string
	// canonical is the line with noise removed (cd prefixes, sleeps,
	// display filters), for comparing repeated commands.
	canonical string
	// env is the signature of the environment assignments (A=b cmd) of
	// the line's commands, which canonical leaves out; 0 when there are
	// none. The same command run in another environment is another run.
	env sig
	// bare is the line without its here-document bodies, operators kept.
	bare string
	// polls is set when the line sleeps before looking again.
	polls bool
	// depth counts nested bash -c lines, to bound recursion.
	depth int
}

// merge folds what an inner command line does into f.
func (f *shellFacts) merge(g shellFacts) {
	f.raise(g.kind)
	f.test = f.test || g.test
	f.run = f.run || g.run
	f.install = f.install || g.install
	f.polls = f.polls || g.polls
	f.scripts = append(f.scripts, g.scripts...)
	f.code += g.code
	f.edits = append(f.edits, g.edits...)
	f.paths = append(f.paths, g.paths...)
}

// analyseShell works out what a command line does.
func analyseShell(line string) shellFacts { return analyseShellDepth(line, 0) }

func analyseShellDepth(line string, depth int) shellFacts {
	f := shellFacts{depth: depth}
	if e, ok := sweEdit(line); ok {
		f.kind, f.edits, f.canonical, f.bare = KindEdit, []Edit{e}, line, line
		return f
	}
	cmds := parseShell(line)
	for i := range cmds {
		c := &cmds[i]
		prog, args := c.program()
		if prog == "" && len(c.out) == 0 {
			continue
		}
		f.classify(c, prog, args)
	}
	for i := range cmds {
		for _, w := range cmds[i].env {
			f.env = mix(f.env|1, textSig(w))
		}
	}
	// Both renderings go into a pooled scratch buffer; often one is the
	// line itself, which then serves as it is.
	buf := renderBufs.Get().(*[]byte)
	defer putRenderBuf(buf)
	b := canonicalShell((*buf)[:0], cmds)
	k := len(b)
	b = bareShell(b, cmds)
	*buf = b
	canonical, bare := b[:k], b[k:]
	switch {
	case string(canonical) == line && string(bare) == line:
		f.canonical, f.bare = line, line
	case string(canonical) == line:
		f.canonical, f.bare = line, string(bare)
	case string(bare) == line:
		f.canonical, f.bare = string(canonical), line
	case string(canonical) == string(bare):
		f.canonical = string(canonical)
		f.bare = f.canonical
	default:
		both := string(b)
		f.canonical, f.bare = both[:k], both[k:]
	}
	return f
}

// renderBufs holds buffers for the canonical and bare renderings of a
// line, which become strings only when they differ from it.
var renderBufs = sync.Pool{New: func() any { return new([]byte) }}

// putRenderBuf hands a buffer back, unless a huge line made it too big to
// keep.
func putRenderBuf(b *[]byte) {
	if cap(*b) <= 64<<10 {
		renderBufs.Put(b)
	}
}

// raise lifts the line's kind: edit > shell > search > read.
func (f *shellFacts) raise(k Kind) {
	rank := func(k Kind) int {
		switch k {
		case KindEdit:
			return 4
		case KindShell:
			return 3
		case KindSearch:
			return 2
		case KindRead:
			return 1
		}
		return 0
	}
	if rank(k) > rank(f.kind) {
		f.kind = k
	}
}

func (f *shellFacts) classify(c *simpleCmd, prog string, args []string) {
	// Output redirected to a file writes that file, whatever the program.
	for _, o := range c.out {
		e := Edit{Path: o, Op: EditWrite, New: c.heredoc}
		if c.appends {
			e.Op = EditAppend
		}
		if c.heredoc == "" {
			// echo text > file, sed … > file: the content is the command.
			e.New = strings.Join(c.args, " ")
		}
		f.edits = append(f.edits, e)
		f.raise(KindEdit)
	}
	switch {
	case prog == "cd" || prog == "export" || prog == "source" || prog == "." || prog == "set" || prog == "unset" || prog == "alias":
		return
	case prog == "git":
		f.git(args)
	case isStatusQuery(prog, args):
		// Asking how something is going: polling when repeated.
		f.raise(KindRead)
	case prog == "sed" || prog == "perl" && hasFlagPrefix(args, "-pi", "-i"):
		f.sed(prog, args)
	case prog == "cp" || prog == "mv" || prog == "install" && !hasFlagPrefix(args, "-d"):
		f.copy(prog, args)
	case prog == "rm" || prog == "unlink" || prog == "rmdir":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				f.edits = append(f.edits, Edit{Path: a, Op: EditDelete})
			}
		}
		f.raise(KindEdit)
	case prog == "tee":
		for _, a := range args {
			if !strings.HasPrefix(a, "-") {
				f.edits = append(f.edits, Edit{Path: a, Op: EditWrite, New: c.heredoc})
			}
		}
		f.raise(KindEdit)
	case prog == "touch" || prog == "mkdir" || prog == "chmod" || prog == "chown" || prog == "ln":
		f.raise(KindShell)
	case prog == "nix-shell" || prog == "nix" && len(args) > 0 && (args[0] == "develop" || args[0] == "shell"):
		f.envShell(prog, args)
	case prog == "patch" || prog == "apply_patch":
		f.patch(prog, c, args)
	case prog == "create":
		for _, a := range args {
			f.edits = append(f.edits, Edit{Path: a, Op: EditWrite})
		}
		f.raise(KindEdit)
	case prog == "str_replace_editor" || prog == "edit_file":
		f.editor(args)
	case prog == "submit":
		f.raise(KindOther)
	case isTestCommand(prog, args):
		f.test, f.run = true, true
		f.raise(KindShell)
	case isInstall(prog, args):
		f.install = true
		f.raise(KindShell)
	case interpreters[prog] || strings.HasPrefix(prog, "python"):
		f.interpret(c, prog, args)
	case isPathCommand(c, args) && !readOnlyPrograms[prog] && !searchPrograms[prog]:
		f.run = true
		f.scripts = append(f.scripts, c.args[len(c.args)-len(args)-1])
		f.raise(KindShell)
	case prog == "go" && len(args) > 0 && args[0] == "run", prog == "cargo" && len(args) > 0 && args[0] == "run":
		f.run = true
		f.raise(KindShell)
	case searchPrograms[prog] || psSearches[strings.ToLower(prog)]:
		f.mention(args)
		f.raise(KindSearch)
		if prog == "find" && (contains(args, "-delete") || contains(args, "-exec") && contains(args, "rm")) {
			f.raise(KindShell)
		}
	case readOnlyPrograms[prog] || psReads[strings.ToLower(prog)]:
		if prog == "sleep" {
			f.polls = true
		}
		f.mention(args)
		f.raise(KindRead)
	default:
		f.raise(KindShell)
	}
}

// envShell handles a development environment's shell that runs a command
// in it: nix-shell --run LINE (or --command LINE), nix develop -c COMMAND…;
// the line counts as what it does. Without one it starts an interactive
// shell and runs nothing.
func (f *shellFacts) envShell(prog string, args []string) {
	f.raise(KindShell)
	for i, a := range args {
		switch {
		case prog == "nix-shell" && (a == "--run" || a == "--command") && i+1 < len(args):
			f.nested(args[i+1])
			return
		case prog == "nix" && (a == "-c" || a == "--command") && i+1 < len(args):
			f.nested(strings.Join(args[i+1:], " "))
			return
		}
	}
}

// nested merges the facts of a command line run by the line being
// analysed, up to a depth of two.
func (f *shellFacts) nested(line string) {
	if f.depth < 2 {
		f.merge(analyseShellDepth(line, f.depth+1))
	}
}

// isPathCommand reports whether the program word of c, whose arguments
// are args, is a path (./build.sh, /usr/local/bin/tool) rather than a name.
func isPathCommand(c *simpleCmd, args []string) bool {
	i := len(c.args) - len(args) - 1
	if i < 0 || i >= len(c.args) {
		return false
	}
	w := c.args[i]
	return strings.HasPrefix(w, "./") || strings.HasPrefix(w, "../") || strings.HasPrefix(w, "/")
}

// mention records file-like arguments as paths the line reads.
func (f *shellFacts) mention(args []string) {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") && (strings.ContainsAny(a, "./") || path.Ext(a) != "") {
			f.paths = append(f.paths, a)
		}
	}
}

// interpret handles an interpreter: a script run, inline code, a module
// (python -m), or a shell running a command line (bash -c), which counts
// as what that line does.
func (f *shellFacts) interpret(c *simpleCmd, prog string, args []string) {
	shell := prog == "bash" || prog == "sh" || prog == "zsh" || prog == "dash"
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case shell && strings.HasPrefix(a, "-") && strings.HasSuffix(a, "c") && i+1 < len(args):
			if f.depth < 2 {
				f.merge(analyseShellDepth(args[i+1], f.depth+1))
			} else {
				f.raise(KindShell)
			}
			return
		case a == "-c" || a == "-e" || a == "--eval":
			if i+1 < len(args) {
				f.code += args[i+1]
			}
			f.run = true
			f.raise(KindShell)
			return
		case a == "-m":
			if i+1 < len(args) {
				f.run = true
				f.scripts = append(f.scripts, args[i+1])
			}
			f.raise(KindShell)
			return
		case a == "-":
			f.code += c.heredoc
			f.run = true
			f.raise(KindShell)
			return
		case strings.HasPrefix(a, "-"):
			continue
		default:
			f.run = true
			f.scripts = append(f.scripts, a)
			f.paths = append(f.paths, a)
			f.raise(KindShell)
			return
		}
	}
	f.raise(KindShell)
	if c.heredoc != "" || c.in != "" {
		f.code += c.heredoc
		f.run = true
	}
}

func hasFlagPrefix(args []string, prefixes ...string) bool {
	for _, a := range args {
		for _, p := range prefixes {
			if strings.HasPrefix(a, p) {
				return true
			}
		}
	}
	return false
}

func contains(args []string, s string) bool {
	for _, a := range args {
		if a == s {
			return true
		}
	}
	return false
}
