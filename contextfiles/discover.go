package contextfiles

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Options say where [Discover] looks and what it looks for.
type Options struct {
	// Names are the file names to look for.
	Names Names
	// AgentDir is the user's agent folder; empty skips the user level.
	AgentDir string
	// Dir is the working folder, an absolute path.
	Dir string
	// Home is the user's home folder, for ~/ imports and as an allowed
	// import root; empty leaves ~/ imports as written.
	Home string
	// MaxImportDepth bounds import chains; zero means
	// [DefaultMaxImportDepth] and a negative value turns imports off.
	MaxImportDepth int
	// Logf reports files that exist but cannot be used; nil discards.
	Logf func(format string, args ...any)
	// WalkFromHome, when Dir is in no repository but below Home, walks
	// from Home down instead of looking in Dir alone (WATCHDOG.md's rule).
	WalkFromHome bool
}

// File is one instruction file found by [Discover].
type File struct {
	// Path is where the file was found: the agent folder or a project
	// folder joined with one of the names.
	Path string
	// Content is the file's text with its imports expanded.
	Content string
	// Imports lists every import token met while expanding Content, in
	// document order, including those of imported files.
	Imports []Import
}

// Discover returns the files named by opts.Names in the agent folder and in
// each folder from the project root down to opts.Dir, most general first.
// Its error is about opts; files that cannot be read are skipped and logged.
func Discover(opts Options) ([]File, error) {
	if !filepath.IsAbs(opts.Dir) {
		return nil, fmt.Errorf("discover context files: working folder %q is not absolute", opts.Dir)
	}
	for _, n := range append(append([]string(nil), opts.Names.User...), opts.Names.Project...) {
		if !filepath.IsLocal(filepath.FromSlash(n)) {
			return nil, fmt.Errorf("discover context files: name %q must be a relative path inside the folder", n)
		}
	}
	logf := opts.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	dir := filepath.Clean(opts.Dir)
	root := ProjectRoot(dir)
	if opts.WalkFromHome && root == dir && opts.Home != "" && !inRepo(dir) {
		if rel, err := filepath.Rel(filepath.Clean(opts.Home), dir); err == nil && filepath.IsLocal(rel) {
			root = filepath.Clean(opts.Home)
		}
	}

	type candidate struct {
		path string
		user bool
	}
	var candidates []candidate
	if opts.AgentDir != "" {
		for _, n := range opts.Names.User {
			candidates = append(candidates, candidate{filepath.Join(opts.AgentDir, filepath.FromSlash(n)), true})
		}
	}
	for _, folder := range foldersDown(root, dir) {
		if hiddenBelow(root, folder) {
			// A folder that is hidden (a tool's own, such as .github or
			// .cache) does not speak for the project; .vigil is looked
			// into by name, from its owner folder.
			continue
		}
		for _, n := range opts.Names.Project {
			candidates = append(candidates, candidate{filepath.Join(folder, filepath.FromSlash(n)), false})
		}
	}

	// The user's own files may import from home, the agent folder and the
	// project. A project's files may import only from the project: a cloned
	// repository must not be able to pull ~/.aws/credentials into a prompt
	// that is sent to a provider.
	userImports := ImportOptions{Home: opts.Home, MaxDepth: opts.MaxImportDepth}
	for _, r := range []string{root, opts.Home, opts.AgentDir} {
		if r != "" {
			userImports.Roots = append(userImports.Roots, r)
		}
	}
	projectImports := ImportOptions{Home: opts.Home, MaxDepth: opts.MaxImportDepth, Roots: []string{root}}
	// A project's own files are confined as its imports are, and as the
	// tools confine paths: to the project and the working folder, once
	// symbolic links are followed, so that AGENTS.md linked to
	// ~/private.txt stays out of the prompt.
	projectRoots := []string{realPath(root), realPath(dir)}
	var files []File
	var taken []os.FileInfo
	for _, c := range candidates {
		path := c.path
		iopts := projectImports
		if c.user {
			iopts = userImports
		}
		info, err := os.Stat(path)
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if !c.user && err == nil && info.Mode().IsRegular() {
			if real, rerr := filepath.EvalSymlinks(path); rerr == nil && !inAny(projectRoots, real) {
				logf("skip context file %s: it is a symbolic link to %s, outside the project (a project's files, like its @imports, stay in the project)", path, real)
				continue
			}
		}
		if err == nil && seenFile(taken, info) {
			continue
		}
		// readText says why a file cannot be used (not a regular file, a
		// loop of links, too large), naming it.
		content, valid, err := readText(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			logf("skip context file %v", err)
			continue
		}
		if !valid {
			logf("context file %s is not UTF-8 text; its invalid bytes are read as U+FFFD", path)
		}
		taken = append(taken, info)
		expanded, imports := ExpandImports(path, content, iopts)
		files = append(files, File{Path: path, Content: expanded, Imports: imports})
	}
	return files, nil
}

// inAny reports whether real, a path with links followed, is one of
// roots or below one.
func inAny(roots []string, real string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, real); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return true
		}
	}
	return false
}

// inRepo reports whether dir or a folder above it holds a .git entry.
func inRepo(dir string) bool {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return false
		}
		d = parent
	}
}

// hiddenBelow reports whether folder, below root, passes through a hidden
// folder (a name starting with a dot).
func hiddenBelow(root, folder string) bool {
	rel, err := filepath.Rel(root, folder)
	if err != nil || rel == "." {
		return false
	}
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		if strings.HasPrefix(part, ".") {
			return true
		}
	}
	return false
}

// ProjectRoot returns the nearest folder at or above dir that holds a .git
// entry, or dir itself when there is none.
func ProjectRoot(dir string) string {
	dir = filepath.Clean(dir)
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// foldersDown lists root, then each folder below it on the way to dir, then
// dir. dir must be root or below it.
func foldersDown(root, dir string) []string {
	folders := []string{root}
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." {
		return folders
	}
	cur := root
	for part := range strings.SplitSeq(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		folders = append(folders, cur)
	}
	return folders
}

func seenFile(taken []os.FileInfo, info os.FileInfo) bool {
	for _, t := range taken {
		if os.SameFile(t, info) {
			return true
		}
	}
	return false
}
