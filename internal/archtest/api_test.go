package archtest

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"slices"
	"strings"
	"testing"
)

// isInternal says whether an import path is below an internal folder, so
// that no program outside its tree can import it.
func isInternal(path string) bool {
	return strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/") || strings.HasPrefix(path, "internal/")
}

// TestPublicAPIHidesInternal keeps the public packages (those another Go
// program may import: neither internal nor a command) adoptable: nothing
// they export (a function's parameters and results, an exported field,
// an exported method, a type's definition, a variable's type) names a
// type of an internal package, which such a program could not name.
// vigil's settings schema (internal/config) reaches the agent as
// agent.CompactionOptions, converted in the wiring, for this reason.
//
// It reads each package's API from the compiler's export data, as go
// list -export leaves it.
func TestPublicAPIHidesInternal(t *testing.T) {
	out := goList(t, "-export", "-deps", "-json=ImportPath,Name,Export", module+"/...")
	exports := map[string]string{}
	var public []string
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct{ ImportPath, Name, Export string }
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		rel, ours := strings.CutPrefix(p.ImportPath, module+"/")
		if ours && p.Name != "main" && !isInternal(rel) && !strings.HasPrefix(rel, "cmd/") {
			public = append(public, p.ImportPath)
		}
	}
	if len(public) < 5 {
		t.Fatalf("go list found only %d public packages: %v", len(public), public)
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		file := exports[path]
		if file == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(file)
	})
	for _, path := range public {
		p, err := imp.Import(path)
		if err != nil {
			t.Fatalf("import %s: %v", path, err)
		}
		for _, leak := range internalInAPI(p) {
			t.Errorf("%s: %s: a program outside vigil cannot name it; give the package its own type and convert in the wiring", strings.TrimPrefix(path, module+"/"), leak)
		}
	}
}

// internalInAPI lists where the exported API of p names a type of an
// internal package, as "Name: the type".
func internalInAPI(p *types.Package) []string {
	w := apiWalk{pkg: p, seen: map[types.Type]bool{}}
	for _, name := range p.Scope().Names() {
		obj := p.Scope().Lookup(name)
		if !obj.Exported() {
			continue
		}
		w.at = name
		if tn, ok := obj.(*types.TypeName); ok && !tn.IsAlias() {
			w.named(tn.Type().(*types.Named))
			continue
		}
		w.walk(obj.Type())
	}
	slices.Sort(w.leaks)
	return slices.Compact(w.leaks)
}

// apiWalk follows the types an exported name shows: into the package's
// own types (exported fields and methods only), stopping at other
// packages' types, which are either internal (a leak) or not its concern.
type apiWalk struct {
	pkg   *types.Package
	seen  map[types.Type]bool
	at    string // the exported name being walked
	leaks []string
}

func (w *apiWalk) walk(t types.Type) {
	switch t := t.(type) {
	case *types.Alias:
		if w.leaked(t.Obj(), t) {
			return
		}
		w.walk(t.Rhs())
	case *types.Named:
		w.named(t)
	case *types.Pointer:
		w.walk(t.Elem())
	case *types.Slice:
		w.walk(t.Elem())
	case *types.Array:
		w.walk(t.Elem())
	case *types.Chan:
		w.walk(t.Elem())
	case *types.Map:
		w.walk(t.Key())
		w.walk(t.Elem())
	case *types.Signature:
		w.tuple(t.Params())
		w.tuple(t.Results())
		for i := range t.TypeParams().Len() {
			w.walk(t.TypeParams().At(i).Constraint())
		}
	case *types.Struct:
		for i := range t.NumFields() {
			if f := t.Field(i); f.Exported() || f.Embedded() {
				w.walk(f.Type())
			}
		}
	case *types.Interface:
		for i := range t.NumExplicitMethods() {
			if m := t.ExplicitMethod(i); m.Exported() {
				w.walk(m.Type())
			}
		}
		for i := range t.NumEmbeddeds() {
			w.walk(t.EmbeddedType(i))
		}
	case *types.Union:
		for i := range t.Len() {
			w.walk(t.Term(i).Type())
		}
	case *types.TypeParam:
		w.walk(t.Constraint())
	}
}

