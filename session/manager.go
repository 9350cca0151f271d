package session

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Manager finds and makes sessions under a sessions folder laid out as
// ROOT/<cwd-slug>/<time>_<id>.jsonl. It holds no state beyond its root and
// options; any number of managers and sessions can live in one process.
type Manager struct {
	root string
	opts Options
}

// NewManager returns a manager of the sessions under root (for example
// ~/.vigil/agent/sessions); the folder is created when the first session
// is.
func NewManager(root string, opts Options) *Manager {
	return &Manager{root: root, opts: opts}
}

// Root returns the sessions folder.
func (m *Manager) Root() string { return m.root }

// Info describes a session file without reading its entries.
type Info struct {
	Path     string
	Header   Header
	Modified time.Time // the file's last change: its last append
}

// New creates a session for the working folder cwd, which must be
// absolute.
func (m *Manager) New(cwd string) (*Session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("new session: cwd %q is not absolute", cwd)
	}
	return m.create(Header{ID: randomHex(8), Cwd: filepath.Clean(cwd)})
}

func (m *Manager) create(h Header, lines ...[]byte) (*Session, error) {
	return m.createWith(m.opts, h, lines...)
}

// createWith is create with options of its own.
func (m *Manager) createWith(opts Options, h Header, lines ...[]byte) (*Session, error) {
	h.Version = Version
	h.Created = opts.now()
	name := h.Created.Format("2006-01-02T15-04-05.000Z") + "_" + h.ID + ".jsonl"
	path := filepath.Join(m.root, Slug(h.Cwd), name)
	head, err := encodeHeader(h)
	if err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	if err := createFile(path, append([][]byte{head}, lines...)); err != nil {
		return nil, fmt.Errorf("create session %s: %w", path, err)
	}
	return Open(path, opts)
}

// Open opens the session file at path, as [Open] does, with the manager's
// options. The file need not be under the manager's root.
func (m *Manager) Open(path string) (*Session, error) { return Open(path, m.opts) }

// Resume opens the session with the given id, or the only one whose id
// starts with it.
func (m *Manager) Resume(id string) (*Session, error) {
	path, err := m.Find(id)
	if err != nil {
		return nil, err
	}
	return Open(path, m.opts)
}

