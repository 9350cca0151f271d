package rules

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestParseShell(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // simple commands as args|out|heredoc, joined by " ;; "
	}{
		{"ls -la", "[ls -la]"},
		{`cd /repo && python -m pytest -k "not slow" 2>&1 | tail -20`, `[cd /repo] ;; [python -m pytest -k not slow] ;; [tail -20]`},
		{`echo 'a b' "c \"d\"" e\ f`, `[echo a b c "d" e f]`},
		{"cat > f.py << 'EOF'\nprint(1)\nEOF\npython f.py", "[cat] out=[f.py] doc=print(1)\n ;; [python f.py]"},
		{"cat <<-EOF > x\n\tline\n\tEOF", "[cat] out=[x] doc=\tline\n"},
		{"FOO=1 BAR=2 make test", "[make test] env=[FOO=1 BAR=2]"},
		{"A=1 x=$(cat f) && B=2; C=3 go test", "[cat f] ;; [go test] env=[C=3]"},
		{"git diff > /dev/null 2>/dev/null; echo ok >> log.txt", "[git diff] ;; [echo ok] out=[log.txt]"},
		{"for f in a b; do cat $f; done", "[cat $f]"},
		{"x=$(grep -c foo a.txt) && echo $x", "[grep -c foo a.txt] ;; [echo $x]"},
		{"python - <<EOF\nimport os\nEOF", "[python -] doc=import os\n"},
		{"# a comment\nsed -i 's/a/b/' f # trailing", "[sed -i s/a/b/ f]"},
		{"make || true", "[make] ;; [true]"},
		{"cat < in.txt | wc -l", "[cat] ;; [wc -l]"},
		{"unterminated 'quote", "[unterminated quote]"},
	} {
		var parts []string
		for _, sc := range parseShell(c.in) {
			p := fmt.Sprintf("%v", sc.args)
			if len(sc.out) > 0 {
				p += fmt.Sprintf(" out=%v", sc.out)
			}
			if sc.heredoc != "" {
				p += " doc=" + sc.heredoc
			}
			if len(sc.env) > 0 {
				p += fmt.Sprintf(" env=%v", sc.env)
			}
			parts = append(parts, p)
		}
		if got := strings.Join(parts, " ;; "); got != c.want {
			t.Errorf("parseShell(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

func TestCanonicalShell(t *testing.T) {
	same := [][]string{
		{"python x.py", "cd /testbed && python x.py 2>&1", "python3 x.py | tail -50", "cd /a && python x.py 2>&1 | head -n 100"},
		{"go test ./...", "go   test   ./...", "sleep 5 && go test ./..."},
		{"nohup python server.py", "nohup python3 server.py", "cd /r && nohup /usr/bin/python3 server.py"},
	}
	for _, group := range same {
		want := analyseShell(group[0]).canonical
		for _, c := range group[1:] {
			if got := analyseShell(c).canonical; got != want {
				t.Errorf("canonical(%q) = %q, want %q as for %q", c, got, want, group[0])
			}
		}
	}
	differ := [][2]string{
		{"sed -n 1,10p a.py", "sed -n 20,30p a.py"},
		{"python x.py | grep err", "python x.py"},
		{"cat > a.py <<'EOF'\nv1\nEOF", "cat > a.py <<'EOF'\nv2\nEOF"},
	}
	for _, d := range differ {
		if a, b := analyseShell(d[0]).canonical, analyseShell(d[1]).canonical; a == b {
			t.Errorf("%q and %q have the same canonical form %q", d[0], d[1], a)
		}
	}
}

func TestAnalyseShell(t *testing.T) {
	type facts struct {
		kind            Kind
		test, run, inst bool
		edits           string
	}
	render := func(f shellFacts) facts {
		var es []string
		for _, e := range f.edits {
			s := fmt.Sprintf("%d:%s", e.Op, e.Path)
			if e.Old != "" || e.New != "" {
				s += fmt.Sprintf("(%q→%q)", e.Old, e.New)
			}
			if e.From != "" {
				s += "<" + e.From
			}
			es = append(es, s)
		}
		return facts{f.kind, f.test, f.run, f.install, strings.Join(es, " ")}
	}
	for _, c := range []struct {
		in   string
		want facts
	}{
		{"cat a.py", facts{kind: KindRead}},
		{"sed -n '10,20p' a.py", facts{kind: KindRead}},
		{"git status && git diff", facts{kind: KindRead}},
		{"grep -rn foo src/ | head", facts{kind: KindSearch}},
		{"find . -name '*.py'", facts{kind: KindSearch}},
		{"python -m pytest tests/", facts{kind: KindShell, test: true, run: true}},
		{"cd /repo && go test ./...", facts{kind: KindShell, test: true, run: true}},
		{"npm run test:unit", facts{kind: KindShell, test: true, run: true}},
		{"python tests/runtests.py admin_views", facts{kind: KindShell, test: true, run: true}},
		{"python -m django test --settings=x", facts{kind: KindShell, test: true, run: true}},
		{"python repro.py", facts{kind: KindShell, run: true}},
		{"python -c 'import x; print(x)'", facts{kind: KindShell, run: true}},
		{"./build.sh", facts{kind: KindShell, run: true}},
		{"pip install -q requests", facts{kind: KindShell, inst: true}},
		{"python -m pip install -e .", facts{kind: KindShell, inst: true}},
		{"sed -i 's/a - b/a + b/g' calc.py", facts{kind: KindEdit, edits: `2:calc.py("a - b"→"a + b")`}},
		{"sed -i.bak -e 's|x|y|' -e '5d' f.txt", facts{kind: KindEdit, edits: `2:f.txt("x"→"y") 4:f.txt(""→"5d")`}},
		{"perl -pi -e 's/foo/bar/' a.pl", facts{kind: KindEdit, edits: `2:a.pl("foo"→"bar")`}},
		{"cat > a.py << 'EOF'\nx = 1\nEOF", facts{kind: KindEdit, edits: `0:a.py(""→"x = 1\n")`}},
		{"echo hi >> notes.md", facts{kind: KindEdit, edits: `1:notes.md(""→"echo hi")`}},
		{"cp a.py a.py.bak", facts{kind: KindEdit, edits: "5:a.py.bak<a.py"}},
		{"mv a.new a", facts{kind: KindEdit, edits: "5:a<a.new 8:a.new"}},
		{"git checkout -- a.py b.py", facts{kind: KindEdit, edits: "6:a.py 6:b.py"}},
		{"git stash", facts{kind: KindEdit, edits: "6:"}},
		{"rm -f tmp.txt", facts{kind: KindEdit, edits: "8:tmp.txt"}},
		{"patch -p1 < fix.patch", facts{kind: KindEdit, edits: `4:(""→"fix.patch")`}},
		{"bash -lc 'cat a.txt'", facts{kind: KindRead}},
		{"bash -c \"python -m pytest\"", facts{kind: KindShell, test: true, run: true}},
		{"open src/a.py", facts{kind: KindRead}},
		{"edit 10:12\n    return 1\nend_of_edit\n", facts{kind: KindEdit, edits: `3:("10:12"→"    return 1\n")`}},
		{"str_replace_editor str_replace /r/a.py --old_str 'x = 1' --new_str 'x = 2'", facts{kind: KindEdit, edits: `2:/r/a.py("x = 1"→"x = 2")`}},
		{"submit", facts{kind: KindOther}},
		{"gh run view 42 --log-failed", facts{kind: KindRead}},
		{"kubectl get pods -n app", facts{kind: KindRead}},
		{"curl -s http://localhost:8080/health", facts{kind: KindRead}},
		{"curl -X POST http://localhost:8080/jobs", facts{kind: KindShell}},
		{"docker compose up -d", facts{kind: KindShell}},
		{"", facts{kind: KindOther}},
	} {
		if got := render(analyseShell(c.in)); got != c.want {
			t.Errorf("analyseShell(%q)\n got %+v\nwant %+v", c.in, got, c.want)
		}
	}
}

func TestSplitSubstitution(t *testing.T) {
	for in, want := range map[string][2]string{
		"s/a/b/":       {"a", "b"},
		"s|a/b|c|g":    {"a/b", "c"},
		`s/a\/b/c/`:    {"a/b", "c"},
		"s#x##":        {"x", ""},
		"s/only-one/":  {"", ""},
		"10d":          {"", ""},
		"s/(a)/\\1b/g": {"(a)", "\\1b"},
	} {
		old, repl, _ := splitSubstitution(in)
		if old != want[0] || repl != want[1] {
			t.Errorf("splitSubstitution(%q) = %q, %q; want %q, %q", in, old, repl, want[0], want[1])
		}
	}
}

// FuzzParseShell checks the command-line reader on any input: it never
// panics, reads a line the same way every time and whether or not the
// line was memoised, and returns in bounded time on pathological nesting
// (the seeds hold 10,000 nested substitutions and subshells, which the
// test's deadline bounds).
func FuzzParseShell(f *testing.F) {
	for _, s := range []string{
		"ls", "cd /a && make 2>&1 | tail", "cat > f <<'EOF'\nx\nEOF\n", "echo 'a\" b' \\\n c", "$(a (b) c)", "a <<<x",
		"for i in 1 2; do echo $i; done", "bash -c 'bash -c \"ls\"'", "&>/dev/null", "sed -i '' 's/a/b/' f",
		"if pytest -q; then echo ok; fi", "while ! pytest; do sleep 1; done", "out=$(pytest)", "sudo -u x pytest",
		"case $x in a) make;; esac", "diff <(sort a) <(sort b)", "{ a; b; } > f", "f() { g; }; f", "x=`ls`",
		"cat <<-EOF\n\tx\n\tEOF\n", "echo $(date", "if a; then b", "[[ -f x && $(y) ]]", "export A=$(b) C",
		strings.Repeat("$(", 10000) + "x" + strings.Repeat(")", 10000), strings.Repeat("(", 10000),
		strings.Repeat("if a; then ", 2000) + "x" + strings.Repeat("; fi", 2000),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		first := parseShell(s)
		if again := parseShell(s); !reflect.DeepEqual(first, again) {
			t.Fatalf("two readings of %q differ:\n%s\n%s", s, renderCmds(first), renderCmds(again))
		}
		if memo := parseShell(s); !reflect.DeepEqual(first, memo) {
			t.Fatalf("the memoised reading of %q differs:\n%s\n%s", s, renderCmds(first), renderCmds(memo))
		}
		for _, c := range first {
			switch c.op {
			case "&&", "||", "|", "&", ";":
			default:
				t.Fatalf("%q: command %v has operator %q", s, c.args, c.op)
			}
		}
		// The bash parser's reading on its own, which parseShell uses
		// only for lines with compound syntax.
		if !nestsDeep(s, maxNesting) {
			a, okA := parseSyntax(s)
			b, okB := parseSyntax(s)
			if okA != okB || !reflect.DeepEqual(a, b) {
				t.Fatalf("two bash-parser readings of %q differ:\n%s\n%s", s, renderCmds(a), renderCmds(b))
			}
		}
		facts := analyseShell(s)
		for _, e := range facts.edits {
			if e.Op > EditDelete {
				t.Fatalf("bad edit op %d", e.Op)
			}
		}
		_ = programKey(facts.canonical)
	})
}
