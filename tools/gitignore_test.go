package tools

import (
	"bytes"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"unicode/utf8"
)

// ignoredPath reports whether rel is ignored by rules, counting a path as
// ignored when one of its parent folders is, as git does.
func ignoredPath(rules ignoreList, rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if rules.ignored(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return rules.ignored(rel, isDir)
}

// gitignoreCases pair .gitignore contents with paths and whether git
// ignores them. A path ending in / is a folder. Every case was checked
// against git check-ignore; TestGitignoreAgainstGit does so again where git
// is installed.
var gitignoreCases = []struct {
	name    string
	ignore  string
	ignored []string
	kept    []string
}{
	{
		name:    "name at any depth",
		ignore:  "*.o\n",
		ignored: []string{"a.o", "x/b.o", "x/y/c.o", "d.o/"},
		kept:    []string{"a.c", "a.o.c", "x/o"},
	},
	{
		name:    "comments and blank lines",
		ignore:  "# *.c\n\n   \n*.o\n",
		ignored: []string{"a.o"},
		kept:    []string{"a.c", "# *.c"},
	},
	{
		name:    "escaped hash and bang",
		ignore:  "\\#notes\n\\!bang\n",
		ignored: []string{"#notes", "!bang"},
		kept:    []string{"notes", "bang"},
	},
	{
		name:    "trailing spaces trimmed unless escaped",
		ignore:  "trail   \nkeep\\ \n",
		ignored: []string{"trail", "keep "},
		kept:    []string{"trail ", "keep"},
	},
	{
		name:    "negation re-includes",
		ignore:  "*.log\n!important.log\n",
		ignored: []string{"a.log", "x/b.log"},
		kept:    []string{"important.log", "x/important.log"},
	},
	{
		name:    "later pattern wins",
		ignore:  "!keep.txt\n*.txt\n",
		ignored: []string{"keep.txt", "a.txt"},
	},
	{
		name:    "no re-include inside an excluded folder",
		ignore:  "build/\n!build/keep.txt\n",
		ignored: []string{"build/", "build/keep.txt", "build/x.txt", "src/build/"},
		kept:    []string{"other/build"},
	},
	{
		name:    "re-include through a folder glob",
		ignore:  "/dist/*\n!/dist/keep/\n",
		ignored: []string{"dist/a.js", "dist/sub/"},
		kept:    []string{"dist/", "dist/keep/", "dist/keep/x.js", "src/dist/a.js"},
	},
	{
		name:    "trailing slash matches folders only",
		ignore:  "cache/\n",
		ignored: []string{"cache/", "x/cache/", "cache/file"},
		kept:    []string{"y/cache"},
	},
	{
		name:    "leading slash anchors",
		ignore:  "/root.txt\n",
		ignored: []string{"root.txt"},
		kept:    []string{"x/root.txt"},
	},
	{
		name:    "middle slash anchors",
		ignore:  "doc/frotz\n",
		ignored: []string{"doc/frotz"},
		kept:    []string{"a/doc/frotz", "frotz"},
	},
	{
		name:    "star does not cross folders",
		ignore:  "foo/*.txt\n",
		ignored: []string{"foo/a.txt"},
		kept:    []string{"foo/bar/a.txt", "a.txt"},
	},
	{
		name:    "leading double star",
		ignore:  "**/logs\n",
		ignored: []string{"logs", "c/logs", "a/b/logs/", "a/logs/x"},
		kept:    []string{"logsx", "a/xlogs"},
	},
	{
		name:    "leading double star with path",
		ignore:  "**/logs/debug.log\n",
		ignored: []string{"logs/debug.log", "a/logs/debug.log"},
		kept:    []string{"logs/x/debug.log", "debug.log"},
	},
	{
		name:    "trailing double star",
		ignore:  "abc/**\n",
		ignored: []string{"abc/x", "abc/y/z", "abc/d/"},
		kept:    []string{"abc/", "x/abc/y"},
	},
	{
		name:    "middle double star",
		ignore:  "a/**/b\n",
		ignored: []string{"a/b", "a/x/b", "a/x/y/b"},
		kept:    []string{"a/bb", "x/a/b", "b"},
	},
	{
		name:    "other double stars are single stars",
		ignore:  "foo**bar\n",
		ignored: []string{"foobar", "fooxbar", "x/fooxxbar"},
		kept:    []string{"foo/bar"},
	},
	{
		name:    "question mark",
		ignore:  "?.txt\n",
		ignored: []string{"a.txt", "x/b.txt"},
		kept:    []string{"ab.txt", ".txt"},
	},
	{
		name:    "character classes",
		ignore:  "[abc].txt\n[!0-9]x\nfile[0-9]\n",
		ignored: []string{"a.txt", "c.txt", "ax", "file7"},
		kept:    []string{"d.txt", "1x", "filex"},
	},
	{
		name:    "caret negates a class",
		ignore:  "[^a]y\n",
		ignored: []string{"by"},
		kept:    []string{"ay"},
	},
	{
		name:    "bracket first in a class is literal",
		ignore:  "[]z]q\n",
		ignored: []string{"]q", "zq"},
		kept:    []string{"aq"},
	},
	{
		name:    "posix classes",
		ignore:  "[[:digit:]]d\n[[:upper:]]u\n",
		ignored: []string{"5d", "Au"},
		kept:    []string{"xd", "au"},
	},
	{
		name:    "escaped star is literal",
		ignore:  "a\\*b\n",
		ignored: []string{"a*b"},
		kept:    []string{"axb"},
	},
	{
		name:    "dot files match star",
		ignore:  "*\n!*/\n!*.go\n",
		ignored: []string{".env", "x/.hidden", "notes.txt"},
		kept:    []string{"main.go", "x/", "x/y.go"},
	},
	{
		name:   "unclosed bracket and trailing backslash match nothing",
		ignore: "a[b\nx\\\n",
		kept:   []string{"a[b", "ab", "x\\", "x"},
	},
	{
		name:    "reversed range matches its first end",
		ignore:  "[z-a]q\n",
		ignored: []string{"zq"},
		kept:    []string{"aq", "mq"},
	},
	{
		name:    "crlf line ends",
		ignore:  "*.tmp\r\n/out\r\n",
		ignored: []string{"a.tmp", "out"},
		kept:    []string{"x/out"},
	},
}

func TestGitignore(t *testing.T) {
	for _, tt := range gitignoreCases {
		t.Run(tt.name, func(t *testing.T) {
			rules := ignoreList(parseIgnore([]byte(tt.ignore), ""))
			for _, p := range tt.ignored {
				rel, isDir := strings.TrimSuffix(p, "/"), strings.HasSuffix(p, "/")
				if !ignoredPath(rules, rel, isDir) {
					t.Errorf("%q: got kept, want ignored", p)
				}
			}
			for _, p := range tt.kept {
				rel, isDir := strings.TrimSuffix(p, "/"), strings.HasSuffix(p, "/")
				if ignoredPath(rules, rel, isDir) {
					t.Errorf("%q: got ignored, want kept", p)
				}
			}
		})
	}
}

func TestGitignoreNested(t *testing.T) {
	rules := ignoreList(parseIgnore([]byte("*.gen\n/top.txt\n"), ""))
	rules = append(rules, parseIgnore([]byte("!keep.gen\nlocal.txt\n/anchored\n"), "sub")...)
	tests := []struct {
		path string
		want bool
	}{
		{"a.gen", true},
		{"sub/a.gen", true},
		{"sub/keep.gen", false},
		{"keep.gen", true},
		{"sub/local.txt", true},
		{"local.txt", false},
		{"other/local.txt", false},
		{"sub/deeper/local.txt", true},
		{"sub/anchored", true},
		{"sub/x/anchored", false},
		{"anchored", false},
		{"top.txt", true},
		{"sub/top.txt", false},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			if got := ignoredPath(rules, tt.path, false); got != tt.want {
				t.Errorf("ignored(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
}

// TestGitignoreAgainstGit asks git itself about every case of
// gitignoreCases, so the table cannot drift from git's behaviour. Each case
// lives in its own folder of one repository, with its own .gitignore.
func TestGitignoreAgainstGit(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	if out, err := exec.Command(git, "init", "-q", dir).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	type query struct {
		caseName, path string
		want           bool
	}
	var queries []query
	for i, tt := range gitignoreCases {
		caseDir := fmt.Sprintf("case%02d", i)
		writeFiles(t, dir, map[string]string{caseDir + "/.gitignore": tt.ignore})
		for _, p := range tt.ignored {
			queries = append(queries, query{tt.name, caseDir + "/" + p, true})
		}
		for _, p := range tt.kept {
			queries = append(queries, query{tt.name, caseDir + "/" + p, false})
		}
	}
	var stdin, stdout, stderr bytes.Buffer
	for _, q := range queries {
		if strings.HasSuffix(q.path, "/") {
			writeFiles(t, dir, map[string]string{q.path: ""})
		} else {
			writeFiles(t, dir, map[string]string{q.path: "x"})
		}
		stdin.WriteString(strings.TrimSuffix(q.path, "/") + "\n")
	}
	// One line per path: "SOURCE:LINE:PATTERN<TAB>PATH", with empty fields
	// when nothing matched; a "!" pattern re-includes.
	cmd := exec.Command(git, "-c", "core.excludesFile=/dev/null", "check-ignore", "--no-index", "--stdin", "--non-matching", "--verbose")
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = dir, &stdin, &stdout, &stderr
	if err := cmd.Run(); exitCode(err) > 1 {
		t.Fatalf("git check-ignore: %v\n%s", err, stderr.String())
	}
	lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
	if len(lines) != len(queries) {
		t.Fatalf("git check-ignore answered %d lines for %d paths:\n%s", len(lines), len(queries), stdout.String())
	}
	for i, q := range queries {
		source, _, _ := strings.Cut(lines[i], "\t")
		fields := strings.SplitN(source, ":", 3)
		got := len(fields) == 3 && fields[2] != "" && !strings.HasPrefix(fields[2], "!")
		if got != q.want {
			t.Errorf("%s: %q: git says ignored=%v (%s), the table says %v", q.caseName, q.path, got, lines[i], q.want)
		}
	}
}

// refMatchSegment is a plainly recursive matcher for one segment, the
// reference the iterative one is fuzzed against. It shares only the
// bracket-expression parser.
func refMatchSegment(pat, name string) bool {
	if pat == "" {
		return name == ""
	}
	switch pat[0] {
	case '*':
		rest := strings.TrimLeft(pat, "*")
		for i := 0; ; {
			if refMatchSegment(rest, name[i:]) {
				return true
			}
			if i == len(name) {
				return false
			}
			_, size := utf8.DecodeRuneInString(name[i:])
			i += size
		}
	case '?':
		if name == "" {
			return false
		}
		_, size := utf8.DecodeRuneInString(name)
		return refMatchSegment(pat[1:], name[size:])
	case '[':
		if name == "" {
			// An unclosed class still makes the whole pattern fail.
			return false
		}
		r, size := utf8.DecodeRuneInString(name)
		ok, next, valid := matchClass(pat, 0, r)
		return valid && ok && refMatchSegment(pat[next:], name[size:])
	case '\\':
		if len(pat) == 1 || name == "" {
			return false
		}
		pr, psize := utf8.DecodeRuneInString(pat[1:])
		r, size := utf8.DecodeRuneInString(name)
		return pr == r && refMatchSegment(pat[1+psize:], name[size:])
	}
	if name == "" {
		return false
	}
	pr, psize := utf8.DecodeRuneInString(pat)
	r, size := utf8.DecodeRuneInString(name)
	return pr == r && refMatchSegment(pat[psize:], name[size:])
}

func refMatchSegments(pat, path []string) bool {
	if len(pat) == 0 {
		return len(path) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(path); i++ {
			if refMatchSegments(pat[1:], path[i:]) {
				return true
			}
		}
		return false
	}
	return len(path) > 0 && refMatchSegment(pat[0], path[0]) && refMatchSegments(pat[1:], path[1:])
}

// FuzzGitignoreMatch checks the iterative matchers against the recursive
// reference, and that nothing panics on any pattern.
func FuzzGitignoreMatch(f *testing.F) {
	seeds := [][2]string{
		{"*.go", "a/b.go"}, {"a/**/b", "a/x/y/b"}, {"**/x", "x"}, {"abc/**", "abc"},
		{"[a-c]?*", "bxy"}, {"[!a]", "a"}, {"\\*x", "*x"}, {"a[b", "a[b"}, {"[[:alpha:]]*", "Zed"},
		{"*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}, {"**/**/**/z", "a/b/c/d/e/f/g/h/z"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		if len(pattern) > 64 || len(path) > 64 {
			return // keep the exponential reference quick
		}
		p, ok := parseIgnoreLine(pattern, "")
		rel := strings.Trim(path, "/")
		if !ok || rel == "" || strings.Contains(rel, "//") {
			return
		}
		got := p.matches(rel, false)
		want := !p.dirOnly && refMatchSegments(p.segs, strings.Split(rel, "/"))
		if got != want {
			t.Fatalf("pattern %q (segments %q) on %q: got %v, reference %v", pattern, p.segs, rel, got, want)
		}
	})
}
