package session_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/session"
)

func TestNewLayout(t *testing.T) {
	root := filepath.Join(t.TempDir(), "sessions")
	m := session.NewManager(root, testOptions())
	s, err := m.New("/home/ana/src/vigil/")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := filepath.Join(root, "home-ana-src-vigil", "2026-11-05T14-03-23.000Z_"+s.ID()+".jsonl")
	if s.File() != want {
		t.Errorf("File = %s, want %s", s.File(), want)
	}
	if s.ArtifactsDir() != strings.TrimSuffix(want, ".jsonl") {
		t.Errorf("ArtifactsDir = %s", s.ArtifactsDir())
	}
	h := s.Header()
	wantH := session.Header{Version: session.Version, ID: s.ID(), Cwd: "/home/ana/src/vigil", Created: time.Date(2026, 11, 5, 14, 3, 23, 0, time.UTC)}
	if diff := cmp.Diff(wantH, h); diff != "" {
		t.Errorf("header (-want +got):\n%s", diff)
	}
	if len(s.ID()) != 16 {
		t.Errorf("session id %q: want 16 hex digits", s.ID())
	}
	if _, err := m.New("relative/dir"); err == nil {
		t.Error("New with a relative cwd: no error")
	}
}

func TestContinueLatest(t *testing.T) {
	root := t.TempDir()
	m := session.NewManager(root, testOptions())
	mk := func(cwd string, mtime time.Time) *session.Session {
		t.Helper()
		s, err := m.New(cwd)
		if err != nil {
			t.Fatal(err)
		}
		s.Close()
		if err := os.Chtimes(s.File(), mtime, mtime); err != nil {
			t.Fatal(err)
		}
		return s
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	old := mk("/w/a", base)
	recent := mk("/w/a", base.Add(2*time.Hour))
	mk("/w/a", base.Add(time.Hour))
	other := mk("/w/b", base.Add(3*time.Hour))
	// /w/a-b and /w/a/b share a slug; the header tells them apart.
	collide := mk("/w/a-b", base.Add(4*time.Hour))
	mk("/w/a/b", base.Add(5*time.Hour))

	for _, tt := range []struct {
		cwd  string
		want string
	}{
		{"/w/a", recent.ID()},
		{"/w/a/", recent.ID()},
		{"/w/b", other.ID()},
		{"/w/a-b", collide.ID()},
	} {
		s, err := m.Continue(tt.cwd)
		if err != nil {
			t.Errorf("Continue(%s): %v", tt.cwd, err)
			continue
		}
		if s.ID() != tt.want {
			t.Errorf("Continue(%s) = %s, want %s", tt.cwd, s.ID(), tt.want)
		}
		s.Close()
	}
	if _, err := m.Continue("/w/none"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Continue in a folder without sessions = %v, want ErrNotFound", err)
	}

	infos, err := m.List("/w/a")
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 3 || infos[0].Header.ID != recent.ID() || infos[2].Header.ID != old.ID() {
		t.Errorf("List(/w/a) = %+v, want newest first", infos)
	}

	// Appending to the old session makes it the latest.
	s, err := m.Open(old.File())
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, user("again"))
	s.Close()
	os.Chtimes(old.File(), base.Add(10*time.Hour), base.Add(10*time.Hour))
	if s, err := m.Continue("/w/a"); err != nil || s.ID() != old.ID() {
		t.Errorf("Continue after append = %v, %v; want %s", s, err, old.ID())
	} else {
		s.Close()
	}

	// The latest file is unreadable: an error naming it, not an older session.
	bad := filepath.Join(root, session.Slug("/w/a"), "2030-01-01T00-00-00.000Z_bad.jsonl")
	os.WriteFile(bad, []byte("junk\n"), 0o600)
	os.Chtimes(bad, base.Add(20*time.Hour), base.Add(20*time.Hour))
	if _, err := m.Continue("/w/a"); err == nil || !strings.Contains(err.Error(), bad+":1:") {
		t.Errorf("Continue with a broken latest file = %v, want an error naming %s:1", err, bad)
	}
	infos, err = m.List("/w/a")
	if len(infos) != 3 || err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("List with a broken file = %d infos, %v", len(infos), err)
	}
}

