package config

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/vigil-dev/vigil/internal/yamlfile"
)

// A roster is several advisors, each an independent reviewer of the same
// steps with its own model and instructions, declared in WATCHDOG.yml in
// omp's shape, so that omp users bring theirs:
//
//	instructions: |            # shared by every advisor, after WATCHDOG.md
//	  …
//	maxNotesPerUpdate: 1       # notes the agent gets per update, in all
//	advisors:
//	  - name: security
//	    model: anthropic/claude-opus-5-5
//	    instructions: Look for secrets and unsafe shell.
//	    enabled: true
//	    tools: [read, grep]      # a subset of the read-only tools
//	    maxNotesPerUpdate: 1
//
// The files are read as WATCHDOG.md is: the agent folder's WATCHDOG.yml,
// then each project folder's WATCHDOG.yml and .vigil/WATCHDOG.yml from the
// project root down to the working folder. Shared instructions add up in
// that order; an advisor declared again by name replaces the earlier one;
// maxNotesPerUpdate is the last file's.

// RosterNames are the roster's file names: in the agent folder, and in
// each project folder.
var RosterNames = struct{ User, Project []string }{
	User:    []string{"WATCHDOG.yml"},
	Project: []string{"WATCHDOG.yml", filepath.Join(".vigil", "WATCHDOG.yml")},
}

// ReadOnlyTools are the tools an advisor may be given: vigil's advisors
// never write or execute. glob is omp's name for find.
var ReadOnlyTools = []string{"read", "grep", "find", "ls", "glob"}

// Roster is the advisors declared in WATCHDOG.yml files.
type Roster struct {
	// Instructions are the shared instructions, each file's in walk
	// order, blank-line separated.
	Instructions string
	// MaxNotesPerUpdate caps the notes the agent gets per update from the
	// whole roster (blockers exempt); 0 leaves vigil's default.
	MaxNotesPerUpdate int
	// Advisors are the healthy entries, in declaration order.
	Advisors []RosterAdvisor
	// Files are the files read, in order.
	Files []string
	// Warnings say what was dropped or changed and why, each naming file,
	// line and advisor.
	Warnings []string
}

// RosterAdvisor is one advisor of the roster.
type RosterAdvisor struct {
	// Name names it in notes, status and its transcript
	// (__advisor-NAME.jsonl).
	Name string `yaml:"name"`
	// Model is its model reference; "" uses modelRoles.advisor.
	Model string `yaml:"model"`
	// Instructions are its own, after the shared ones.
	Instructions string `yaml:"instructions"`
	// Enabled is false to declare it without running it; default true.
	Enabled *bool `yaml:"enabled"`
	// MaxNotesPerUpdate caps its own notes per update; 0: no cap of its
	// own.
	MaxNotesPerUpdate int `yaml:"maxNotesPerUpdate"`
	// Tools are the read-only tools it may use; empty gives all of them.
	Tools []string `yaml:"tools"`
	// Source is the file and line that declared it.
	Source string `yaml:"-"`
}

// On reports whether the advisor is enabled.
func (a RosterAdvisor) On() bool { return a.Enabled == nil || *a.Enabled }

// RosterOptions say where [LoadRoster] looks.
type RosterOptions struct {
	// AgentDir is the user's agent folder; empty skips the user file.
	AgentDir string
	// Dir is the working folder; the project root is found from it.
	// Empty skips the project files.
	Dir, ProjectRoot string
	// TrustProject runs the project's advisors without looking the folder
	// up in the trusted folders.
	TrustProject bool
}

var rosterName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// LoadRoster reads the WATCHDOG.yml files. A broken file or entry is
// left out with a warning and the rest still load; only a file that
// cannot be read safely (not a regular file, over 1 MiB) is an error. A
// project's advisors run only in a trusted folder (they choose models,
// which costs money): otherwise they are held back with a warning saying
// how to trust it; its shared instructions apply either way, as its
// WATCHDOG.md does.
func LoadRoster(o RosterOptions) (*Roster, error) {
	r := &Roster{}
	type file struct {
		path    string
		project bool
	}
	var files []file
	if o.AgentDir != "" {
		for _, n := range RosterNames.User {
			files = append(files, file{filepath.Join(o.AgentDir, n), false})
		}
	}
	if o.Dir != "" {
		root := o.ProjectRoot
		if root == "" {
			root = o.Dir
		}
		for _, d := range folders(root, o.Dir) {
			for _, n := range RosterNames.Project {
				files = append(files, file{filepath.Join(d, n), true})
			}
		}
	}
	trusted, trustErr := o.TrustProject, error(nil)
	if !trusted && o.Dir != "" {
		trusted, trustErr = Trusted(o.AgentDir, o.ProjectRoot)
	}
	byName := map[string]int{}
	var shared []string
	for _, f := range files {
		data, err := yamlfile.ReadFile(f.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read the advisors' roster: %w", err)
		}
		r.Files = append(r.Files, f.path)
		rf := r.parse(f.path, data)
		if rf.instructions != "" {
			shared = append(shared, rf.instructions)
		}
		if rf.maxNotes != nil {
			r.MaxNotesPerUpdate = *rf.maxNotes
		}
		if f.project && !trusted && len(rf.advisors) > 0 {
			names := make([]string, len(rf.advisors))
			for i, a := range rf.advisors {
				names[i] = a.Name
			}
			why := "this folder is not trusted"
			if trustErr != nil {
				why += " (" + trustErr.Error() + ")"
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s declares advisors %s; not run, because %s (they choose models, which costs money). If you trust it, run: vigil trust %s", f.path, strings.Join(names, ", "), why, o.ProjectRoot))
			continue
		}
		for _, a := range rf.advisors {
			if i, ok := byName[a.Name]; ok {
				r.Advisors[i] = a // a later, more specific file replaces it
				continue
			}
			byName[a.Name] = len(r.Advisors)
			r.Advisors = append(r.Advisors, a)
		}
	}
	r.Instructions = strings.Join(shared, "\n\n")
	return r, nil
}

// folders are root and each folder below it down to dir, root first; just
// dir when dir is not under root.
func folders(root, dir string) []string {
	root, dir = filepath.Clean(root), filepath.Clean(dir)
	rel, err := filepath.Rel(root, dir)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return []string{dir}
	}
	out := []string{root}
	if rel == "." {
		return out
	}
	cur := root
	for _, seg := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, seg)
		out = append(out, cur)
	}
	return out
}

