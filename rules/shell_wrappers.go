package rules

import "strings"

// wrapper describes a program that runs another command given after its
// own options: which of its short options take a value (as in sudo -u
// NAME), and how many operands come before the command (timeout's
// duration).
type wrapper struct {
	// valued lists the short options followed by a value, each as "-x";
	// a long option takes one when it is listed too (--user), unless
	// written --user=NAME.
	valued []string
	// operands counts the words between the options and the command.
	operands int
	// assigns is set for env: NAME=value words before the command.
	assigns bool
}

// commandWrappers are the programs program() looks through.
var commandWrappers = map[string]wrapper{
	"sudo":       {valued: []string{"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-T", "-U", "-R", "--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--command-timeout", "--other-user", "--chroot", "--close-from"}},
	"doas":       {valued: []string{"-u", "-C"}},
	"runuser":    {valued: []string{"-u", "-g", "-G", "--user", "--group"}},
	"env":        {valued: []string{"-u", "-C", "-S", "--unset", "--chdir", "--split-string"}, assigns: true},
	"nohup":      {},
	"setsid":     {},
	"nice":       {valued: []string{"-n", "--adjustment"}},
	"ionice":     {valued: []string{"-c", "-n", "-p", "--class", "--classdata"}},
	"chrt":       {operands: 1},
	"taskset":    {operands: 1},
	"command":    {},
	"builtin":    {},
	"exec":       {valued: []string{"-a"}},
	"stdbuf":     {valued: []string{"-i", "-o", "-e", "--input", "--output", "--error"}},
	"unbuffer":   {},
	"caffeinate": {valued: []string{"-t", "-w"}},
	"time":       {valued: []string{"-f", "-o", "--format", "--output"}},
	"timeout":    {valued: []string{"-s", "-k", "--signal", "--kill-after"}, operands: 1},
	"gtimeout":   {valued: []string{"-s", "-k", "--signal", "--kill-after"}, operands: 1},
	"xargs":      {valued: []string{"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a", "--max-args", "--max-procs", "--max-lines", "--delimiter", "--eof", "--max-chars", "--arg-file", "--replace"}},
	"npx":        {valued: []string{"-p", "--package", "-c", "--call"}},
	"bunx":       {valued: []string{"-p", "--package"}},
	"pnpx":       {},
	"uvx":        {valued: []string{"-p", "--python", "--with", "--from"}},
	"xvfb-run":   {valued: []string{"-e", "-f", "-n", "-p", "-s", "-w", "--error-file", "--auth-file", "--server-num", "--xauth-protocol", "--server-args", "--wait"}},
}

// commandRunners are package managers whose "run" subcommand (pnpm's "exec"
// and "dlx") runs a command in the project's environment (uv run pytest).
// Those whose "run" runs a script of the project's by name (npm, yarn,
// pdm) are not among them.
var commandRunners = map[string]wrapper{
	"uv":         {valued: []string{"-p", "--python", "--with", "--with-requirements", "--extra", "--group", "--package", "--directory", "--project", "--env-file", "--index", "--index-url"}},
	"poetry":     {valued: []string{"-C", "--directory", "-P", "--project"}},
	"pipenv":     {},
	"conda":      {valued: []string{"-n", "-p", "--name", "--prefix", "--cwd"}},
	"mamba":      {valued: []string{"-n", "-p", "--name", "--prefix", "--cwd"}},
	"micromamba": {valued: []string{"-n", "-p", "--name", "--prefix", "--cwd"}},
	"pnpm":       {},
}

// program returns the command's program name without its folder, after
// skipping wrappers that run another command (sudo -u NAME, env A=b,
// timeout -s KILL 60, nohup, xargs -n 1, uv run, …) with their options,
// and the arguments that follow it.
func (c *simpleCmd) program() (string, []string) {
	args := c.args
	for len(args) > 0 {
		name := baseName(args[0])
		w, ok := commandWrappers[name]
		if !ok && len(args) > 1 && isRunSubcommand(name, args[1]) {
			if w, ok = commandRunners[name]; ok {
				args = args[1:]
			}
		}
		if !ok || name == "command" && len(args) > 1 && (args[1] == "-v" || args[1] == "-V") {
			// command -v NAME looks a program up; it runs nothing.
			return name, args[1:]
		}
		rest := w.skip(args[1:])
		if len(rest) == 0 {
			// A wrapper with nothing to run is the program itself
			// (env alone prints the environment).
			return name, args[1:]
		}
		args = rest
	}
	return "", nil
}

func isRunSubcommand(prog, sub string) bool {
	if prog == "pnpm" {
		return sub == "exec" || sub == "dlx"
	}
	return sub == "run"
}

// skip returns the words after the wrapper's options and operands.
func (w wrapper) skip(args []string) []string {
	for len(args) > 0 {
		a := args[0]
		switch {
		case a == "--":
			args = args[1:]
			return w.operandsOf(args)
		case w.assigns && isAssignment(a):
			args = args[1:]
		case len(a) > 1 && a[0] == '-':
			args = args[1:]
			if !strings.Contains(a, "=") && w.takesValue(a) && len(args) > 0 {
				args = args[1:]
			}
		default:
			return w.operandsOf(args)
		}
	}
	return nil
}

func (w wrapper) operandsOf(args []string) []string {
	for n := w.operands; n > 0 && len(args) > 0; n-- {
		args = args[1:]
	}
	for w.assigns && len(args) > 0 && isAssignment(args[0]) {
		args = args[1:]
	}
	return args
}

// takesValue reports whether an option is followed by its value: a
// listed long option without =, or a cluster of short options (-Eu) whose
// first valued letter is its last (in -uroot the value is attached).
func (w wrapper) takesValue(opt string) bool {
	if strings.HasPrefix(opt, "--") {
		for _, v := range w.valued {
			if opt == v {
				return true
			}
		}
		return false
	}
	for i := 1; i < len(opt); i++ {
		for _, v := range w.valued {
			if len(v) == 2 && v[1] == opt[i] {
				return i == len(opt)-1
			}
		}
	}
	return false
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

func baseName(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 && i < len(p)-1 {
		return p[i+1:]
	}
	return p
}
