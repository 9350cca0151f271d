package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// isVCSDir reports whether name is a version-control folder, which the
// walker never enters.
func isVCSDir(name string) bool {
	switch name {
	case ".git", ".hg", ".svn", ".jj":
		return true
	}
	return false
}

// walkStats count what a walk passed over.
type walkStats struct {
	// unreadable counts folders the walk could not list.
	unreadable int
}

// walkEntry is one file or folder a walk reports.
type walkEntry struct {
	// path is absolute.
	path string
	// rel is relative to the walk's start, slash-separated.
	rel   string
	entry fs.DirEntry
}

// walk calls fn for every entry below start (a resolved folder), depth
// first and in lexical order, honouring .gitignore files and never entering
// version-control folders or following symlinks. The .gitignore files of the
// folders above start count too, up to the top of the git repository that
// holds start or, when none does, up to the session root that holds it.
// fn may return fs.SkipDir to skip a folder's contents or fs.SkipAll to stop.
// A folder that cannot be listed is counted and skipped.
func (s *Session) walk(ctx context.Context, start string, fn func(walkEntry) error) (walkStats, error) {
	top := s.ignoreTop(start)
	rules := loadAncestorRules(top, start)
	w := &walker{ctx: ctx, fn: fn}
	relTop := ""
	if start != top {
		r, err := filepath.Rel(top, start)
		if err != nil {
			return walkStats{}, fmt.Errorf("walk %s: %w", start, err)
		}
		relTop = filepath.ToSlash(r)
	}
	err := w.dir(start, relTop, "", rules)
	if errors.Is(err, fs.SkipAll) {
		err = nil
	}
	return w.stats, err
}

// ignoreTop finds the folder the .gitignore search starts from for start.
func (s *Session) ignoreTop(start string) string {
	bound := s.rootOf(start)
	for dir := start; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if dir == bound || parent == dir {
			break
		}
		dir = parent
	}
	if bound != "" {
		return bound
	}
	return start
}

// loadAncestorRules reads .git/info/exclude at top and the .gitignore files
// of top and of every folder between it and start, start excluded (the walk
// reads start's own).
func loadAncestorRules(top, start string) ignoreList {
	var rules ignoreList
	if data, err := os.ReadFile(filepath.Join(top, ".git", "info", "exclude")); err == nil {
		rules = append(rules, parseIgnore(data, "")...)
	}
	if start == top {
		return rules
	}
	rel, err := filepath.Rel(top, start)
	if err != nil {
		return rules
	}
	dir, base := top, ""
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if data, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err == nil {
			rules = append(rules, parseIgnore(data, base)...)
		}
		dir = filepath.Join(dir, part)
		base = joinRel(base, part)
	}
	return rules
}

func joinRel(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

type walker struct {
	ctx   context.Context
	fn    func(walkEntry) error
	stats walkStats
}

// dir walks the folder abs, which is relTop below the ignore top and
// relStart below the walk's start.
func (w *walker) dir(abs, relTop, relStart string, rules ignoreList) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		w.stats.unreadable++
		return nil
	}
	if data, err := os.ReadFile(filepath.Join(abs, ".gitignore")); err == nil {
		rules = append(slices.Clip(rules), parseIgnore(data, relTop)...)
	}
	for _, e := range entries {
		name := e.Name()
		isDir := e.IsDir()
		if isDir && isVCSDir(name) {
			continue
		}
		childTop := joinRel(relTop, name)
		if rules.ignored(childTop, isDir) {
			continue
		}
		child := filepath.Join(abs, name)
		err := w.fn(walkEntry{path: child, rel: joinRel(relStart, name), entry: e})
		if errors.Is(err, fs.SkipDir) {
			continue
		}
		if err != nil {
			return err
		}
		if isDir {
			if err := w.dir(child, childTop, joinRel(relStart, name), rules); err != nil {
				return err
			}
		}
	}
	return nil
}
