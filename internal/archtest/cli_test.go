package archtest

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cliPkg is internal/cli's import path.
const cliPkg = module + "/internal/cli"

// cliExported is everything internal/cli may export: what cmd/vigil
// calls.
var cliExported = []string{"Run", "Version", "ExitCode"}

// cliWiringTypes are the types internal/cli may declare besides its
// commands, each with why it is wiring. This is the package's budget: a
// new type is either logic, which goes to a package with one job (as
// internal/rpc, internal/commands and the sidecar's spawning did), or
// wiring that earns a line here with its reason.
var cliWiringTypes = map[string]string{
	"cliArgs":        "kong's command line: the commands and their flags",
	"env":            "what every command gets: its streams and its view of the environment",
	"exitRequest":    "unwinds kong's exit (after --help, --version) through Run",
	"exitError":      "an error carrying the exit status main ends with",
	"signalStop":     "the cause a SIGINT or SIGTERM cancels a command with",
	"signalWatch":    "Run's SIGINT and SIGTERM handling around a command",
	"app":            "the agent, its session, its advisor and the models wired together; it satisfies commands.Target and rpc.App",
	"appOptions":     "which session and model an app starts with, from the run command's flags",
	"watched":        "what the sidecar command runs over: the sidecar, its advisor and session",
	"logWriter":      "a command's logf as the io.Writer a log.Logger wants",
	"natsFlags":      "the NATS credentials and TLS flags vigil serve and vigil stats --fleet share, and the connection they make",
	"firstError":     "the review command's output, keeping its first write error",
	"hookdConfig":    "hookd.json, the address and secret vigil attach --http and vigil hookd share",
	"rulesFile":      "the shape of the review command's --rules file",
	"modelEntryJSON": "the models command's --json output",
	"sessionsJSON":   "the sessions command's --json output",
	"statusReport":   "the status command's --json output",
	"sidecarStatus":  "the status command's --json output: one live sidecar",
}

// newHomes are the packages that took logic out of internal/cli, and
// the packages of ours each may import.
var newHomes = []struct {
	pkg     string
	allowed []string
	why     string
}{
	{"internal/supervise", []string{"advisor", "agent", "contextfiles", "history", "internal/advisorhost", "internal/config", "internal/fleet", "internal/models", "internal/replay", "internal/rulesadvisor", "llm", "rules", "session"}, "builds a session's advisor in any mode for any host from the settings, the roster and the models (vigil's agent's through advisorhost, a replay's for vigil eval); the sidecar and the CLI stay outside it"},
	{"internal/commands", nil, "the slash commands act on the Target interface they are given, nothing else"},
	{"internal/rpc", []string{"agent", "internal/commands"}, "the RPC server drives an App interface and writes the agent's events; it parses slash commands as the registry does"},
	{"internal/tui", []string{"agent", "internal/commands", "session", "llm", "tools", "internal/words"}, "the terminal UI drives an App interface, shows the agent's events and the session's entries, and lists the registry's commands"},
}

// cliListed is what TestCLIOnlyWires needs of each package.
type cliListed struct {
	ImportPath   string
	Dir          string
	GoFiles      []string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func listForCLI(t *testing.T) []cliListed {
	t.Helper()
	out, err := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles,Imports,TestImports,XTestImports", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []cliListed
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p cliListed
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestCLIOnlyWires keeps internal/cli the wiring of vigil's commands and
// nothing else (docs/architecture.md):
//
//   - no package but cmd/vigil imports it, tests included (its own
//     black-box tests apart);
//   - it exports only what cmd/vigil calls (cliExported);
//   - every type it declares is a command, kong's: a type named …Cmd with
//     a Run method, or one of cliWiringTypes, each with its reason;
//   - the packages that took its logic import only what newHomes says.
func TestCLIOnlyWires(t *testing.T) {
	pkgs := listForCLI(t)
	var cli *cliListed
	for i, p := range pkgs {
		if p.ImportPath == cliPkg {
			cli = &pkgs[i]
		}
		imports := map[string]bool{}
		for _, imp := range p.Imports {
			imports[imp] = true
		}
		for _, imp := range p.TestImports {
			imports[imp] = true
		}
		if p.ImportPath != cliPkg {
			for _, imp := range p.XTestImports {
				imports[imp] = true
			}
		}
		if imports[cliPkg] && p.ImportPath != module+"/cmd/vigil" {
			t.Errorf("%s imports internal/cli: only cmd/vigil may; move what it needs out of the CLI into a package with one job", p.ImportPath)
		}
		rel := strings.TrimPrefix(p.ImportPath, module+"/")
		for _, h := range newHomes {
			if rel != h.pkg {
				continue
			}
			for _, imp := range p.Imports {
				dep, ours := strings.CutPrefix(imp, module+"/")
				if ours && !slices.Contains(h.allowed, dep) {
					t.Errorf("%s imports %s: %s", rel, dep, h.why)
				}
			}
		}
	}
	if cli == nil {
		t.Fatal("go list did not list internal/cli")
	}
	fset := token.NewFileSet()
	types := map[string]token.Pos{}
	runs := map[string]bool{} // receiver types with a Run method
	for _, name := range cli.GoFiles {
		path := filepath.Join(cli.Dir, name)
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("parse %s: %v", path, err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil {
					if d.Name.Name == "Run" {
						runs[receiverName(d.Recv.List[0].Type)] = true
					}
					continue
				}
				checkCLIExport(t, fset, d.Name)
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						checkCLIExport(t, fset, s.Name)
						types[s.Name.Name] = s.Pos()
					case *ast.ValueSpec:
						for _, n := range s.Names {
							checkCLIExport(t, fset, n)
						}
					}
				}
			}
		}
	}
	names := make([]string, 0, len(types))
	for name := range types {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		pos := types[name]
		if strings.HasSuffix(name, "Cmd") && runs[name] {
			continue // a command
		}
		if _, ok := cliWiringTypes[name]; !ok {
			t.Errorf("%s: internal/cli declares type %s, which is neither a command (…Cmd with a Run method) nor listed in cliWiringTypes: put logic in a package with one job, or list the type there with why it is wiring", fset.Position(pos), name)
		}
	}
	for name := range cliWiringTypes {
		if _, ok := types[name]; !ok {
			t.Errorf("cliWiringTypes lists %s, which internal/cli no longer declares: remove it", name)
		}
	}
}

// checkCLIExport fails for an exported top-level name of internal/cli
// that cmd/vigil does not need.
func checkCLIExport(t *testing.T, fset *token.FileSet, id *ast.Ident) {
	t.Helper()
	if id.IsExported() && !slices.Contains(cliExported, id.Name) {
		t.Errorf("%s: internal/cli exports %s: it exports only what cmd/vigil calls (%s)", fset.Position(id.Pos()), id.Name, strings.Join(cliExported, ", "))
	}
}

// receiverName is the type name of a method's receiver: T or *T.
func receiverName(e ast.Expr) string {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}