// rosterFile is one file's part of the roster.
type rosterFile struct {
	instructions string
	maxNotes     *int
	advisors     []RosterAdvisor
}

// parse reads one file, adding a warning for each part it leaves out.
func (r *Roster) parse(name string, data []byte) rosterFile {
	var out rosterFile
	warn := func(line int, format string, args ...any) {
		at := name
		if line > 0 {
			at = fmt.Sprintf("%s:%d", name, line)
		}
		r.Warnings = append(r.Warnings, at+": "+fmt.Sprintf(format, args...))
	}
	f, err := yamlfile.Parse(name, data)
	if err != nil {
		r.Warnings = append(r.Warnings, err.Error()+"; the file is left out")
		return out
	}
	if isEmpty(f) {
		return out
	}
	top, ok := unwrapNode(f.Docs[0].Body).(*ast.MappingNode)
	if !ok {
		if mv, ok := unwrapNode(f.Docs[0].Body).(*ast.MappingValueNode); ok {
			top = &ast.MappingNode{Values: []*ast.MappingValueNode{mv}}
		} else {
			warn(lineOf(f.Docs[0].Body), "a roster is a mapping (instructions, maxNotesPerUpdate, advisors); the file is left out")
			return out
		}
	}
	seen := map[string]bool{}
	for _, mv := range top.Values {
		key := mv.Key.GetToken().Value
		line := lineOf(mv.Key)
		switch key {
		case "instructions":
			var s string
			if err := yaml.NodeToValue(mv.Value, &s); err != nil {
				warn(line, "instructions is not text; left out")
				continue
			}
			out.instructions = strings.TrimSpace(s)
		case "maxNotesPerUpdate":
			var n int
			if err := yaml.NodeToValue(mv.Value, &n); err != nil || n < 0 {
				warn(line, "maxNotesPerUpdate is not a count (0 or more); left out")
				continue
			}
			out.maxNotes = &n
		case "advisors":
			seq, ok := unwrapNode(mv.Value).(*ast.SequenceNode)
			if !ok {
				if !isNull(mv.Value) {
					warn(line, "advisors is not a list; left out")
				}
				continue
			}
			for _, n := range seq.Values {
				if a, ok := r.advisor(name, n, seen, warn); ok {
					out.advisors = append(out.advisors, a)
				}
			}
		default:
			warn(line, "unknown key %s (a roster has instructions, maxNotesPerUpdate and advisors); ignored", key)
		}
	}
	return out
}

// advisor reads one entry of advisors; a broken one is left out.
func (r *Roster) advisor(name string, n ast.Node, seen map[string]bool, warn func(int, string, ...any)) (RosterAdvisor, bool) {
	line := lineOf(n)
	label := "an advisor"
	if mv := lookupKey(unwrapNode(n), "name"); mv != nil {
		label = "advisor " + strings.TrimSpace(mv.Value.GetToken().Value)
	}
	var a RosterAdvisor
	if err := yaml.NodeToValue(n, &a, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
		warn(line, "%s is left out: %s", label, firstErrLine(err))
		return a, false
	}
	switch {
	case a.Name == "":
		warn(line, "%s has no name; left out", label)
		return a, false
	case !rosterName().MatchString(a.Name):
		warn(line, "advisor %q: a name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit; left out", a.Name)
		return a, false
	case seen[a.Name]:
		warn(line, "advisor %s is declared twice in this file; the second is left out", a.Name)
		return a, false
	case a.MaxNotesPerUpdate < 0:
		warn(line, "advisor %s: maxNotesPerUpdate is below 0; left out", a.Name)
		return a, false
	}
	seen[a.Name] = true
	var tools, refused []string
	for _, t := range a.Tools {
		if slices.Contains(ReadOnlyTools, t) {
			tools = append(tools, t)
		} else {
			refused = append(refused, t)
		}
	}
	if len(refused) > 0 {
		warn(line, "advisor %s asks for %s: vigil's advisors never write or execute, so it gets only %s", a.Name, strings.Join(refused, ", "), orAll(tools))
	}
	a.Tools = tools
	a.Source = fmt.Sprintf("%s:%d", name, line)
	return a, true
}

func orAll(tools []string) string {
	if len(tools) == 0 {
		return "the read-only tools"
	}
	return strings.Join(tools, ", ")
}

// firstErrLine is the decoder's message without its source excerpt.
func firstErrLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return strings.TrimSpace(s)
}

func lineOf(n ast.Node) int {
	if n == nil || n.GetToken() == nil || n.GetToken().Position == nil {
		return 0
	}
	return n.GetToken().Position.Line
}

func unwrapNode(n ast.Node) ast.Node {
	for {
		switch m := n.(type) {
		case *ast.TagNode:
			n = m.Value
		case *ast.AnchorNode:
			n = m.Value
		case *ast.CommentGroupNode:
			return nil
		default:
			return n
		}
	}
}
