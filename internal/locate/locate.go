package locate

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Agent names the agent that recorded a session, as a user calls it.
type Agent string

// The agents whose sessions are found, in the order [Found.Summary] names
// them.
const (
	Vigil      Agent = "vigil"
	ClaudeCode Agent = "Claude Code"
	Codex      Agent = "Codex"
	Pi         Agent = "pi"
	OMP        Agent = "omp"
)

var agents = []Agent{Vigil, ClaudeCode, Codex, Pi, OMP}

// Env is where to look: the user's home folder, the project (an absolute
// path), and the environment variables that move an agent's folder.
// Tests give a temporary home.
type Env struct {
	// Home is the user's home folder.
	Home string
	// CWD is the project's folder, absolute; it is cleaned before use.
	CWD string
	// TempDir is the temporary folder omp names projects under; "" is
	// os.TempDir().
	TempDir string
	// Getenv reads VIGIL_AGENT_DIR, CLAUDE_CONFIG_DIR, CODEX_HOME and
	// PI_CODING_AGENT_DIR; nil reads none.
	Getenv func(string) string

	// project is every name of the project: CWD, and the path with its
	// symbolic links resolved when that differs (an agent may record
	// either).
	project []string
}

// isProject reports whether a recorded working folder is the project.
func (e Env) isProject(cwd string) bool {
	return slices.Contains(e.project, filepath.Clean(cwd))
}

func (e Env) env(name string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(name)
}

// dir is the value of the variable name when it is set, else the folder
// def under the home folder.
func (e Env) dir(name string, def ...string) string {
	if d := e.env(name); d != "" {
		return d
	}
	return filepath.Join(append([]string{e.Home}, def...)...)
}

// Session is one session file of the project.
type Session struct {
	// Path is the file.
	Path string
	// Agent recorded it.
	Agent Agent
	// Modified is the file's last change.
	Modified time.Time
}

// Place is a folder that was looked in.
type Place struct {
	Agent Agent
	// Dir is the folder; for Codex, the root of its dated folders.
	Dir string
}

// Found is what [Sessions] found.
type Found struct {
	// Sessions are the project's session files, the most recently
	// changed first (ties by path).
	Sessions []Session
	// Looked are the folders looked in, one or more per agent.
	Looked []Place
	// Errs are the folders that could not be listed and the files that
	// could not be read, each error naming its path.
	Errs []error
}

// Sessions finds the project's sessions of every agent: those of its
// folder as given and, when it differs, as its symbolic links resolve
// (/tmp/p may be /private/tmp/p to an agent), each file once.
func Sessions(e Env) Found {
	e.project = []string{filepath.Clean(e.CWD)}
	if real, err := filepath.EvalSymlinks(e.project[0]); err == nil && real != e.project[0] {
		e.project = append(e.project, real)
	}
	var f Found
	for _, cwd := range e.project {
		e.CWD = cwd
		vigilSessions(e, &f)
		claudeSessions(e, &f)
		piSessions(e, &f)
		ompSessions(e, &f)
	}
	codexSessions(e, &f) // every rollout is read once, whatever the name
	seen := map[string]bool{}
	f.Sessions = slices.DeleteFunc(f.Sessions, func(s Session) bool {
		dup := seen[s.Path]
		seen[s.Path] = true
		return dup
	})
	slices.SortStableFunc(f.Sessions, func(a, b Session) int {
		if c := b.Modified.Compare(a.Modified); c != 0 {
			return c
		}
		return cmp.Compare(a.Path, b.Path)
	})
	return f
}

// Summary says what was found, for a person: "3 sessions of this project:
// 2 Claude Code, 1 Codex", or "no sessions of this project".
func (f Found) Summary() string {
	if len(f.Sessions) == 0 {
		return "no sessions of this project"
	}
	var parts []string
	for _, a := range agents {
		n := 0
		for _, s := range f.Sessions {
			if s.Agent == a {
				n++
			}
		}
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, a))
		}
	}
	noun := "sessions"
	if len(f.Sessions) == 1 {
		noun = "session"
	}
	return fmt.Sprintf("%d %s of this project: %s", len(f.Sessions), noun, strings.Join(parts, ", "))
}

// Where says where Sessions looked, one "Agent: folder" a line, with
// home abbreviated to "~".
func (f Found) Where(home string) string {
	var b strings.Builder
	for _, p := range f.Looked {
		dir := p.Dir
		if rel, err := filepath.Rel(home, dir); home != "" && err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			dir = filepath.Join("~", rel)
		}
		fmt.Fprintf(&b, "  %s: %s\n", p.Agent, dir)
	}
	return b.String()
}

// look notes that dir was looked in for agent.
func (f *Found) look(a Agent, dir string) { f.Looked = append(f.Looked, Place{Agent: a, Dir: dir}) }

// jsonlFiles lists the .jsonl files directly in dir (not in its
// folders), skipping hidden ones. A folder that does not exist holds
// none; one that cannot be listed is an error.
func jsonlFiles(dir string) ([]os.FileInfo, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, unwrapPath(err))
	}
	var out []os.FileInfo
	for _, d := range entries {
		name := d.Name()
		if d.IsDir() || strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".jsonl") {
			continue
		}
		fi, err := d.Info()
		if err != nil {
			continue // gone while we looked
		}
		out = append(out, fi)
	}
	return out, nil
}

// addFolder adds the .jsonl files of dir, a project folder of agent a,
// whose opening lines record the project or no working folder at all.
func (f *Found) addFolder(e Env, a Agent, dir string) {
	files, err := jsonlFiles(dir)
	if err != nil {
		f.Errs = append(f.Errs, err)
		return
	}
	for _, fi := range files {
		path := filepath.Join(dir, fi.Name())
		cwd, err := recordedCWD(path)
		if err != nil {
			f.Errs = append(f.Errs, err)
			continue
		}
		if cwd != "" && !e.isProject(cwd) {
			continue // another folder that shares this one's name
		}
		f.Sessions = append(f.Sessions, Session{Path: path, Agent: a, Modified: fi.ModTime()})
	}
}
