package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Defaults for the zero values of [Options].
const (
	// DefaultMaxLines caps the lines of a tool's output.
	DefaultMaxLines = 2000
	// DefaultMaxBytes caps the bytes of a tool's output.
	DefaultMaxBytes = 50 * 1024
	// DefaultBashTimeout is the timeout of a command that names none.
	DefaultBashTimeout = 10 * time.Minute
	// DefaultKillGrace is the time between SIGTERM and SIGKILL.
	DefaultKillGrace = 500 * time.Millisecond
	// DefaultShell runs bash's commands.
	DefaultShell = "bash"
	// DefaultMaxImageBytes is the largest image read returns as an image
	// block; providers refuse larger ones.
	DefaultMaxImageBytes = 5 * 1024 * 1024
)

// Options configure a [Session]. The zero value of each limit means its
// default.
type Options struct {
	// Roots are the folders the tools may read and write in. Paths that
	// resolve outside all of them (after symlinks) are refused. Empty means
	// Cwd alone.
	Roots []string
	// Cwd is the working folder: relative paths resolve against it and bash
	// runs in it. Empty means the first root. It must lie inside a root
	// unless AllowOutsideRoots is set.
	Cwd string
	// ArtifactsDir is where bash saves the whole output of a command whose
	// result shows only its tail. Empty means the system's temporary folder.
	// The session's own artifact files are readable by read even outside the
	// roots.
	ArtifactsDir string
	// AllowOutsideRoots turns path confinement off.
	AllowOutsideRoots bool

	// Shell is the program bash runs commands with, as Shell -c COMMAND.
	Shell string
	// Env is the environment of bash commands; nil means this process's.
	Env []string
	// BashTimeout is the timeout of a bash command that names none.
	BashTimeout time.Duration
	// KillGrace is how long a killed command's process group has between
	// SIGTERM and SIGKILL.
	KillGrace time.Duration

	// MaxLines caps the lines of output a tool returns.
	MaxLines int
	// MaxBytes caps the bytes of output a tool returns.
	MaxBytes int
	// MaxImageBytes caps the size of an image read returns.
	MaxImageBytes int

	// Redact, if set, rewrites each line of file text that read and grep
	// show that is too long to show whole, before it is cut to fit: so
	// that a cut never leaves the first half of a secret the whole would
	// have been hidden as. Lines shown whole are left for the caller to
	// redact with the whole output, where a secret spanning lines (a
	// private key block) is seen whole. The
	// advisor's tools hide secrets with it; the agent's see the files as
	// they are. Searches match the file's own text.
	Redact func(string) string
}

// redactSlack is how much more of a long line is read when Redact is set,
// so that a secret that starts before the cut is seen whole: as long as
// the longest key shape the redactor looks for.
const redactSlack = 1024

// Session is one agent's set of tools and what they remember between
// calls: which files were read, which of their lines were seen and what
// their content was then. Two sessions never share that memory. A Session is
// safe for concurrent use.
type Session struct {
	opts  Options
	roots []string
	cwd   string

	mu        sync.Mutex
	files     map[string]*fileRecord
	artifacts map[string]bool
}

// NewSession checks opts and returns a session over them. Roots and Cwd must
// exist; they are resolved to absolute paths without symlinks.
func NewSession(opts Options) (*Session, error) {
	if len(opts.Roots) == 0 && opts.Cwd == "" {
		return nil, errors.New("tools: new session: Options need Roots or Cwd")
	}
	roots := opts.Roots
	if len(roots) == 0 {
		roots = []string{opts.Cwd}
	}
	s := &Session{
		files:     make(map[string]*fileRecord),
		artifacts: make(map[string]bool),
	}
	for _, r := range roots {
		dir, err := existingDir(r)
		if err != nil {
			return nil, fmt.Errorf("tools: new session: root %s: %w", r, err)
		}
		s.roots = append(s.roots, dir)
	}
	cwd := opts.Cwd
	if cwd == "" {
		cwd = s.roots[0]
	}
	dir, err := existingDir(cwd)
	if err != nil {
		return nil, fmt.Errorf("tools: new session: cwd %s: %w", cwd, err)
	}
	s.cwd = dir
	if !opts.AllowOutsideRoots && !s.inRoots(s.cwd) {
		return nil, fmt.Errorf("tools: new session: cwd %s is outside the roots %v", s.cwd, s.roots)
	}
	if opts.ArtifactsDir != "" {
		abs, err := filepath.Abs(opts.ArtifactsDir)
		if err != nil {
			return nil, fmt.Errorf("tools: new session: artifacts dir %s: %w", opts.ArtifactsDir, err)
		}
		opts.ArtifactsDir = abs
	}
	if opts.Shell == "" {
		opts.Shell = DefaultShell
	}
	if opts.BashTimeout <= 0 {
		opts.BashTimeout = DefaultBashTimeout
	}
	if opts.KillGrace <= 0 {
		opts.KillGrace = DefaultKillGrace
	}
	if opts.MaxLines <= 0 {
		opts.MaxLines = DefaultMaxLines
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	if opts.MaxImageBytes <= 0 {
		opts.MaxImageBytes = DefaultMaxImageBytes
	}
	s.opts = opts
	return s, nil
}

func existingDir(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(r)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", errors.New("not a directory")
	}
	return r, nil
}

// Roots returns the session's roots, resolved.
func (s *Session) Roots() []string { return append([]string(nil), s.roots...) }

// Cwd returns the session's working folder, resolved.
func (s *Session) Cwd() string { return s.cwd }

// Tools returns the coding agent's tools: read, write, edit, bash, grep and
// find, all sharing this session's state.
func (s *Session) Tools() []Tool {
	return []Tool{
		&readTool{s: s},
		&writeTool{s: s},
		&editTool{s: s},
		&bashTool{s: s},
		&grepTool{s: s, name: "grep"},
		&findTool{s: s},
	}
}

// ReadOnlyTools returns the tools that cannot change the workspace, for the
// advisor: read, grep under the name "search", and find. It never includes
// bash, which no path check can confine.
func (s *Session) ReadOnlyTools() []Tool {
	return []Tool{
		&readTool{s: s},
		&grepTool{s: s, name: "search"},
		&findTool{s: s},
	}
}

// describe fills a tool description's placeholders with the session's
// limits.
func (s *Session) describe(text string) string {
	return strings.NewReplacer(
		"{max_lines}", strconv.Itoa(s.opts.MaxLines),
		"{max_bytes}", sizeString(int64(s.opts.MaxBytes)),
		"{bash_timeout}", strconv.Itoa(int(s.opts.BashTimeout/time.Second)),
	).Replace(strings.TrimSpace(text))
}

// NewReadOnly returns the read-only tools (read, search, find) of a new
// session over opts, for an advisor that may look at the workspace but not
// change it.
func NewReadOnly(opts Options) ([]Tool, error) {
	s, err := NewSession(opts)
	if err != nil {
		return nil, err
	}
	return s.ReadOnlyTools(), nil
}
