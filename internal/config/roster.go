package config

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"unicode/utf8"

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
// never write or execute. The advisor's grep is named search, and glob is
// omp's name for find, so each is taken under both names.
var ReadOnlyTools = []string{"read", "grep", "search", "find", "glob"}

// writingTools are the agent's tools that change the workspace or run
// commands: a roster that asks for one gets a warning, and the advisor
// the read-only tools it asked for. Any other name gives no tool at all.
var writingTools = []string{"write", "edit", "bash", "task"}

// MaxInstructionBytes caps the instructions of one WATCHDOG.yml (the
// shared ones) and of one advisor in it, as advisor.MaxWatchdogBytes caps
// one WATCHDOG.md: the rest is cut, with a note the advisor reads and a
// warning for the user.
const MaxInstructionBytes = 32 << 10

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
	// Cadence is how often it reviews (advisor.cadence's values); ""
	// takes advisor.cadence.
	Cadence string `yaml:"cadence"`
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
// project's advisors and its maxNotesPerUpdate apply only in a trusted
// folder (the advisors choose models, which costs money; the cap bounds
// what reaches the agent): otherwise they are held back with a warning
// saying how to trust it; its shared instructions apply either way, as
// its WATCHDOG.md does. Trust is decided on the folder a file really is
// in, symbolic links followed, and a project's file that is a link out of
// the project (and of the working folder) is not read.
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
	var project projectPlace
	if o.Dir != "" {
		project = newProjectPlace(o.ProjectRoot, o.Dir)
	}
	byName := map[string]int{}
	var shared []string
	for _, f := range files {
		var real string
		if f.project {
			var err error
			real, err = filepath.EvalSymlinks(f.path)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				continue
			}
			if err == nil && !project.holds(real) {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s is a symbolic link to %s, outside the project; not read (a project's files stay in the project)", f.path, real))
				continue
			}
		}
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
		trusted, why, trustDir := true, "", ""
		if f.project && !o.TrustProject {
			trusted, why, trustDir = project.trusted(o.AgentDir, cmp.Or(real, f.path))
		}
		if rf.maxNotes != nil {
			if trusted || *rf.maxNotes == r.MaxNotesPerUpdate {
				r.MaxNotesPerUpdate = *rf.maxNotes
			} else {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s:%d: would set maxNotesPerUpdate: %d; not applied, because %s (it caps the notes that reach the agent). If you trust it, run: vigil trust %s", f.path, rf.maxNotesLine, *rf.maxNotes, why, trustDir))
			}
		}
		if !trusted && len(rf.advisors) > 0 {
			names := make([]string, len(rf.advisors))
			for i, a := range rf.advisors {
				names[i] = a.Name
			}
			also := ""
			if rf.instructions != "" {
				also = " Its shared instructions apply all the same, as its WATCHDOG.md does."
			}
			r.Warnings = append(r.Warnings, fmt.Sprintf("%s declares advisors %s; not run, because %s (they choose models, which costs money).%s If you trust it, run: vigil trust %s", f.path, strings.Join(names, ", "), why, also, trustDir))
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

// projectPlace is where a project's roster files may be: its root and
// the working folder, symbolic links followed.
type projectPlace struct {
	root  string   // the project root as given
	roots []string // the root and the working folder, links followed
}

func newProjectPlace(root, dir string) projectPlace {
	if root == "" {
		root = dir
	}
	p := projectPlace{root: root}
	for _, d := range []string{root, dir} {
		if real, err := filepath.EvalSymlinks(d); err == nil {
			p.roots = append(p.roots, real)
		} else {
			p.roots = append(p.roots, filepath.Clean(d))
		}
	}
	return p
}

// holds reports whether real (a path with links followed) is in the
// project root or the working folder.
func (p projectPlace) holds(real string) bool {
	for _, r := range p.roots {
		if within(r, real) {
			return true
		}
	}
	return false
}

// trusted reports whether the folder that really holds the project file
// whose path, links followed, is real is trusted; when not, why, and the
// folder to trust: the project root, or the folder the file is really in
// when that is outside the root (a working folder reached through a
// link).
func (p projectPlace) trusted(agentDir, real string) (ok bool, why, dir string) {
	owner := filepath.Dir(real)
	if filepath.Base(owner) == ".vigil" {
		owner = filepath.Dir(owner)
	}
	dir = p.root
	if !within(p.roots[0], real) {
		dir = owner
	}
	ok, err := Trusted(agentDir, owner)
	why = "this folder is not trusted"
	if err != nil {
		why += " (" + err.Error() + ")"
	}
	return ok, why, dir
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
	maxNotesLine int
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
	if doc := secondDocument(f); doc != nil {
		warn(docLine(doc), "holds more than one YAML document; a roster is one mapping (instructions, maxNotesPerUpdate, advisors); the file is left out")
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
			out.instructions = capInstructions(strings.TrimSpace(s), func(n int) {
				warn(line, "instructions are %d bytes, more than the %s an advisor reads of them; cut there", n, kib(MaxInstructionBytes))
			})
		case "maxNotesPerUpdate":
			var n int
			if err := yaml.NodeToValue(mv.Value, &n); err != nil || n < 0 {
				warn(line, "maxNotesPerUpdate is not a count (0 or more); left out")
				continue
			}
			out.maxNotes, out.maxNotesLine = &n, line
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
	nameKey := lookupKey(unwrapNode(n), "name")
	label := "an advisor"
	if nameKey != nil {
		if v, ok := unwrapNode(nameKey.Value).(ast.ScalarNode); ok && !isNull(v) {
			if text := strings.TrimSpace(v.GetToken().Value); rosterName().MatchString(text) {
				label = "advisor " + text
			} else if text != "" {
				label = fmt.Sprintf("advisor %q", cutRunes(text, 64))
			}
		}
	}
	var a RosterAdvisor
	if err := yaml.NodeToValue(n, &a, yaml.Strict(), yaml.DisallowUnknownField()); err != nil {
		warn(line, "%s is left out: %s", label, firstErrLine(err))
		return a, false
	}
	switch {
	case a.Name == "" && nameKey != nil:
		warn(line, "%s has an empty name (a name is 1 to 64 letters, digits, '.', '_' or '-'); left out", label)
		return a, false
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
	case a.Cadence != "" && !ValidCadence(a.Cadence):
		warn(line, "advisor %s: cadence %q is not every, final or a whole number of steps ≥ 1; left out", a.Name, cutRunes(a.Cadence, 32))
		return a, false
	}
	var tools, refused []string
	for i, t := range a.Tools {
		switch {
		case slices.Contains(ReadOnlyTools, t):
			tools = append(tools, t)
		case slices.Contains(writingTools, t):
			refused = append(refused, t)
		default:
			warn(cmp.Or(toolLine(n, i), line), "advisor %s asks for the tool %q, which vigil's advisors do not have (they have %s); left out", a.Name, cutRunes(t, 64), strings.Join(ReadOnlyTools, ", "))
			return a, false
		}
	}
	seen[a.Name] = true
	if len(refused) > 0 {
		warn(line, "advisor %s asks for %s: vigil's advisors never write or execute, so it gets only %s", a.Name, strings.Join(refused, ", "), orAll(tools))
	}
	a.Tools = tools
	a.Instructions = capInstructions(strings.TrimSpace(a.Instructions), func(size int) {
		at := line
		if mv := lookupKey(unwrapNode(n), "instructions"); mv != nil {
			at = cmp.Or(lineOf(mv.Key), line)
		}
		warn(at, "advisor %s: its instructions are %d bytes, more than the %s an advisor reads of them; cut there", a.Name, size, kib(MaxInstructionBytes))
	})
	a.Source = fmt.Sprintf("%s:%d", name, line)
	return a, true
}

// capInstructions cuts text at [MaxInstructionBytes], at a character's
// start, with a note the advisor reads, and tells cut the size it had.
func capInstructions(text string, cut func(n int)) string {
	if len(text) <= MaxInstructionBytes {
		return text
	}
	end := MaxInstructionBytes
	for end > 0 && !utf8.RuneStart(text[end]) {
		end--
	}
	cut(len(text))
	return text[:end] + fmt.Sprintf("\n[vigil: these instructions are %d bytes; only the first %d are shown]", len(text), end)
}

func kib(n int) string { return fmt.Sprintf("%d KiB", n>>10) }

// cutRunes is s cut to at most n characters, for a warning.
func cutRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// toolLine is the line of the i-th item of the advisor entry n's tools
// list; 0 when it cannot be found.
func toolLine(n ast.Node, i int) int {
	mv := lookupKey(unwrapNode(n), "tools")
	if mv == nil {
		return 0
	}
	seq, ok := unwrapNode(mv.Value).(*ast.SequenceNode)
	if !ok || i >= len(seq.Values) {
		return 0
	}
	return lineOf(seq.Values[i])
}

// docLine is the line a document starts at: its "---", or its first
// value.
func docLine(d *ast.DocumentNode) int {
	if d.Start != nil && d.Start.Position != nil {
		return d.Start.Position.Line
	}
	return lineOf(d.Body)
}

// secondDocument is the first document of f after its first that holds
// something; nil when there is none.
func secondDocument(f *ast.File) *ast.DocumentNode {
	for _, d := range f.Docs[1:] {
		if !isNull(d.Body) {
			return d
		}
	}
	return nil
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
