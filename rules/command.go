package rules

import (
	"path"
	"strconv"
	"strings"
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

// readOnlyPrograms only look at things.
var readOnlyPrograms = set(
	"cat", "head", "tail", "less", "more", "nl", "wc", "ls", "ll", "tree", "pwd", "echo", "printf",
	"file", "stat", "diff", "cmp", "which", "type", "whereis", "env", "printenv", "du", "df",
	"date", "whoami", "id", "uname", "hostname", "ps", "pgrep", "jq", "yq", "xxd", "od", "hexdump",
	"strings", "readlink", "realpath", "basename", "dirname", "true", "false", "sleep", "test", "[",
	"sort", "uniq", "cut", "tr", "column", "awk", "gawk", "sed", "view", "bat", "md5sum", "sha256sum",
	"sha1sum", "cksum", "lsof", "netstat", "ss", "free", "uptime", "top", "history", "tput", "clear",
	"open", "goto", "scroll_up", "scroll_down", "colordiff", "delta", "man", "help", "info", "locale",
)

// searchPrograms look for things.
var searchPrograms = set(
	"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "fd", "fdfind", "locate", "git-grep",
	"search_dir", "search_file", "find_file", "glob",
)

// interpreters run a script or inline code.
var interpreters = set(
	"python", "python2", "python3", "pypy", "pypy3", "node", "nodejs", "deno", "bun", "ruby", "perl",
	"php", "bash", "sh", "zsh", "dash", "Rscript", "julia", "lua", "ts-node", "tsx",
)

// testRunners are programs that run tests whatever their arguments.
var testRunners = set(
	"pytest", "py.test", "tox", "nox", "jest", "vitest", "mocha", "ava", "rspec", "phpunit", "ctest",
	"nosetests", "trial", "karma", "cypress", "playwright", "busted", "prove", "bats",
)

// testPackages are Python modules that run tests (python -m pytest).
var testPackages = set("pytest", "unittest", "nose", "nose2", "tox", "nox", "doctest", "trial")

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
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
	f.canonical = canonicalShell(cmds)
	f.bare = bareShell(cmds)
	return f
}

// sweEdit reads SWE-agent's multi-line edit command, "edit N:M", the new
// lines, then "end_of_edit", which is not shell syntax.
func sweEdit(line string) (Edit, bool) {
	if !strings.HasPrefix(line, "edit ") {
		return Edit{}, false
	}
	first, body, ok := strings.Cut(line, "\n")
	f := strings.Fields(first)
	if !ok || len(f) != 2 || f[0] != "edit" || !isLineRange(f[1]) {
		return Edit{}, false
	}
	body = strings.TrimRight(body, " \n")
	body = strings.TrimSuffix(body, "end_of_edit")
	return Edit{Op: EditLines, Old: f[1], New: body}, true
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
	case searchPrograms[prog]:
		f.mention(args)
		f.raise(KindSearch)
		if prog == "find" && (contains(args, "-delete") || contains(args, "-exec") && contains(args, "rm")) {
			f.raise(KindShell)
		}
	case readOnlyPrograms[prog]:
		if prog == "sleep" {
			f.polls = true
		}
		f.mention(args)
		f.raise(KindRead)
	default:
		f.raise(KindShell)
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

func (f *shellFacts) git(args []string) {
	sub := ""
	rest := args
	for len(rest) > 0 {
		if rest[0] == "-C" || rest[0] == "-c" {
			if len(rest) > 1 {
				rest = rest[2:]
				continue
			}
		}
		if strings.HasPrefix(rest[0], "-") {
			rest = rest[1:]
			continue
		}
		sub, rest = rest[0], rest[1:]
		break
	}
	switch sub {
	case "diff", "status", "log", "show", "blame", "grep", "ls-files", "rev-parse", "describe", "shortlog", "remote", "config", "branch", "tag", "reflog", "cat-file", "whatchanged":
		if sub == "grep" {
			f.raise(KindSearch)
		} else {
			f.raise(KindRead)
		}
		f.mention(rest)
	case "checkout", "restore":
		// git checkout [--] FILE… and git restore FILE… discard changes.
		files := gitPathArgs(rest)
		if len(files) == 0 {
			f.raise(KindShell)
			return
		}
		for _, p := range files {
			f.edits = append(f.edits, Edit{Path: p, Op: EditRestore})
		}
		f.raise(KindEdit)
	case "stash", "reset":
		if sub == "stash" && len(rest) > 0 && (rest[0] == "list" || rest[0] == "show") {
			f.raise(KindRead)
			return
		}
		if sub == "reset" && !contains(rest, "--hard") {
			f.raise(KindShell)
			return
		}
		f.edits = append(f.edits, Edit{Op: EditRestore})
		f.raise(KindEdit)
	case "apply", "am":
		f.edits = append(f.edits, Edit{Op: EditScript, New: strings.Join(rest, " ")})
		f.raise(KindEdit)
		f.mention(rest)
	default:
		f.raise(KindShell)
	}
}

// gitPathArgs returns the file arguments of git checkout or restore: the
// words after "--", or, without "--", the words that look like files.
func gitPathArgs(args []string) []string {
	for i, a := range args {
		if a == "--" {
			return args[i+1:]
		}
	}
	var out []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") || a == "HEAD" || a == "." && len(args) > 1 {
			continue
		}
		if strings.ContainsAny(a, "./") {
			out = append(out, a)
		}
	}
	return out
}

