package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// regexpCompilers are the functions of package regexp that compile an
// expression.
var regexpCompilers = map[string]bool{
	"Compile": true, "MustCompile": true, "CompilePOSIX": true, "MustCompilePOSIX": true,
}

// TestNoRegexpCompiledAtStart keeps every start of vigil (the hook command
// is one per agent event) free of regular expression compiling: a package
// compiles its expressions at first use, declared as
//
//	var x = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`...`) })
//
// and never in a package-level variable's initialiser or an init function,
// which run before main. Calls inside a function literal are not run at
// start, so they are allowed. Test files are not part of the binary.
func TestNoRegexpCompiledAtStart(t *testing.T) {
	fset := token.NewFileSet()
	for _, p := range listPackages(t) {
		dir := filepath.Join("..", "..", filepath.FromSlash(strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")))
		for _, name := range p.GoFiles {
			path := filepath.Join(dir, name)
			f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatalf("parse %s: %v", path, err)
			}
			for _, pos := range regexpCompiledAtStart(f) {
				t.Errorf("%s: a regular expression compiled at start; wrap it in sync.OnceValue so it compiles at first use", fset.Position(pos))
			}
		}
	}
}

// regexpCompiledAtStart returns where f calls a regexp compiler in code
// that runs when the package initialises: package-level variable
// initialisers and init functions, outside function literals.
func regexpCompiledAtStart(f *ast.File) []token.Pos {
	local := ""
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path == "regexp" {
			local = "regexp"
			if imp.Name != nil {
				local = imp.Name.Name
			}
		}
	}
	if local == "" || local == "_" {
		return nil
	}
	var found []token.Pos
	visit := func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && regexpCompilers[sel.Sel.Name] {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
					found = append(found, n.Pos())
				}
			}
		}
		return true
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			if d.Tok == token.VAR {
				ast.Inspect(d, visit)
			}
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
				ast.Inspect(d.Body, visit)
			}
		}
	}
	return found
}

// TestRegexpCompiledAtStartSeen checks the rule above on sources that
// break it and sources that keep it.
func TestRegexpCompiledAtStartSeen(t *testing.T) {
	for _, c := range []struct {
		src  string
		want int
	}{
		{"var a = regexp.MustCompile(`a`)", 1},
		{"var (\n\tb, c = regexp.Compile(`b`)\n)", 1},
		{"var d = []*regexp.Regexp{regexp.MustCompilePOSIX(`d`), regexp.MustCompile(`e`)}", 2},
		{"func init() { e = regexp.MustCompile(`e`) }\nvar e *regexp.Regexp", 1},
		{"var f = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`f`) })", 0},
		{"func g() *regexp.Regexp { return regexp.MustCompile(`g`) }", 0},
		{"func init() { h = func() { regexp.MustCompile(`h`) } }\nvar h func()", 0},
		{"var i = other.MustCompile(`i`)", 0},
	} {
		src := "package p\n\nimport (\n\t\"regexp\"\n\t\"sync\"\n)\n\n" + c.src + "\n"
		f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%q: %v", c.src, err)
		}
		if got := len(regexpCompiledAtStart(f)); got != c.want {
			t.Errorf("%q: %d calls seen, want %d", c.src, got, c.want)
		}
	}
	renamed := "package p\n\nimport re \"regexp\"\n\nvar a = re.MustCompile(`a`)\n"
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", renamed, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(regexpCompiledAtStart(f)); got != 1 {
		t.Errorf("regexp imported as re: %d calls seen, want 1", got)
	}
}