func TestResume(t *testing.T) {
	root := t.TempDir()
	m := session.NewManager(root, testOptions())
	s, err := m.New("/w/a")
	if err != nil {
		t.Fatal(err)
	}
	e := mustAppend(t, s, user("a"))
	s.Close()
	// Two more sessions with made-up ids sharing a prefix.
	for _, id := range []string{"abc111", "abc222"} {
		c, err := session.Create(filepath.Join(root, "w-b", "2026-01-01T00-00-00.000Z_"+id+".jsonl"), session.Header{ID: id, Cwd: "/w/b"}, session.Options{})
		if err != nil {
			t.Fatal(err)
		}
		c.Close()
	}

	r, err := m.Resume(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]session.Entry{e}, r.Entries()); diff != "" {
		t.Errorf("resumed entries (-want +got):\n%s", diff)
	}
	r.Close()
	if r, err := m.Resume(s.ID()[:6]); err != nil || r.ID() != s.ID() {
		t.Errorf("Resume by prefix = %v, %v", r, err)
	} else {
		r.Close()
	}
	if r, err := m.Resume("abc111"); err != nil || r.ID() != "abc111" {
		t.Errorf("Resume(abc111) = %v, %v", r, err)
	} else {
		r.Close()
	}
	if _, err := m.Resume("abc"); err == nil || !strings.Contains(err.Error(), "ambiguous") {
		t.Errorf("Resume of an ambiguous prefix = %v", err)
	}
	if _, err := m.Resume("zzz"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Resume of an unknown id = %v, want ErrNotFound", err)
	}
	if _, err := m.Resume("../x"); err == nil {
		t.Error("Resume of a path-like id: no error")
	}
	if r, err := m.Open(s.File()); err != nil || r.ID() != s.ID() {
		t.Errorf("Open by path = %v, %v", r, err)
	} else {
		r.Close()
	}
	if _, err := session.NewManager(filepath.Join(root, "nothing"), session.Options{}).Resume("x"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("Resume under a missing root = %v, want ErrNotFound", err)
	}
}

func TestChildAndDrop(t *testing.T) {
	_, s := newSession(t)
	a := mustAppend(t, s, user("a"))
	child, err := s.NewChild("Explore")
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(s.ArtifactsDir(), "Explore.jsonl"); child.File() != want {
		t.Errorf("child file = %s, want %s", child.File(), want)
	}
	wantParent := &session.Parent{Kind: session.ParentSubagent, ID: s.ID(), Path: s.File(), EntryID: a.ID}
	if diff := cmp.Diff(wantParent, child.Header().Parent); diff != "" {
		t.Errorf("child parent (-want +got):\n%s", diff)
	}
	mustAppend(t, child, user("explore"))
	child.Close()
	adv, err := session.Create(filepath.Join(s.ArtifactsDir(), session.AdvisorTranscript), session.Header{ID: "adv", Cwd: "/w"}, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	adv.Close()
	for _, bad := range []string{"", "..", "a/b", "__advisor"} {
		if _, err := s.NewChild(bad); err == nil {
			t.Errorf("NewChild(%q): no error", bad)
		}
	}
	if _, err := session.Create(child.File(), session.Header{ID: "again"}, session.Options{}); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Create over an existing file = %v, want ErrExist", err)
	}

	if err := s.Drop(); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{s.File(), s.ArtifactsDir()} {
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s still there after Drop (%v)", p, err)
		}
	}
	if err := session.Remove(s.File()); err != nil {
		t.Errorf("Remove of a dropped session = %v", err)
	}
}

func TestRemoveRefuses(t *testing.T) {
	dir := t.TempDir()
	notSession := filepath.Join(dir, "notes.jsonl")
	os.WriteFile(notSession, []byte(`{"hello":1}`+"\n"), 0o600)
	os.Mkdir(filepath.Join(dir, "notes"), 0o700)
	for _, p := range []string{notSession, filepath.Join(dir, ".jsonl"), filepath.Join(dir, "x.txt")} {
		if err := session.Remove(p); err == nil {
			t.Errorf("Remove(%s): no error", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "notes")); err != nil {
		t.Errorf("Remove deleted the folder of a file that is not a session: %v", err)
	}
	// No session file: its would-be artifacts folder is not provably a
	// session's, so it stays.
	os.Mkdir(filepath.Join(dir, "ghost"), 0o700)
	if err := session.Remove(filepath.Join(dir, "ghost.jsonl")); err != nil {
		t.Errorf("Remove of a missing file = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "ghost")); err != nil {
		t.Errorf("Remove of a missing file deleted the folder beside it: %v", err)
	}
}

func TestSlug(t *testing.T) {
	long := "/" + strings.Repeat("abcdefghij/", 20)
	for _, tt := range []struct {
		cwd, want string
	}{
		{"/home/ana/src/vigil", "home-ana-src-vigil"},
		{"/home/ana/src/vigil/", "home-ana-src-vigil"},
		{"/", "root"},
		{"/home/ana/.config", "home-ana-.config"},
		{"/.hidden", "hidden"},
		{"/tmp/a b/ü", "tmp-a-b"},
		{`C:\Users\ana`, "C-Users-ana"},
		{"/a/my_dir", "a-my_dir"},
	} {
		if got := session.Slug(tt.cwd); got != tt.want {
			t.Errorf("Slug(%q) = %q, want %q", tt.cwd, got, tt.want)
		}
	}
	if got := session.Slug(long); len(got) != 96 || got == session.Slug(long+"x") {
		t.Errorf("Slug(long) = %q (%d bytes): want 96 bytes, distinct from a sibling", got, len(got))
	}
}
