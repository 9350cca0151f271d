package session_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/vigil-dev/vigil/session"
)

// modelEntry is what the state machine's model knows of an entry.
type modelEntry struct {
	id, parent string
	firstKept  *string // set for compactions
}

// machine drives a session with random operations and checks it against
// a model: a list of entries and a leaf.
type machine struct {
	m       *session.Manager
	s       *session.Session
	entries []modelEntry
	leaf    string
}

func (mc *machine) lineage(id string) []modelEntry {
	byID := map[string]modelEntry{}
	for _, e := range mc.entries {
		byID[e.id] = e
	}
	var out []modelEntry
	for cur := id; cur != ""; cur = byID[cur].parent {
		out = append(out, byID[cur])
	}
	slices.Reverse(out)
	return out
}

// path is the model's Path: the latest compaction, what it keeps, and
// what follows.
func (mc *machine) path(id string) []string {
	lin := mc.lineage(id)
	c := -1
	for i, e := range lin {
		if e.firstKept != nil {
			c = i
		}
	}
	out := []string{}
	if c < 0 {
		for _, e := range lin {
			out = append(out, e.id)
		}
		return out
	}
	out = append(out, lin[c].id)
	kept := c
	for i := range c {
		if lin[i].id == *lin[c].firstKept {
			kept = i
		}
	}
	for _, e := range lin[kept:c] {
		if e.firstKept == nil {
			out = append(out, e.id)
		}
	}
	for _, e := range lin[c+1:] {
		out = append(out, e.id)
	}
	return out
}

func (mc *machine) add(t *rapid.T, b session.Body, firstKept *string) {
	e, err := mc.s.Append(b)
	if err != nil {
		t.Fatal(err)
	}
	if e.ParentID != mc.leaf {
		t.Fatalf("appended entry has parent %q, want the leaf %q", e.ParentID, mc.leaf)
	}
	mc.entries = append(mc.entries, modelEntry{id: e.ID, parent: mc.leaf, firstKept: firstKept})
	mc.leaf = e.ID
}

func (mc *machine) pickID(t *rapid.T) string {
	if len(mc.entries) == 0 {
		t.Skip("no entries yet")
	}
	return rapid.SampledFrom(mc.entries).Draw(t, "entry").id
}

func (mc *machine) actions() map[string]func(*rapid.T) {
	return map[string]func(*rapid.T){
		"append message": func(t *rapid.T) {
			mc.add(t, user(rapid.StringN(0, 20, -1).Draw(t, "text")), nil)
		},
		"append custom": func(t *rapid.T) {
			mc.add(t, &session.Custom{CustomType: "plan-mode-context", InContext: rapid.Bool().Draw(t, "inContext")}, nil)
		},
		"branch": func(t *rapid.T) {
			id := mc.pickID(t)
			if err := mc.s.BranchFrom(id); err != nil {
				t.Fatal(err)
			}
			mc.leaf = id
		},
		"branch summary": func(t *rapid.T) {
			from := mc.pickID(t)
			mc.add(t, &session.BranchSummary{FromID: from, Summary: "s"}, nil)
		},
		"compact": func(t *rapid.T) {
			keep := ""
			if lin := mc.lineage(mc.leaf); len(lin) > 0 && rapid.Bool().Draw(t, "keep some") {
				keep = rapid.SampledFrom(lin).Draw(t, "first kept").id
			}
			mc.add(t, &session.Compaction{Summary: "sum", FirstKeptID: keep}, &keep)
		},
		"reopen": func(t *rapid.T) {
			mc.reopen(t, "")
		},
		"crash mid-write and reopen": func(t *rapid.T) {
			tail := rapid.SampledFrom([]string{`{"type":"message","id":"x`, `{`, "\x00\x00"}).Draw(t, "torn tail")
			mc.reopen(t, tail)
		},
		"fork": func(t *rapid.T) {
			id := mc.pickID(t)
			f, err := mc.m.Fork(mc.s, id)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var want []string
			for _, e := range mc.lineage(id) {
				want = append(want, e.id)
			}
			if diff := cmp.Diff(want, ids(f.Entries())); diff != "" {
				t.Fatalf("fork entries (-lineage +fork):\n%s", diff)
			}
			if f.Leaf() != id {
				t.Fatalf("fork leaf %q, want %q", f.Leaf(), id)
			}
		},
		"": mc.check,
	}
}

// reopen closes the session, appends a torn tail to its file if given,
// and opens it again. The leaf returns to the last entry in the file.
func (mc *machine) reopen(t *rapid.T, tail string) {
	if err := mc.s.Close(); err != nil {
		t.Fatal(err)
	}
	if tail != "" {
		f, err := os.OpenFile(mc.s.File(), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(tail)
		f.Close()
	}
	s, err := mc.m.Open(mc.s.File())
	if err != nil {
		t.Fatal(err)
	}
	mc.s = s
	if (tail != "") != (s.Recovered() != nil) {
		t.Fatalf("torn tail %q, Recovered %v", tail, s.Recovered())
	}
	mc.leaf = ""
	if n := len(mc.entries); n > 0 {
		mc.leaf = mc.entries[n-1].id
	}
}

func (mc *machine) check(t *rapid.T) {
	got := mc.s.Entries()
	if len(got) != len(mc.entries) {
		t.Fatalf("%d entries, model has %d", len(got), len(mc.entries))
	}
	for i, e := range got {
		if e.ID != mc.entries[i].id || e.ParentID != mc.entries[i].parent {
			t.Fatalf("entry %d is %s (parent %q), model has %s (parent %q)", i, e.ID, e.ParentID, mc.entries[i].id, mc.entries[i].parent)
		}
	}
	checkTree(t, got)
	if mc.s.Leaf() != mc.leaf {
		t.Fatalf("leaf %q, model %q", mc.s.Leaf(), mc.leaf)
	}
	path, err := mc.s.Path(mc.leaf)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(mc.path(mc.leaf), ids(path)); diff != "" {
		t.Fatalf("Path (-model +session):\n%s", diff)
	}
	_, read, err := session.ReadFile(mc.s.File())
	if err != nil {
		t.Fatal(err)
	}
	if len(read) != len(got) {
		t.Fatalf("file has %d entries, memory %d", len(read), len(got))
	}
	for i := range read {
		if read[i].ID != got[i].ID || read[i].ParentID != got[i].ParentID || read[i].Type() != got[i].Type() {
			t.Fatalf("entry %d: file has %s (parent %q), memory %s (parent %q)", i, read[i].ID, read[i].ParentID, got[i].ID, got[i].ParentID)
		}
	}
}

// TestStateMachine runs random sequences of appends, branches,
// compactions, forks, reopens and crashes against a model.
func TestStateMachine(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		dir, err := os.MkdirTemp("", "session-rapid-")
		if err != nil {
			rt.Fatal(err)
		}
		rt.Cleanup(func() { os.RemoveAll(dir) })
		mc := &machine{m: session.NewManager(filepath.Join(dir, "sessions"), session.Options{})}
		if mc.s, err = mc.m.New("/w"); err != nil {
			rt.Fatal(err)
		}
		rt.Cleanup(func() { mc.s.Close() })
		rt.Repeat(mc.actions())
	})
}
