package contextfiles

import (
	"errors"
	"path/filepath"
	"strings"
)

// DefaultMaxImportDepth is how many imports deep expansion follows when no
// limit is given: a file five imports away from the top-level file is
// included, and its own tokens are left as written.
const DefaultMaxImportDepth = 5

// ImportOptions control [ExpandImports].
type ImportOptions struct {
	// Home is the user's home folder, for "~" and "~/" paths; empty leaves
	// such tokens as written.
	Home string
	// Roots are the folders imports may read from. A file that lies outside
	// every root after symbolic links are followed is not read. With no
	// roots, nothing is imported.
	Roots []string
	// MaxDepth bounds import chains; zero means [DefaultMaxImportDepth] and
	// a negative value turns imports off.
	MaxDepth int
}

// ImportStatus says what became of one import token.
type ImportStatus int

// The statuses. Every status but Imported leaves the token as written.
const (
	// Imported: the token was replaced by the file's content.
	Imported ImportStatus = iota
	// Missing: the file does not exist, is not a regular file, or could
	// not be read.
	Missing
	// Outside: the file lies outside the allowed roots.
	Outside
	// Cycle: the file is already being expanded further up the chain.
	Cycle
	// Repeated: the file was already imported earlier in the same
	// top-level file.
	Repeated
	// TooDeep: the token is in a file at the depth limit.
	TooDeep
	// OverLimit: the file is larger than [MaxFileBytes], importing it
	// would pass [MaxExpandedBytes], or the token is past [MaxImports].
	OverLimit
)

// String returns the status in words, for messages.
func (s ImportStatus) String() string {
	switch s {
	case Imported:
		return "imported"
	case Missing:
		return "missing"
	case Outside:
		return "outside the allowed folders"
	case Cycle:
		return "cycle"
	case Repeated:
		return "already imported"
	case TooDeep:
		return "too deep"
	case OverLimit:
		return "over the limit"
	}
	return "unknown"
}

// Import is one import token met during expansion.
type Import struct {
	// File is the file the token is written in, and Line its 1-based line
	// there.
	File string
	Line int
	// Token is the token as written, with its @.
	Token string
	// Path is the file the token names, or empty when it names none (a ~
	// path with no home folder).
	Path   string
	Status ImportStatus
}

// ExpandImports returns content, read from the file at path (an absolute
// path), with its @path import tokens replaced by the content of the files
// they name, recursively, and the list of every token met. See the package
// documentation for the rules.
func ExpandImports(path, content string, opts ImportOptions) (string, []Import) {
	e := &expander{
		home:     opts.Home,
		maxDepth: opts.MaxDepth,
		visited:  map[string]bool{},
		active:   map[string]bool{},
	}
	if e.maxDepth == 0 {
		e.maxDepth = DefaultMaxImportDepth
	}
	for _, r := range opts.Roots {
		e.roots = append(e.roots, realPath(r))
	}
	top := realPath(path)
	e.visited[top], e.active[top] = true, true
	out := e.expand(path, content, 0)
	return out, e.imports
}

// expander holds the state of one top-level expansion.
type expander struct {
	home     string
	roots    []string
	maxDepth int
	visited  map[string]bool // every file included so far, by real path
	active   map[string]bool // the files on the current import chain
	imports  []Import
	tokens   int // import tokens met so far
	added    int // bytes of imported files included so far
}

// expand expands the tokens of content, read from file, which is depth
// imports away from the top-level file.
func (e *expander) expand(file, content string, depth int) string {
	if !strings.Contains(content, "@") {
		return content
	}
	var b strings.Builder
	var f fence
	n := 0
	for line := range strings.Lines(content) {
		n++
		if f.step(line) {
			b.WriteString(line)
			continue
		}
		last := 0
		for _, t := range importTokens(line) {
			b.WriteString(line[last:t.start])
			b.WriteString(e.replace(file, n, line[t.start:t.end], depth))
			last = t.end
		}
		b.WriteString(line[last:])
	}
	return b.String()
}

// replace returns what token (with its @), found at line n of file, becomes.
func (e *expander) replace(file string, n int, token string, depth int) string {
	e.tokens++
	if e.tokens > MaxImports {
		if e.tokens == MaxImports+1 {
			e.imports = append(e.imports, Import{File: file, Line: n, Token: token, Status: OverLimit})
		}
		return token
	}
	imp := Import{File: file, Line: n, Token: token, Path: e.resolve(file, token[1:])}
	i := len(e.imports)
	e.imports = append(e.imports, imp)
	text, status := e.read(imp.Path, depth)
	e.imports[i].Status = status
	if status != Imported {
		return token
	}
	return text
}

// read returns the expanded content of the file at path for an import made
// at depth, or why it is not imported.
func (e *expander) read(path string, depth int) (string, ImportStatus) {
	if e.maxDepth < 0 || depth >= e.maxDepth {
		return "", TooDeep
	}
	if path == "" {
		return "", Missing
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", Missing
	}
	if !e.allowed(real) {
		return "", Outside
	}
	if e.active[real] {
		return "", Cycle
	}
	if e.visited[real] {
		return "", Repeated
	}
	content, _, err := readText(real)
	if errors.Is(err, errTooLarge) {
		return "", OverLimit
	}
	if err != nil {
		return "", Missing
	}
	if e.added+len(content) > MaxExpandedBytes {
		return "", OverLimit
	}
	e.added += len(content)
	e.visited[real], e.active[real] = true, true
	defer delete(e.active, real)
	text := e.expand(path, content, depth+1)
	return strings.TrimRight(text, "\r\n"), Imported
}

// resolve returns the path a token (without its @) in file names.
func (e *expander) resolve(file, p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if e.home == "" {
			return ""
		}
		return filepath.Join(e.home, filepath.FromSlash(strings.TrimPrefix(p[1:], "/")))
	case filepath.IsAbs(p):
		return filepath.Clean(p)
	}
	return filepath.Join(filepath.Dir(file), filepath.FromSlash(p))
}

func (e *expander) allowed(real string) bool {
	for _, r := range e.roots {
		rel, err := filepath.Rel(r, real)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel) {
			return true
		}
	}
	return false
}

// realPath returns path with symbolic links followed, or cleaned when that
// fails (a folder that does not exist yet).
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return filepath.Clean(path)
}
