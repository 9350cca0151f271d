package archtest

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/vigil-dev/vigil"

type pkg struct {
	ImportPath string
	Doc        string
	Name       string
	Imports    []string
	GoFiles    []string
}

// goList runs go list with args and returns its output; it fails the
// test with go list's own error when it fails.
func goList(t *testing.T, args ...string) []byte {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list"}, args...)...).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	return out
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	out := goList(t, "-json", module+"/...")
	var pkgs []pkg
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 5 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	return pkgs
}

// rules say, for packages under a prefix (relative to the module), which of
// our packages they may import; anything of ours not listed is forbidden.
var rules = []struct {
	prefix  string
	allowed []string
	why     string
}{
	{"llm", nil, "llm is the foundation: it imports nothing of ours"},
	{"llm/anthropic", []string{"llm"}, "an adapter knows only the model API"},
	{"llm/openai", []string{"llm"}, "an adapter knows only the model API"},
	{"llm/llmtest", []string{"llm", "internal/fakellm"}, "the conformance suite drives adapters against fakellm"},
	{"internal/fakellm", []string{"internal/yamlfile"}, "fakellm is a stand-alone server"},
	{"internal/regularfile", nil, "a leaf: opens what must be a regular file, and nothing else"},
	{"internal/yamlfile", []string{"internal/regularfile"}, "a leaf helper"},
	{"internal/models", []string{"llm", "llm/anthropic", "llm/openai", "internal/yamlfile"}, "model resolution builds adapters, nothing else"},
	{"session", []string{"llm"}, "the session log stores llm messages and nothing else"},
	{"tools", []string{"llm"}, "tools speak llm blocks and nothing else"},
	{"contextfiles", nil, "a leaf: the agent and the advisor both use it"},
	{"internal/config", []string{"llm", "internal/yamlfile"}, "settings validate model refs and nothing else"},
	{"internal/jsonstr", nil, "a leaf: reads JSON strings, and nothing else"},
	{"internal/jsonfastgen", nil, "a generator run by go generate: it reads a package's types, and imports none of ours"},
	{"transcript", []string{"llm", "session", "history", "internal/regularfile", "internal/jsonstr"}, "readers turn foreign formats into session entries (advice recognised as history.IsAdvice reads it) and nothing else"},
	{"rules", []string{"llm", "session", "transcript", "internal/jsonstr"}, "detectors read steps and nothing else"},
	{"internal/eval", []string{"rules", "transcript", "session", "llm"}, "eval scores reviewers of transcripts and nothing else"},
	{"internal/review", []string{"rules", "transcript", "session", "llm", "history", "internal/regularfile"}, "a review streams transcripts through the detectors and nothing else (history for the diff and redaction of what a finding quotes)"},
	{"internal/report", []string{"internal/review", "rules", "transcript"}, "reports render reviews and nothing else"},
	{"internal/printnotes", []string{"agent", "advisor", "history", "session", "llm", "internal/report"}, "print mode's notes on stderr: agent events in, escaped lines out, and nothing else"},
	{"internal/locate", []string{"session", "internal/regularfile"}, "locate finds a project's session files in the agents' folders; it reads no more of a file than the working folder it records"},
	{"internal/stats", []string{"llm", "session"}, "stats adds up session files and nothing else; prices come from the caller"},
	{"internal/attach", []string{"internal/yamlfile", "internal/words"}, "attach edits the agents' settings files and nothing else"},
	{"internal/sidecar", []string{"advisor", "history", "transcript", "session", "llm", "internal/hookwire", "internal/words"}, "the sidecar feeds a followed transcript to an advisor runtime it is given; it knows no agent of ours and no CLI, and reads the hook's events with the hook's own package"},
	{"internal/hook", []string{"internal/sidecar", "internal/hookwire"}, "the hook command only forwards events to the sidecar: it must start fast"},
	{"internal/hookwire", nil, "the hook binary's code: the standard library alone, so that vigil-hook starts fast (cmd/vigil-hook's test checks every dependency)"},
	{"agent", []string{"llm", "session", "tools"}, "the agent knows nothing of the advisor or the CLI; the advisor attaches through hooks and events"},
	{"advisor", []string{"llm", "history", "session", "tools", "contextfiles", "rules", "internal/yamlfile"}, "the advisor never imports the agent, integrations or the CLI"},
	{"advisor/hosttest", []string{"advisor", "llm", "session"}, "the conformance suite of advisor.Host drives a host through the interface alone"},
	{"internal/rulesadvisor", []string{"advisor", "rules", "session", "transcript"}, "the detectors as an advisor reviewer, and nothing else"},
	{"internal/loopguard", []string{"agent", "llm", "rules", "session", "transcript"}, "a hook of the agent judged by the rules, and nothing else"},
	{"internal/replay", []string{"advisor", "history", "llm", "rules", "session", "transcript"}, "replays recorded runs to the advisor runtime, and nothing else"},
	{"internal/fleet", []string{"advisor", "history", "internal/rulesadvisor", "llm", "rules", "session"}, "fleet mode carries steps and notes over NATS between the advisor runtime and a host it is given; it knows no agent, no sidecar, no CLI and no model provider (a worker's models come from its Factory); history only for the redactor every published byte passes"},
	{"internal/advisorhost", []string{"agent", "advisor", "history", "session", "llm"}, "the glue between the agent and the advisor imports both, and history for the redactor its periodic forks pass, and nothing else"},
}