// sed handles sed -i and perl -pi: in-place edits. A substitution
// s/OLD/NEW/ is recorded as a replacement; other scripts as scripts.
func (f *shellFacts) sed(prog string, args []string) {
	inPlace := false
	var scripts, files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-i" || strings.HasPrefix(a, "-i") && prog == "sed" || strings.HasPrefix(a, "--in-place") || prog == "perl" && strings.HasPrefix(a, "-") && strings.Contains(a, "i"):
			inPlace = true
			if prog == "perl" && strings.HasSuffix(a, "e") && i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
		case a == "-e" || a == "--expression":
			if i+1 < len(args) {
				scripts = append(scripts, args[i+1])
				i++
			}
		case a == "":
		case a == "-n" || a == "-E" || a == "-r" || a == "--quiet" || a == "-s" || a == "-u" || a == "-z":
		case strings.HasPrefix(a, "-"):
		case len(scripts) == 0:
			scripts = append(scripts, a)
		default:
			files = append(files, a)
		}
	}
	if !inPlace {
		f.mention(files)
		f.raise(KindRead)
		return
	}
	for _, p := range files {
		for _, s := range scripts {
			if old, repl, ok := splitSubstitution(s); ok {
				f.edits = append(f.edits, Edit{Path: p, Op: EditReplace, Old: old, New: repl})
			} else {
				f.edits = append(f.edits, Edit{Path: p, Op: EditScript, New: s})
			}
		}
	}
	f.raise(KindEdit)
}

// splitSubstitution splits a sed substitution s/OLD/NEW/flags into OLD and
// NEW, for any delimiter.
func splitSubstitution(s string) (old, repl string, ok bool) {
	if len(s) < 4 || s[0] != 's' {
		return "", "", false
	}
	d := s[1]
	var parts []string
	var b strings.Builder
	for i := 2; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && s[i+1] == d {
			b.WriteByte(d)
			i++
			continue
		}
		if s[i] == d {
			parts = append(parts, b.String())
			b.Reset()
			if len(parts) == 2 {
				return parts[0], parts[1], true
			}
			continue
		}
		b.WriteByte(s[i])
	}
	return "", "", false
}

// copy handles cp and mv: the destination takes the source's content.
func (f *shellFacts) copy(prog string, args []string) {
	var files []string
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			files = append(files, a)
		}
	}
	f.raise(KindEdit)
	if len(files) < 2 {
		return
	}
	dst := files[len(files)-1]
	for _, src := range files[:len(files)-1] {
		d := dst
		if strings.HasSuffix(dst, "/") || len(files) > 2 {
			d = strings.TrimSuffix(dst, "/") + "/" + baseName(src)
		}
		f.edits = append(f.edits, Edit{Path: d, Op: EditCopy, From: src})
		if prog == "mv" {
			f.edits = append(f.edits, Edit{Path: src, Op: EditDelete})
		}
	}
}

// patch handles patch and apply_patch, whose changes come in a here-
// document or a file.
func (f *shellFacts) patch(prog string, c *simpleCmd, args []string) {
	body := c.heredoc
	if body != "" && strings.Contains(body, "*** Begin Patch") {
		f.edits = append(f.edits, parseApplyPatch(body)...)
	} else {
		src := c.in
		for _, a := range args {
			if strings.HasPrefix(a, "-i") && len(a) > 2 {
				src = a[2:]
			}
		}
		if src != "" {
			f.paths = append(f.paths, src)
		}
		f.edits = append(f.edits, Edit{Op: EditScript, New: body + src})
	}
	f.raise(KindEdit)
}

