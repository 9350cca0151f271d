package session_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/session"
)

func TestBranch(t *testing.T) {
	_, s := newSession(t)
	if s.Leaf() != "" {
		t.Errorf("Leaf of an empty session = %q", s.Leaf())
	}
	a := mustAppend(t, s, user("a"))
	b := mustAppend(t, s, assistant("b"))
	c := mustAppend(t, s, user("c"))
	if err := s.BranchFrom(b.ID); err != nil {
		t.Fatal(err)
	}
	if s.Leaf() != b.ID {
		t.Errorf("Leaf after BranchFrom = %q, want %q", s.Leaf(), b.ID)
	}
	c2 := mustAppend(t, s, user("c, edited"))
	if c2.ParentID != b.ID {
		t.Errorf("entry after BranchFrom has parent %q, want %q", c2.ParentID, b.ID)
	}
	if err := s.BranchFrom(a.ID); err != nil {
		t.Fatal(err)
	}
	bs := mustAppend(t, s, &session.BranchSummary{FromID: c2.ID, Summary: "tried b"})

	for _, tt := range []struct {
		name string
		id   string
		want []string
	}{
		{"first branch", c.ID, []string{a.ID, b.ID, c.ID}},
		{"second branch", c2.ID, []string{a.ID, b.ID, c2.ID}},
		{"third branch", bs.ID, []string{a.ID, bs.ID}},
		{"nothing", "", []string{}},
	} {
		lin, err := s.Lineage(tt.id)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, ids(lin)); diff != "" {
			t.Errorf("%s: Lineage (-want +got):\n%s", tt.name, diff)
		}
	}
	all := s.Entries()
	if diff := cmp.Diff([]string{a.ID, b.ID, c.ID, c2.ID, bs.ID}, ids(all)); diff != "" {
		t.Errorf("Entries (-want +got):\n%s", diff)
	}
	checkTree(t, all)

	if err := s.BranchFrom("nope"); err == nil {
		t.Error("BranchFrom an unknown id: no error")
	}
	if _, err := s.Lineage("nope"); err == nil {
		t.Error("Lineage of an unknown id: no error")
	}

	// Reopened, the leaf is the last entry in the file.
	s.Close()
	r, err := session.Open(s.File(), session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Leaf() != bs.ID {
		t.Errorf("Leaf after reopen = %q, want %q", r.Leaf(), bs.ID)
	}
	checkTree(t, r.Entries())
}

func TestFork(t *testing.T) {
	m, s := newSession(t)
	a := mustAppend(t, s, user("a"))
	b := mustAppend(t, s, assistant("b"))
	mustAppend(t, s, user("c"))
	if err := s.BranchFrom(a.ID); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, user("b'"))

	f, err := m.Fork(s, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	wantParent := &session.Parent{Kind: session.ParentFork, ID: s.ID(), Path: s.File(), EntryID: b.ID}
	if diff := cmp.Diff(wantParent, f.Header().Parent); diff != "" {
		t.Errorf("fork header parent (-want +got):\n%s", diff)
	}
	if f.ID() == s.ID() || f.File() == s.File() || f.Header().Cwd != s.Header().Cwd {
		t.Errorf("fork %s (%s, cwd %s) should be a new session of the same cwd as %s", f.ID(), f.File(), f.Header().Cwd, s.ID())
	}
	lin, _ := s.Lineage(b.ID)
	if diff := cmp.Diff(lin, f.Entries()); diff != "" {
		t.Errorf("fork entries (-source lineage +fork):\n%s", diff)
	}
	if f.Leaf() != b.ID {
		t.Errorf("fork leaf = %q, want %q", f.Leaf(), b.ID)
	}
	d := mustAppend(t, f, user("d"))
	if d.ParentID != b.ID {
		t.Errorf("first entry of fork has parent %q, want %q", d.ParentID, b.ID)
	}
	checkTree(t, f.Entries())
	if len(s.Entries()) != 4 {
		t.Errorf("source changed by fork: %d entries", len(s.Entries()))
	}
	// The copied lines are the source's bytes.
	src, _ := os.ReadFile(s.File())
	dst, _ := os.ReadFile(f.File())
	dstLines := strings.SplitAfter(string(dst), "\n")
	for _, l := range dstLines[1:3] {
		if !bytes.Contains(src, []byte(l)) {
			t.Errorf("fork line not copied verbatim: %s", l)
		}
	}

	if _, err := m.Fork(s, "nope"); err == nil {
		t.Error("Fork at an unknown entry: no error")
	}
	if _, err := m.Fork(s, ""); err == nil {
		t.Error("Fork at no entry: no error")
	}
}