// Find returns the file of the session with the given id, or of the only
// one whose id starts with it. It looks at file names only.
func (m *Manager) Find(id string) (string, error) {
	if id == "" || strings.ContainsAny(id, `/\`) {
		return "", fmt.Errorf("find session %q: not a session id", id)
	}
	dirs, err := os.ReadDir(m.root)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("find session %s: %w", id, err)
	}
	var exact, prefixed []string
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(m.root, d.Name()))
		if err != nil {
			return "", fmt.Errorf("find session %s: %w", id, err)
		}
		for _, f := range files {
			sid, ok := idFromName(f.Name())
			if !ok || f.IsDir() {
				continue
			}
			path := filepath.Join(m.root, d.Name(), f.Name())
			if sid == id {
				exact = append(exact, path)
			} else if strings.HasPrefix(sid, id) {
				prefixed = append(prefixed, path)
			}
		}
	}
	switch {
	case len(exact) == 1:
		return exact[0], nil
	case len(exact) > 1:
		return "", fmt.Errorf("find session %s: several files have this id: %s", id, strings.Join(exact, ", "))
	case len(prefixed) == 1:
		return prefixed[0], nil
	case len(prefixed) > 1:
		return "", fmt.Errorf("find session %s: ambiguous, it starts %d ids: %s", id, len(prefixed), strings.Join(prefixed, ", "))
	}
	return "", fmt.Errorf("find session %s under %s: %w", id, m.root, ErrNotFound)
}

// idFromName returns the session id in a file name <time>_<id>.jsonl.
func idFromName(name string) (string, bool) {
	stem, ok := strings.CutSuffix(name, ".jsonl")
	if !ok {
		return "", false
	}
	_, id, ok := strings.Cut(stem, "_")
	return id, ok && id != ""
}

// List returns the sessions of the working folder cwd, the most recently
// changed first (ties broken by name, so by creation time). Files whose
// header cannot be read are not listed; their errors, naming file and
// line, are joined into the error returned alongside the list.
func (m *Manager) List(cwd string) ([]Info, error) {
	cwd = filepath.Clean(cwd)
	files, err := m.byRecency(cwd)
	if err != nil {
		return nil, err
	}
	var infos []Info
	var errs []error
	for _, f := range files {
		h, err := readHeader(f.Path)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if h.Cwd == cwd {
			f.Header = h
			infos = append(infos, f)
		}
	}
	return infos, errors.Join(errs...)
}

// Continue opens the most recently changed session of the working folder
// cwd. It returns [ErrNotFound] when there is none, and an error naming
// the file when the most recent one cannot be read: it never falls back to
// an older session silently.
func (m *Manager) Continue(cwd string) (*Session, error) {
	path, err := m.Latest(cwd)
	if err != nil {
		return nil, err
	}
	return Open(path, m.opts)
}

// Latest returns the file of the session [Manager.Continue] opens,
// without opening it.
func (m *Manager) Latest(cwd string) (string, error) {
	cwd = filepath.Clean(cwd)
	files, err := m.byRecency(cwd)
	if err != nil {
		return "", err
	}
	for _, f := range files {
		h, err := readHeader(f.Path)
		if err != nil {
			return "", fmt.Errorf("continue session in %s: %w", cwd, err)
		}
		if h.Parent != nil && h.Parent.Kind == ParentAttached {
			continue // another agent's session: nothing to continue here
		}
		if h.Cwd == cwd { // two folders can share a slug; the header decides
			return f.Path, nil
		}
	}
	return "", fmt.Errorf("continue session in %s: %w", cwd, ErrNotFound)
}

// byRecency lists the session files in cwd's slug folder, newest change
// first.
func (m *Manager) byRecency(cwd string) ([]Info, error) {
	dir := filepath.Join(m.root, Slug(cwd))
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
	}
	var files []Info
	for _, e := range entries {
		if _, ok := idFromName(e.Name()); !ok || e.IsDir() {
			continue
		}
		fi, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue // dropped while we looked
		}
		if err != nil {
			return nil, fmt.Errorf("list sessions in %s: %w", dir, err)
		}
		files = append(files, Info{Path: filepath.Join(dir, e.Name()), Modified: fi.ModTime()})
	}
	slices.SortFunc(files, func(a, b Info) int {
		if c := b.Modified.Compare(a.Modified); c != 0 {
			return c
		}
		return cmp.Compare(b.Path, a.Path)
	})
	return files, nil
}

// Attached opens the session vigil keeps for session id of another agent
// (agent names it: claude-code, codex) that it watches through hooks,
// creating it the first time: its id is agent-id, its parent of kind
// [ParentAttached] names id and the agent's transcript file. The same
// agent session always maps to the same file, so a sidecar started
// again finds what the last one recorded. It never takes the writer
// lock ([Options.Lock]): one sidecar per agent session writes it, and a
// second one starting must get as far as finding the first. Several
// files with its id (left by sidecars that raced before one held the
// session) are not an error: see [Manager.AttachedLog].
func (m *Manager) Attached(cwd, agent, id, transcript string) (*Session, error) {
	return m.AttachedLog(cwd, agent, id, transcript, nil)
}

// AttachedLog is [Manager.Attached], saying through logf (when not nil)
// which file it took when several have the session's id: the largest,
// which holds what was recorded, the oldest among equals; the others
// are left where they are.
func (m *Manager) AttachedLog(cwd, agent, id, transcript string, logf func(format string, args ...any)) (*Session, error) {
	if !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("attached session: cwd %q is not absolute", cwd)
	}
	opts := m.opts
	opts.Lock = false
	sid := agent + "-" + fileSafe(id)
	path, err := m.Find(sid)
	if err != nil && !errors.Is(err, ErrNotFound) {
		if p, others, ok := m.pickDuplicate(sid); ok {
			if logf != nil {
				logf("several files have the session id %s: taking %s, which holds the most; left alone: %s", sid, p, strings.Join(others, ", "))
			}
			path, err = p, nil
		}
	}
	if err == nil {
		if _, id2, _ := strings.Cut(strings.TrimSuffix(filepath.Base(path), ".jsonl"), "_"); id2 == sid {
			return Open(path, opts)
		}
	}
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("attached session: %w", err)
	}
	return m.createWith(opts, Header{
		ID:     sid,
		Cwd:    filepath.Clean(cwd),
		Parent: &Parent{Kind: ParentAttached, ID: id, Path: transcript},
	})
}

// fileSafe keeps letters, digits, '-' and '.' of s and replaces the rest
// with '-'.
func fileSafe(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.') {
			b[i] = '-'
		}
	}
	if len(b) > 96 {
		b = b[:96]
	}
	return string(b)
}

// Fork copies the path from src's root to the entry id into a new session
// of the same working folder; its header records src as its parent. The
// copied lines are byte-for-byte those of src, ids included, so entries
// of types this vigil does not know survive. The new session's leaf is id.
func (m *Manager) Fork(src *Session, id string) (*Session, error) {
	lines, err := src.lineageLines(id)
	if err != nil {
		return nil, fmt.Errorf("fork session %s at %q: %w", src.path, id, err)
	}
	return m.create(Header{
		ID:     randomHex(8),
		Cwd:    src.header.Cwd,
		Parent: &Parent{Kind: ParentFork, ID: src.ID(), Path: src.path, EntryID: id},
	}, lines...)
}

// ForkFile copies the path from the root to the entry id of the session
// file at path into a new session, as [Manager.Fork] does; id "" is the
// file's last entry, where [Open] would put the leaf. It only reads the
// file: it takes no lock and repairs nothing, so it is how to go on from
// a session another process is writing (a partial last line, that
// writer's append in progress, is left out).
func (m *Manager) ForkFile(path, id string) (*Session, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("fork session %s: %w", path, err)
	}
	p, err := parse(data, path)
	var torn *TruncatedError
	if err != nil && !errors.As(err, &torn) {
		return nil, fmt.Errorf("fork session %s: %w", path, err)
	}
	if p.header.Version != Version {
		return nil, fmt.Errorf("fork session %s: format version %d: this vigil writes only version %d", path, p.header.Version, Version)
	}
	if id == "" {
		id = p.leaf
	}
	src := &Session{path: path, header: p.header, entries: p.entries, spans: p.spans, index: p.index}
	var lines [][]byte
	if id != "" {
		idx, err := src.lineage(id)
		if err != nil {
			return nil, fmt.Errorf("fork session %s at %q: %w", path, id, err)
		}
		for _, i := range idx {
			sp := p.spans[i]
			lines = append(lines, append(data[sp.off:sp.off+int64(sp.n):sp.off+int64(sp.n)], '\n'))
		}
	}
	return m.create(Header{
		ID:     randomHex(8),
		Cwd:    p.header.Cwd,
		Parent: &Parent{Kind: ParentFork, ID: p.header.ID, Path: path, EntryID: id},
	}, lines...)
}

// lineageLines returns the lines, newline included, of the entries from
// the root to id, read back from the file.
func (s *Session) lineageLines(id string) ([][]byte, error) {
	if id == "" {
		return nil, errors.New("no entry given")
	}
	s.mu.RLock()
	idx, err := s.lineage(id)
	spans := make([]span, len(idx))
	for i, j := range idx {
		spans[i] = s.spans[j]
	}
	s.mu.RUnlock()
	if err != nil {
		return nil, err
	}
	f, err := os.Open(s.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lines := make([][]byte, len(spans))
	for i, sp := range spans {
		b := make([]byte, sp.n+1)
		if _, err := f.ReadAt(b[:sp.n], sp.off); err != nil {
			return nil, fmt.Errorf("read line at offset %d: %w", sp.off, err)
		}
		b[sp.n] = '\n'
		lines[i] = b
	}
	return lines, nil
}

// NewChild creates a subagent's session, named subID, in this session's
// artifacts folder: <artifacts>/<subID>.jsonl. Its header records this
// session and its current leaf as the parent. The name of the advisor's
// transcript is reserved.
func (s *Session) NewChild(subID string) (*Session, error) {
	if subID == "" || subID == "." || subID == ".." || strings.ContainsAny(subID, `/\`) ||
		subID+".jsonl" == AdvisorTranscript {
		return nil, fmt.Errorf("new subagent session of %s: invalid name %q", s.path, subID)
	}
	path := filepath.Join(s.ArtifactsDir(), subID+".jsonl")
	return Create(path, Header{
		ID:     subID,
		Cwd:    s.header.Cwd,
		Parent: &Parent{Kind: ParentSubagent, ID: s.ID(), Path: s.path, EntryID: s.Leaf()},
	}, s.opts)
}

// Slug turns a working folder into the name of its folder under the
// sessions root: every run of characters other than letters, digits, '.'
// and '_' becomes one '-', with leading and trailing '-' and '.' removed,
// so /home/ana/src/vigil becomes home-ana-src-vigil. Long slugs are cut
// and end in a hash of the whole path. Different folders can share a
// slug; the header's cwd tells them apart.
func Slug(cwd string) string {
	cwd = filepath.Clean(cwd)
	var b strings.Builder
	dash := false
	for _, r := range cwd {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_') {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	slug := strings.Trim(b.String(), "-.")
	if slug == "" {
		return "root"
	}
	const maxSlug = 96
	if len(slug) > maxSlug {
		sum := sha256.Sum256([]byte(cwd))
		slug = slug[:maxSlug-13] + "-" + hex.EncodeToString(sum[:6])
	}
	return slug
}
