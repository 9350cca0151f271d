package rules

import (
	"strings"
	"testing"
)

func TestProgramWrappers(t *testing.T) {
	for _, c := range []struct{ in, prog, args string }{
		{"pytest -q", "pytest", "-q"},
		{"sudo -u x pytest", "pytest", ""},
		{"sudo -E -u ci -- python -m pytest", "python", "-m pytest"},
		{"sudo -uroot make test", "make", "test"},
		{"sudo -Eu ci make test", "make", "test"},
		{"sudo --user=ci make", "make", ""},
		{"sudo --user ci make", "make", ""},
		{"env -u DEBUG CI=1 npm test", "npm", "test"},
		{"env -i PATH=/bin sh -c ls", "sh", "-c ls"},
		{"env", "env", ""},
		{"timeout 60 pytest", "pytest", ""},
		{"timeout -s KILL 60 pytest -x", "pytest", "-x"},
		{"timeout --signal=KILL -k 5 60 go test", "go", "test"},
		{"nice -n 10 make test", "make", "test"},
		{"nice -10 make", "make", ""},
		{"xargs -n 1 pytest", "pytest", ""},
		{"xargs -I {} cp {} dst/", "cp", "{} dst/"},
		{"xargs -0 rm -f", "rm", "-f"},
		{"taskset -c 1 go test ./...", "go", "test ./..."},
		{"stdbuf -oL python x.py", "python", "x.py"},
		{"stdbuf -o L python x.py", "python", "x.py"},
		{"/usr/bin/time -v pytest", "pytest", ""},
		{"time -p pytest", "pytest", ""},
		{"exec python server.py", "python", "server.py"},
		{"nohup python server.py", "python", "server.py"},
		{"setsid nohup node app.js", "node", "app.js"},
		{"command -v pytest", "command", "-v pytest"},
		{"command pytest", "pytest", ""},
		{"uv run pytest -q", "pytest", "-q"},
		{"uv run --with requests python x.py", "python", "x.py"},
		{"uv pip install x", "uv", "pip install x"},
		{"poetry run python -m pytest", "python", "-m pytest"},
		{"conda run -n env pytest", "pytest", ""},
		{"pnpm exec jest", "jest", ""},
		{"pnpm run test", "pnpm", "run test"},
		{"npm run test", "npm", "run test"},
		{"npx -y jest --ci", "jest", "--ci"},
		{"uvx ruff check .", "ruff", "check ."},
		{"xvfb-run -a -s '-screen 0 1x1x24' pytest", "pytest", ""},
		{"sudo", "sudo", ""},
	} {
		cmds := parseShell(c.in)
		if len(cmds) != 1 {
			t.Errorf("parseShell(%q) = %s, want one command", c.in, renderCmds(cmds))
			continue
		}
		prog, args := cmds[0].program()
		if prog != c.prog || strings.Join(args, " ") != c.args {
			t.Errorf("program(%q) = %q %q, want %q %q", c.in, prog, args, c.prog, c.args)
		}
	}
}

// TestAnalyseLookups: looking a program up or testing a file reads; it
// runs nothing.
func TestAnalyseLookups(t *testing.T) {
	for _, line := range []string{"command -v pytest", "[[ -f setup.py ]] && echo yes", "[ -d .git ] || echo no"} {
		if f := analyseShell(line); f.kind != KindRead || f.test || f.run {
			t.Errorf("analyseShell(%q) = kind %v, test %v, run %v; want a read", line, f.kind, f.test, f.run)
		}
	}
}