func TestPathCompaction(t *testing.T) {
	// Each case builds a session with build and names the entries it
	// makes; want lists the names Path(leaf) returns.
	for _, tt := range []struct {
		name  string
		build func(t *testing.T, s *session.Session, n map[string]session.Entry)
		want  []string
	}{
		{
			name: "no compaction",
			build: func(t *testing.T, s *session.Session, n map[string]session.Entry) {
				n["a"] = mustAppend(t, s, user("a"))
				n["b"] = mustAppend(t, s, assistant("b"))
			},
			want: []string{"a", "b"},
		},
		{
			name: "compaction keeps from an entry",
			build: func(t *testing.T, s *session.Session, n map[string]session.Entry) {
				n["a"] = mustAppend(t, s, user("a"))
				n["b"] = mustAppend(t, s, assistant("b"))
				n["c"] = mustAppend(t, s, user("c"))
				n["d"] = mustAppend(t, s, assistant("d"))
				n["C"] = mustAppend(t, s, &session.Compaction{Summary: "a and b", FirstKeptID: n["c"].ID, TokensBefore: 1000})
				n["e"] = mustAppend(t, s, user("e"))
			},
			want: []string{"C", "c", "d", "e"},
		},
		{
			name: "compaction keeps nothing",
			build: func(t *testing.T, s *session.Session, n map[string]session.Entry) {
				n["a"] = mustAppend(t, s, user("a"))
				n["C"] = mustAppend(t, s, &session.Compaction{Summary: "a"})
				n["b"] = mustAppend(t, s, user("b"))
			},
			want: []string{"C", "b"},
		},
		{
			name: "latest compaction wins and drops the older one",
			build: func(t *testing.T, s *session.Session, n map[string]session.Entry) {
				n["a"] = mustAppend(t, s, user("a"))
				n["b"] = mustAppend(t, s, assistant("b"))
				n["C1"] = mustAppend(t, s, &session.Compaction{Summary: "a", FirstKeptID: n["b"].ID})
				n["c"] = mustAppend(t, s, user("c"))
				n["C2"] = mustAppend(t, s, &session.Compaction{Summary: "a b", FirstKeptID: n["b"].ID})
				n["d"] = mustAppend(t, s, user("d"))
			},
			want: []string{"C2", "b", "c", "d"},
		},
		{
			name: "compaction on another branch does not apply",
			build: func(t *testing.T, s *session.Session, n map[string]session.Entry) {
				n["a"] = mustAppend(t, s, user("a"))
				n["b"] = mustAppend(t, s, assistant("b"))
				n["C"] = mustAppend(t, s, &session.Compaction{Summary: "a", FirstKeptID: n["b"].ID})
				if err := s.BranchFrom(n["b"].ID); err != nil {
					t.Fatal(err)
				}
				n["c"] = mustAppend(t, s, user("c"))
			},
			want: []string{"a", "b", "c"},
		},
		{
			name: "compaction at the leaf",
			build: func(t *testing.T, s *session.Session, n map[string]session.Entry) {
				n["a"] = mustAppend(t, s, user("a"))
				n["m"] = mustAppend(t, s, &session.ModelChange{Model: assistant("").Model})
				n["b"] = mustAppend(t, s, assistant("b"))
				n["C"] = mustAppend(t, s, &session.Compaction{Summary: "a", FirstKeptID: n["m"].ID})
			},
			want: []string{"C", "m", "b"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, s := newSession(t)
			n := map[string]session.Entry{}
			tt.build(t, s, n)
			names := map[string]string{}
			for k, e := range n {
				names[e.ID] = k
			}
			path, err := s.Path(s.Leaf())
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range path {
				got = append(got, names[e.ID])
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Path (-want +got):\n%s", diff)
			}
		})
	}
}

func TestPathUnknownID(t *testing.T) {
	_, s := newSession(t)
	if _, err := s.Path("nope"); err == nil {
		t.Error("Path of an unknown id: no error")
	}
	if p, err := s.Path(""); err != nil || len(p) != 0 {
		t.Errorf("Path(\"\") = %v, %v; want nothing", p, err)
	}
}
