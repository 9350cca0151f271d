package locate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/vigil-dev/vigil/session"
)

// vigilSessions adds vigil's own sessions of the project.
func vigilSessions(e Env, f *Found) {
	root := filepath.Join(e.dir("VIGIL_AGENT_DIR", ".vigil", "agent"), "sessions")
	f.look(Vigil, filepath.Join(root, session.Slug(e.CWD)))
	infos, err := session.NewManager(root, session.Options{}).List(e.CWD)
	if err != nil {
		f.Errs = append(f.Errs, err)
	}
	for _, in := range infos {
		if p := in.Header.Parent; p != nil && p.Kind == session.ParentAttached {
			continue // another agent's session, found in that agent's folder
		}
		f.Sessions = append(f.Sessions, Session{Path: in.Path, Agent: Vigil, Modified: in.Modified})
	}
}

// claudeSlugMax is how long a Claude Code project folder's name may be
// before it is cut and given a hash.
const claudeSlugMax = 200

// ClaudeSlug returns the name of Claude Code's folder for the project
// cwd: every character but an ASCII letter or digit replaced by "-", as
// JavaScript's replace(/[^a-zA-Z0-9]/g, "-") does, so that a character
// outside the Basic Multilingual Plane (two UTF-16 units) gives "--". A
// longer name than 200 characters is cut there and a hash follows,
// which this name leaves off.
func ClaudeSlug(cwd string) string {
	var b strings.Builder
	for _, r := range cwd {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	s := b.String()
	if len(s) > claudeSlugMax {
		s = s[:claudeSlugMax]
	}
	return s
}

// claudeSessions adds Claude Code's sessions of the project.
func claudeSessions(e Env, f *Found) {
	projects := filepath.Join(e.dir("CLAUDE_CONFIG_DIR", ".claude"), "projects")
	slug := ClaudeSlug(e.CWD)
	if len(slug) < claudeSlugMax {
		dir := filepath.Join(projects, slug)
		f.look(ClaudeCode, dir)
		f.addFolder(e, ClaudeCode, dir)
		return
	}
	// A cut name ends in a hash vigil cannot compute (the CLI and the SDK
	// differ): every folder with the name's first 200 characters.
	f.look(ClaudeCode, filepath.Join(projects, slug+"*"))
	entries, err := os.ReadDir(projects)
	if err != nil && !os.IsNotExist(err) {
		f.Errs = append(f.Errs, fmt.Errorf("list %s: %w", projects, unwrapPath(err)))
	}
	for _, d := range entries {
		if d.IsDir() && strings.HasPrefix(d.Name(), slug) {
			f.addFolder(e, ClaudeCode, filepath.Join(projects, d.Name()))
		}
	}
}

// codexSessions adds Codex's sessions of the project: the rollout files
// under sessions/YYYY/MM/DD whose opening lines record the project.
func codexSessions(e Env, f *Found) {
	root := filepath.Join(e.dir("CODEX_HOME", ".codex"), "sessions")
	f.look(Codex, root)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			if path == root && errors.Is(err, os.ErrNotExist) {
				return filepath.SkipDir
			}
			f.Errs = append(f.Errs, fmt.Errorf("list %s: %w", path, unwrapPath(err)))
			return nil // WalkDir skips what it could not list
		}
		if d.IsDir() {
			// YYYY/MM/DD: three levels under the root, no deeper.
			if rel, _ := filepath.Rel(root, path); rel != "." && strings.Count(rel, string(filepath.Separator)) >= 3 {
				return filepath.SkipDir
			}
			return nil
		}
		name := d.Name()
		if !strings.HasPrefix(name, "rollout-") || !strings.HasSuffix(name, ".jsonl") {
			return nil
		}
		cwd, err := recordedCWD(path)
		if err != nil {
			f.Errs = append(f.Errs, err)
			return nil
		}
		if cwd == "" || !e.isProject(cwd) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil // gone while we looked
		}
		f.Sessions = append(f.Sessions, Session{Path: path, Agent: Codex, Modified: fi.ModTime()})
		return nil
	})
	if err != nil {
		f.Errs = append(f.Errs, err)
	}
}

// PiDir returns the name of pi's folder for the project cwd:
// "--<path>--", the path without its leading separator and with "/",
// "\" and ":" made "-".
func PiDir(cwd string) string {
	p := cwd
	if strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) {
		p = p[1:]
	}
	return "--" + strings.NewReplacer("/", "-", `\`, "-", ":", "-").Replace(p) + "--"
}

// piSessions adds pi's sessions of the project.
func piSessions(e Env, f *Found) {
	dir := filepath.Join(e.dir("PI_CODING_AGENT_DIR", ".pi", "agent"), "sessions", PiDir(e.CWD))
	f.look(Pi, dir)
	f.addFolder(e, Pi, dir)
}

// OMPDirs returns the names omp's folder for the project cwd may have:
// "-" and the path relative to home when it is under home, "-tmp-" and
// the path relative to tmp when it is under tmp (each with "/" made
// "-"), and pi's name ([PiDir]).
func OMPDirs(cwd, home, tmp string) []string {
	var out []string
	dashed := strings.NewReplacer("/", "-", `\`, "-").Replace
	if rel, ok := under(cwd, home); ok {
		out = append(out, "-"+dashed(rel))
	}
	if rel, ok := under(cwd, tmp); ok {
		out = append(out, "-tmp-"+dashed(rel))
	}
	return append(out, PiDir(cwd))
}

// under returns path relative to dir when path is inside dir (not dir
// itself).
func under(path, dir string) (string, bool) {
	if dir == "" {
		return "", false
	}
	rel, err := filepath.Rel(filepath.Clean(dir), path)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

// ompSessions adds omp's sessions of the project.
func ompSessions(e Env, f *Found) {
	root := filepath.Join(e.Home, ".omp", "agent", "sessions")
	tmp := e.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	for _, name := range OMPDirs(e.CWD, e.Home, tmp) {
		dir := filepath.Join(root, name)
		f.look(OMP, dir)
		f.addFolder(e, OMP, dir)
	}
}