// editor handles str_replace_editor given as a shell command (SWE-agent).
func (f *shellFacts) editor(args []string) {
	if len(args) < 2 {
		f.raise(KindOther)
		return
	}
	sub, p := args[0], args[1]
	flag := func(name string) string {
		for i := 2; i < len(args)-1; i++ {
			if args[i] == name {
				return args[i+1]
			}
		}
		return ""
	}
	switch sub {
	case "view":
		f.paths = append(f.paths, p)
		f.raise(KindRead)
	case "create":
		f.edits = append(f.edits, Edit{Path: p, Op: EditWrite, New: flag("--file_text")})
		f.raise(KindEdit)
	case "str_replace":
		f.edits = append(f.edits, Edit{Path: p, Op: EditReplace, Old: flag("--old_str"), New: flag("--new_str")})
		f.raise(KindEdit)
	case "insert":
		f.edits = append(f.edits, Edit{Path: p, Op: EditAppend, New: flag("--new_str")})
		f.raise(KindEdit)
	case "undo_edit":
		f.edits = append(f.edits, Edit{Path: p, Op: EditUndo})
		f.raise(KindEdit)
	default:
		f.raise(KindOther)
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

// isStatusQuery reports whether a program with its arguments only asks
// for the state of something: CI runs, pull requests, containers,
// services, an HTTP endpoint read with curl.
func isStatusQuery(prog string, args []string) bool {
	first, second := "", ""
	if len(args) > 0 {
		first = args[0]
	}
	if len(args) > 1 {
		second = args[1]
	}
	switch prog {
	case "gh":
		switch first + " " + second {
		case "run view", "run list", "run watch", "pr view", "pr checks", "pr status", "pr list", "issue view", "issue list", "workflow view":
			return true
		}
	case "kubectl":
		switch first {
		case "get", "describe", "logs", "top":
			return true
		}
		return first == "rollout" && second == "status"
	case "docker", "podman":
		switch first {
		case "ps", "logs", "inspect", "images", "stats":
			return true
		}
	case "systemctl":
		return first == "status" || first == "is-active"
	case "journalctl", "uptime", "nvidia-smi":
		return true
	case "curl", "wget":
		for _, a := range args {
			switch {
			case a == "-d" || strings.HasPrefix(a, "--data") || a == "-X" || strings.HasPrefix(a, "-X") && len(a) > 2 ||
				a == "-T" || a == "--upload-file" || a == "-F" || a == "--form" || a == "--request" || a == "-o" || a == "-O" || a == "--post-data":
				return false
			}
		}
		return true
	}
	return false
}

// isTestCommand reports whether a program with its arguments runs tests.
func isTestCommand(prog string, args []string) bool {
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	switch {
	case testRunners[prog]:
		return true
	case strings.HasPrefix(prog, "python") || prog == "pypy3" || prog == "coverage":
		for i, a := range args {
			if a == "-m" && i+1 < len(args) {
				m := args[i+1]
				return testPackages[m] || m == "django" && i+2 < len(args) && args[i+2] == "test"
			}
			if !strings.HasPrefix(a, "-") {
				b := baseName(a)
				return b == "runtests.py" || b == "manage.py" && i+1 < len(args) && args[i+1] == "test" ||
					b == "setup.py" && i+1 < len(args) && args[i+1] == "test"
			}
		}
	case prog == "runtests.py" || prog == "django-admin" && first == "test" || prog == "manage.py" && first == "test":
		return true
	case prog == "go" || prog == "cargo" || prog == "dotnet" || prog == "bazel" || prog == "bazelisk" || prog == "swift" || prog == "mix" || prog == "zig" || prog == "deno" || prog == "bun":
		return first == "test" || first == "nextest" || prog == "go" && first == "vet"
	case prog == "npm" || prog == "yarn" || prog == "pnpm":
		return first == "test" || first == "t" || first == "run" && len(args) > 1 && strings.HasPrefix(args[1], "test")
	case prog == "make" || prog == "just" || prog == "task":
		return first == "test" || first == "tests" || first == "check" || first == "ci"
	case prog == "mvn" || prog == "gradle" || prog == "gradlew":
		return first == "test" || first == "verify" || first == "check"
	case prog == "bundle":
		return first == "exec" && len(args) > 1 && (args[1] == "rspec" || args[1] == "rake")
	case prog == "rake":
		return first == "test" || first == "spec"
	}
	return false
}

// isInstall reports whether a program with its arguments installs
// packages or otherwise sets up the environment.
func isInstall(prog string, args []string) bool {
	first := ""
	if len(args) > 0 {
		first = args[0]
	}
	switch prog {
	case "pip", "pip3", "pipx", "uv", "poetry", "conda", "mamba", "micromamba", "npm", "yarn", "pnpm", "gem", "cargo", "go", "apt", "apt-get", "yum", "dnf", "apk", "brew", "composer", "bundle":
		switch first {
		case "install", "add", "i", "sync", "get", "update", "upgrade", "ci", "mod", "develop":
			return true
		case "pip":
			return len(args) > 1 && args[1] == "install"
		}
	case "easy_install", "pip-sync":
		return true
	}
	if strings.HasPrefix(prog, "python") {
		for i, a := range args {
			if a == "-m" && i+2 < len(args) && (args[i+1] == "pip" || args[i+1] == "ensurepip") {
				return args[i+2] == "install" || args[i+1] == "ensurepip"
			}
			if baseName(a) == "setup.py" && i+1 < len(args) && (args[i+1] == "develop" || args[i+1] == "install" || args[i+1] == "build_ext") {
				return true
			}
		}
	}
	return false
}

func isLineRange(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 || i == len(s)-1 {
		return false
	}
	for j := 0; j < len(s); j++ {
		if j != i && (s[j] < '0' || s[j] > '9') {
			return false
		}
	}
	return true
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

// displayFilters only trim or page what the command before them printed.
var displayFilters = set("head", "tail", "less", "more", "cat", "nl")

// canonicalShell renders a parsed command line without noise, so that
// `cd /repo && python x.py 2>&1 | tail -50` and `python x.py` compare
// equal: cd, sleep and true commands are dropped, and so are trailing
// display filters that only trim the previous command's output.
func canonicalShell(cmds []simpleCmd) string {
	var b strings.Builder
	b.Grow(64)
	for i := range cmds {
		c := &cmds[i]
		prog, _ := c.program()
		switch prog {
		case "cd", "sleep", "true", ":":
			continue
		}
		if c.piped && displayFilters[prog] && len(c.out) == 0 && trailingFilters(cmds[i:]) {
			break
		}
		if b.Len() > 0 {
			if c.piped {
				b.WriteString(" | ")
			} else {
				b.WriteString(" ; ")
			}
		}
		if prog == "python3" || strings.HasPrefix(prog, "python3.") {
			b.WriteString("python")
			for _, a := range c.args[1:] {
				b.WriteByte(' ')
				b.WriteString(a)
			}
		} else {
			b.WriteString(strings.Join(c.args, " "))
		}
		for _, o := range c.out {
			b.WriteString(" > ")
			b.WriteString(o)
		}
		if c.heredoc != "" {
			// The body by its hash: the content matters, not its noise,
			// and hashing it whole is cheaper than normalising it.
			b.WriteString(" <<")
			b.WriteString(strconv.FormatUint(uint64(textSig(c.heredoc)), 36))
		}
	}
	return b.String()
}

// bareShell renders a parsed command line without here-document bodies,
// keeping operators, so flags and `|| true` can be looked for without
// reading the scripts a line carries.
func bareShell(cmds []simpleCmd) string {
	var b strings.Builder
	b.Grow(64)
	for i := range cmds {
		c := &cmds[i]
		b.WriteString(strings.Join(c.args, " "))
		for _, o := range c.out {
			b.WriteString(" > ")
			b.WriteString(o)
		}
		if c.op != "" && i < len(cmds)-1 || c.op == "||" || c.op == "&&" {
			b.WriteByte(' ')
			b.WriteString(c.op)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// trailingFilters reports whether every command from here on is a piped
// display filter.
func trailingFilters(cmds []simpleCmd) bool {
	for i := range cmds {
		prog, _ := cmds[i].program()
		if !cmds[i].piped || !displayFilters[prog] || len(cmds[i].out) > 0 {
			return false
		}
	}
	return true
}