// named walks a defined type: another package's is checked for being
// internal and left there; the package's own is walked once, its
// definition and its exported methods.
func (w *apiWalk) named(t *types.Named) {
	obj := t.Obj()
	if w.leaked(obj, t) {
		return
	}
	for i := range t.TypeArgs().Len() {
		w.walk(t.TypeArgs().At(i))
	}
	if obj.Pkg() != w.pkg || w.seen[t] {
		return
	}
	w.seen[t] = true
	w.walk(t.Underlying())
	for i := range t.NumMethods() {
		if m := t.Method(i); m.Exported() {
			w.walk(m.Type())
		}
	}
}

// leaked records obj's type when its package is internal.
func (w *apiWalk) leaked(obj *types.TypeName, t types.Type) bool {
	if obj.Pkg() == nil || !isInternal(obj.Pkg().Path()) {
		return false
	}
	w.leaks = append(w.leaks, w.at+": "+t.String())
	return true
}

func (w *apiWalk) tuple(vars *types.Tuple) {
	for i := range vars.Len() {
		w.walk(vars.At(i).Type())
	}
}

// TestInternalInAPI checks the walk itself on a made-up package: each way
// an exported name can show a type is caught, and what stays private is
// not reported. An unexported type seen through two names is reported at
// the first in order (Embeds, not Returns).
func TestInternalInAPI(t *testing.T) {
	const secretSrc = `package secret
type Key struct{}
type Box[T any] struct{ V T }
`
	const pubSrc = `package pub
import "example.com/m/internal/secret"
type Field struct{ K secret.Key; k secret.Key }
type Method struct{}
func (Method) Get() secret.Key { return secret.Key{} }
func (Method) get() secret.Key { return secret.Key{} }
type Iface interface{ Put(*secret.Key) }
type private struct{ Out []secret.Key; in secret.Key }
func Returns() private { return private{} }
type Alias = secret.Key
var Var map[string]secret.Key
func Generic() Wrap[secret.Key] { return Wrap[secret.Key]{} }
type Wrap[T any] struct{ V T }
type Embeds struct{ private }
func Boxed(secret.Box[int]) {}
func quiet(secret.Key) {}
type Clean struct{ N int; k secret.Key }
func (Clean) String() string { return "" }
`
	fset := token.NewFileSet()
	check := func(path, src string, imp types.Importer) *types.Package {
		t.Helper()
		f, err := parser.ParseFile(fset, path+".go", src, 0)
		if err != nil {
			t.Fatal(err)
		}
		p, err := (&types.Config{Importer: imp}).Check(path, fset, []*ast.File{f}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	secret := check("example.com/m/internal/secret", secretSrc, nil)
	pub := check("example.com/m/pub", pubSrc, importerFunc(func(path string) (*types.Package, error) {
		if path == secret.Path() {
			return secret, nil
		}
		return nil, fmt.Errorf("no package %s", path)
	}))
	got := internalInAPI(pub)
	want := []string{
		"Alias: example.com/m/internal/secret.Key",
		"Boxed: example.com/m/internal/secret.Box[int]",
		"Embeds: example.com/m/internal/secret.Key",
		"Field: example.com/m/internal/secret.Key",
		"Generic: example.com/m/internal/secret.Key",
		"Iface: example.com/m/internal/secret.Key",
		"Method: example.com/m/internal/secret.Key",
		"Var: example.com/m/internal/secret.Key",
	}
	if !slices.Equal(got, want) {
		t.Errorf("internalInAPI:\n got %q\nwant %q", got, want)
	}
}

// importerFunc is a function as a types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