func TestImportBoundaries(t *testing.T) {
	for _, p := range listPackages(t) {
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		for _, imp := range p.Imports {
			if !strings.HasPrefix(imp, module+"/") && imp != module {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			if dep == "internal/cli" && !strings.HasPrefix(rel, "cmd/") {
				t.Errorf("%s imports internal/cli: only commands may", rel)
			}
			for _, r := range rules {
				if rel != r.prefix {
					continue
				}
				ok := false
				for _, a := range r.allowed {
					if dep == a {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s imports %s: %s", rel, dep, r.why)
				}
			}
		}
	}
}

func TestEveryPackageHasDoc(t *testing.T) {
	for _, p := range listPackages(t) {
		if len(p.GoFiles) == 0 {
			continue
		}
		if strings.TrimSpace(p.Doc) == "" {
			t.Errorf("%s has no package doc comment", p.ImportPath)
		}
	}
}

// TestArchitectureListsEveryPackage keeps docs/architecture.md's table of
// packages true: every package of the module is named there (as `path`,
// relative to the module), and every package named there exists.
func TestArchitectureListsEveryPackage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	have := map[string]bool{}
	for _, p := range listPackages(t) {
		if len(p.GoFiles) == 0 {
			continue
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
		have[rel] = true
		if !strings.Contains(doc, "`"+rel+"`") {
			t.Errorf("docs/architecture.md does not name %s: add it to the table of packages", rel)
		}
	}
	// The first table's first column: | `a`, `b` | its one job |
	table := false
	for _, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			if table {
				break // the end of the table of packages
			}
			continue
		}
		table = true
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cell := strings.SplitN(line, "|", 3)[1]
		for _, f := range strings.Split(cell, ",") {
			name := strings.Trim(strings.TrimSpace(f), "`")
			if name != "" && !have[name] {
				t.Errorf("docs/architecture.md names %s, which is not a package of the module", name)
			}
		}
	}
}

// TestArchitectureListsEveryDependency keeps docs/architecture.md's table
// of dependencies true: every module go.mod requires directly is named
// there with its job.
func TestArchitectureListsEveryDependency(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	cmd := exec.Command("go", "list", "-m", "-f", "{{if and (not .Main) (not .Indirect)}}{{.Path}}{{end}}", "all")
	cmd.Dir = filepath.Join("..", "..")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("go list -m: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -m: %v", err)
	}
	n := 0
	for _, mod := range strings.Fields(string(out)) {
		n++
		if !strings.Contains(doc, "`"+mod+"`") {
			t.Errorf("docs/architecture.md does not name the dependency %s: add it to the table of dependencies with its job", mod)
		}
	}
	if n == 0 {
		t.Fatal("go list -m found no direct dependencies")
	}
	if strings.Contains(doc, "../shared/") {
		t.Error("docs/architecture.md cites a file outside the repository (../shared/)")
	}
}
