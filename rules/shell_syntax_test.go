package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/transcript"
)

// renderCmds writes simple commands as [args] with their redirections,
// joined by their operators, and marks a command whose piped flag
// disagrees with the operator before it.
func renderCmds(cmds []simpleCmd) string {
	var b strings.Builder
	for i, c := range cmds {
		if i > 0 && c.piped != (cmds[i-1].op == "|") {
			b.WriteString("!piped ")
		}
		fmt.Fprintf(&b, "[%s]", strings.Join(c.args, " "))
		if len(c.env) > 0 {
			fmt.Fprintf(&b, " env=%v", c.env)
		}
		if len(c.out) > 0 {
			fmt.Fprintf(&b, " out=%v", c.out)
			if c.appends {
				b.WriteString(" append")
			}
		}
		if c.in != "" {
			b.WriteString(" in=" + c.in)
		}
		if c.heredoc != "" {
			fmt.Fprintf(&b, " doc=%q", c.heredoc)
		}
		if i < len(cmds)-1 || c.op != ";" {
			b.WriteString(" " + c.op)
		}
		if i < len(cmds)-1 {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestParseShellCompound covers the lines the hand parser misread: the
// commands inside compound syntax and substitutions are seen, keywords
// never are.
func TestParseShellCompound(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"if pytest -q; then echo ok; fi", "[pytest -q] ; [echo ok]"},
		{"if ! pytest -q; then echo fail; elif make test; then :; else echo ok; fi", "[pytest -q] ; [echo fail] ; [make test] ; [:] ; [echo ok]"},
		{"while ! pytest; do sleep 1; done", "[pytest] ; [sleep 1]"},
		{"until pytest -x\ndo\n  git stash\ndone", "[pytest -x] ; [git stash]"},
		{"for t in a b; do pytest tests/$t; done", "[pytest tests/$t]"},
		{"for f in $(git ls-files '*.py'); do black $f; done", "[git ls-files *.py] ; [black $f]"},
		{"case $1 in a) pytest;; b|c) make test;; esac", "[pytest] ; [make test]"},
		{"out=$(pytest)", "[pytest]"},
		{"out=`pytest -q`; echo \"$out\"", "[pytest -q] ; [echo $out]"},
		{"x=$(grep -c foo a.txt) && echo $x", "[grep -c foo a.txt] && [echo $x]"},
		{`echo "result: $(python -m pytest -q | tail -1)"`, "[python -m pytest -q] | [tail -1] ; [echo result: $(python -m pytest -q | tail -1)]"},
		{"cat f | grep $(whoami) | wc -l", "[whoami] ; [cat f] | [grep $(whoami)] | [wc -l]"},
		{"diff <(sort a) <(sort b)", "[sort a] ; [sort b] ; [diff <(sort a) <(sort b)]"},
		{"(cd repo && pytest) | tail -5", "[cd repo] && [pytest] | [tail -5]"},
		{"{ pytest; make; } > log.txt 2>&1", "[pytest] ; [make] out=[log.txt]"},
		{"while read f; do echo $f; done < list.txt", "[read f] in=list.txt ; [echo $f]"},
		{"time pytest -q", "[pytest -q]"},
		{"! grep -q x f", "[grep -q x f]"},
		{"f() { pytest \"$@\"; }; f -x", "[pytest $@] ; [f -x]"},
		{"[[ -f setup.py ]] && pip install -e .", "[[[ -f setup.py ]]] && [pip install -e .]"},
		{"export PYTHONPATH=$(pwd)/src && pytest", "[pwd] ; [export PYTHONPATH=$(pwd)/src] && [pytest]"},
		{"python server.py & sleep 2; curl localhost", "[python server.py] & [sleep 2] ; [curl localhost]"},
		{"nohup python server.py > srv.log 2>&1 &", "[nohup python server.py] out=[srv.log] &"},
		{"echo ${VAR:-$(date)}", "[date] ; [echo ${VAR:-$(date)}]"},
		{"cat <<EOF > notes.md\nrun `pytest` and $(make)\nEOF", "[cat] out=[notes.md] doc=\"run `pytest` and $(make)\\n\""},
		{"python - <<'PY' | tail -3\nprint(1)\nPY", "[python -] doc=\"print(1)\\n\" | [tail -3]"},
		{"git diff; exit 0", "[git diff] ; [exit 0]"},
		{"if true; then\n  pytest\nfi > out.txt", "[true] ; [pytest] out=[out.txt]"},
	} {
		cmds, ok := parseSyntax(c.in)
		if !ok {
			t.Errorf("parseSyntax(%q) failed", c.in)
			continue
		}
		if got := renderCmds(cmds); got != c.want {
			t.Errorf("parseSyntax(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestShellKeywordsNeverCommands: no keyword of compound syntax is read
// as a program, whichever parser reads the line.
func TestShellKeywordsNeverCommands(t *testing.T) {
	keywords := set("if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case", "esac", "select", "function", "{", "}", "!", "time", "[[", "]]")
	for _, line := range []string{
		"if pytest; then echo ok; else echo no; fi",
		"for i in 1 2 3; do echo $i; done",
		"while true; do sleep 1; done",
		"case x in x) echo x;; esac",
		"select x in a b; do break; done",
		"{ echo a; echo b; }",
		"function f { echo; }",
		"until false; do :; done",
		"if pytest; then echo ok; fi 'unclosed",
		"for i in 1 2; do echo $i; done; (",
		"while ! pytest; do sleep 1; done; echo `",
	} {
		for name, cmds := range map[string][]simpleCmd{"parseShell": parseShell(line), "parseHand": parseHand(line)} {
			for _, c := range cmds {
				if prog, _ := c.program(); keywords[prog] && prog != "[[" {
					t.Errorf("%s(%q): keyword %q read as a command: %s", name, line, prog, renderCmds(cmds))
				}
			}
		}
	}
}

// TestShellTestRuns: test runs the detectors must see, wherever the line
// puts them.
func TestShellTestRuns(t *testing.T) {
	for _, line := range []string{
		"if pytest -q; then echo ok; fi",
		"while ! pytest; do sleep 1; done",
		"out=$(pytest)",
		"out=$(python -m pytest -q 2>&1); echo \"$out\" | tail -5",
		"sudo -u x pytest",
		"sudo -E -u ci -- python -m pytest tests/",
		"timeout -s KILL 600 go test ./...",
		"env -u DEBUG CI=1 npm test",
		"uv run pytest -q",
		"poetry run python -m pytest",
		"cd /repo && if ! make test; then git diff; fi",
		"for i in 1 2 3; do pytest -x || break; done",
		"echo \"status: $(pytest -q | tail -1)\"",
		"bash -c 'if pytest; then echo ok; fi'",
	} {
		if f := analyseShell(line); !f.test {
			t.Errorf("analyseShell(%q): not a test run (kind %v)", line, f.kind)
		}
	}
	for _, line := range []string{"command -v pytest", "which pytest", "echo pytest", "cat <<EOF > run.sh\npytest\nEOF", "grep -r pytest ."} {
		if f := analyseShell(line); f.test {
			t.Errorf("analyseShell(%q): read as a test run", line)
		}
	}
}

// TestParseShellFallback: lines that are not valid bash are read by the
// hand parser, as before.
func TestParseShellFallback(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"unterminated 'quote", "[unterminated quote]"},
		{"python -c \"print(1)", "[python -c print(1)]"},
		{"cat <<EOF > a.py\nx = 1", "[cat] out=[a.py] doc=\"x = 1\""},
		{"a=(1 2) make", "[1 2] ; [make]"},
		{"echo a; ;; b", "[echo a] ; [b]"},
		{"if pytest; then echo ok; fi; echo 'x", "[pytest] ; [echo ok] ; [echo x]"},
	} {
		if _, ok := parseSyntax(c.in); ok {
			t.Errorf("parseSyntax(%q) read the line; the case wants the fallback", c.in)
		}
		if got := renderCmds(parseShell(c.in)); got != c.want {
			t.Errorf("parseShell(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
	// Lines the bash parser reads by recovering a missing closing token.
	for _, c := range []struct{ in, want string }{
		{"if pytest; then echo ok", "[pytest] ; [echo ok]"},
		{"(cd a && make |", "[cd a] && [make] |"},
		{"echo $(date", "[date] ; [echo $(date]"},
		{"for f in *.py; do black $f; done; (", "[black $f]"},
	} {
		if got := renderCmds(parseShell(c.in)); got != c.want {
			t.Errorf("parseShell(%q)\n got %s\nwant %s", c.in, got, c.want)
		}
	}
}

// TestParseShellSameAsHand: on lines without compound syntax both readers
// agree, so the detectors see what they saw before.
func TestParseShellSameAsHand(t *testing.T) {
	for _, line := range []string{
		"ls -la",
		`cd /repo && python -m pytest -k "not slow" 2>&1 | tail -20`,
		`echo 'a b' "c \"d\"" e\ f`,
		"cat > f.py << 'EOF'\nprint(1)\nEOF\npython f.py",
		"cat <<-EOF > x\n\tline\n\tEOF",
		"FOO=1 BAR=2 make test",
		"git diff > /dev/null 2>/dev/null; echo ok >> log.txt",
		"python - <<EOF\nimport os\nEOF",
		"# a comment\nsed -i 's/a/b/' f # trailing",
		"make || true",
		"cat < in.txt | wc -l",
		"grep -rn 'def foo' src/ | head -20",
		"sed -n '10,20p' a.py && echo --- && cat -n b.py",
		"python x.py &> out.log; tail out.log",
		"echo hi >| f; cat f >> g",
		"git log --oneline -n 5 | cat",
		"cd /testbed && cat > test_fix.py << 'EOF'\nimport os\nprint(\"$HOME\")\nEOF\npython test_fix.py",
		"npm run build 2>&1 | grep -v warn | head -50",
		"tr a-z A-Z <<< hello",
		"python3 -c 'import sys; print(sys.version)'",
		"docker compose up -d && sleep 5 && curl -s localhost:8080/health",
		"gh pr create --base main \\\n  --title \"fix: x\" \\\n  --body \"y\"",
		"sed -i \\\n -e 's/a/b/g' \\\n f.py",
		"git log --oneline |\n  head -5",
		"make 2>&1 |\n\n  tail -3; echo done",
	} {
		cmds, ok := parseSyntax(line)
		if !ok {
			t.Errorf("parseSyntax(%q) failed", line)
			continue
		}
		if got, want := renderCmds(cmds), renderCmds(parseHand(line)); got != want {
			t.Errorf("%q:\n bash parser %s\n hand parser %s", line, got, want)
		}
	}
}

// TestParseShellDeep: lines nested beyond what anyone writes are read in
// bounded time by the hand parser, the same way every time.
func TestParseShellDeep(t *testing.T) {
	const n = 10000
	for _, line := range []string{
		strings.Repeat("$(", n) + "pytest" + strings.Repeat(")", n),
		"echo " + strings.Repeat("$(", n),
		strings.Repeat("(", n) + "make" + strings.Repeat(")", n),
		strings.Repeat("{ ", n) + "make;" + strings.Repeat(" }", n),
		strings.Repeat("cat <(", n),
	} {
		if !nestsDeep(line, maxNesting) {
			t.Errorf("nestsDeep(%.20q…) = false", line)
		}
		first := parseShell(line)
		if !reflect.DeepEqual(first, parseHand(line)) {
			t.Errorf("%.20q…: not the hand parser's reading", line)
		}
		if again := parseShell(line); !reflect.DeepEqual(first, again) {
			t.Errorf("%.20q…: two readings differ", line)
		}
	}
	// A long list or pipeline is not nesting: every command is read.
	for _, op := range []string{" && ", " | ", "; "} {
		line := strings.Repeat("a"+op, 1000) + "b"
		if _, compound := readHand(line); compound {
			t.Errorf("a list of %q is compound", op)
		}
		if cmds, ok := parseSyntax(line); !ok || len(cmds) != 1001 {
			t.Errorf("a list of 1001 commands joined by %q: %d commands (ok %v)", op, len(cmds), ok)
		}
	}
	// Keywords nest without brackets: the walk stops at maxSyntaxDepth.
	line := strings.Repeat("if a; then ", n) + "x" + strings.Repeat("; fi", n)
	cmds, ok := parseSyntax(line)
	if !ok || len(cmds) == 0 || len(cmds) > maxSyntaxDepth {
		t.Errorf("%d nested ifs: %d commands (ok %v), want 1 to %d", n, len(cmds), ok, maxSyntaxDepth)
	}
}

// TestReadHandCompound: the hand parser notices the syntax it cannot
// read, so that those lines, and only those, go to the bash parser.
func TestReadHandCompound(t *testing.T) {
	for _, line := range []string{
		"if pytest; then echo; fi", "while ! pytest; do :; done", "until a; do b; done", "for f in a; do b; done",
		"case x in a) b;; esac", "(cd a && make)", "{ a; b; } > f", "out=$(pytest)", "echo \"$(date)\"", "x=`ls`",
		"echo \"`ls`\"", "diff <(a) <(b)", "time pytest", "! grep x f", "[[ -f x ]] && y", "f() { a; }", "function f { a; }",
		"select x in a b; do break; done", "echo ${x:-$(date)}",
	} {
		if _, compound := readHand(line); !compound {
			t.Errorf("readHand(%q): compound = false", line)
		}
	}
	for _, line := range []string{
		"ls -la", "cd /r && python -m pytest -k 'not (slow)' 2>&1 | tail", "echo '$(not run)' \"\\$(nor this)\"",
		"cat > a.py <<'EOF'\nif x:\n    print(f(`y`), $(z))\nEOF\npython a.py", "find . -exec rm {} \\;", "awk '{print $1}' f",
		"sudo -u x pytest", "export A=1 && make", "echo if then fi",
	} {
		if _, compound := readHand(line); compound {
			t.Errorf("readHand(%q): compound = true", line)
		}
	}
}

// notShell says a command line of the corpus is no shell at all: a Codex
// apply_patch envelope run as a command (its patch is an argument, read by
// parseApplyPatch, and only the program matters to the shell readers) or
// a PowerShell here-string. Both readers read such a line best effort.
func notShell(line string) bool {
	return strings.HasPrefix(line, "apply_patch ") || strings.HasPrefix(line, "@'") || strings.HasPrefix(line, "@\"")
}

// TestShellReadersAgreeOnCorpus: on every command line of the shared
// corpus without compound syntax, the bash parser reads what the hand
// parser reads, so routing those lines to the hand parser changes nothing
// but the cost.
func TestShellReadersAgreeOnCorpus(t *testing.T) {
	var paths []string
	for _, pattern := range []string{devset + "/*.traj.json", "../../shared/corpus/sessions/*/*"} {
		m, _ := filepath.Glob(pattern)
		paths = append(paths, m...)
	}
	if len(paths) == 0 {
		t.Skip("shared corpus not available")
	}
	seen := map[string]bool{}
	plain := 0
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		r, err := transcript.NewReader(f, p)
		if err != nil {
			f.Close()
			continue
		}
		var sp transcript.Stepper
		for it, err := range r.Items() {
			if err != nil {
				break
			}
			if it.Run != nil {
				continue
			}
			for _, st := range sp.Add(it.Entry) {
				for _, a := range Actions(&st) {
					line := a.Command
					if seen[line] || notShell(line) {
						continue
					}
					seen[line] = true
					hand, compound := readHand(line)
					bash, ok := parseSyntax(line)
					if compound || !ok {
						continue
					}
					plain++
					if got, want := renderCmds(bash), renderCmds(hand); got != want {
						t.Errorf("%s: %.200q\n bash parser %.300s\n hand parser %.300s", filepath.Base(p), line, got, want)
					}
				}
			}
		}
		f.Close()
	}
	if plain < 100 {
		t.Errorf("only %d plain command lines in the corpus", plain)
	}
}
