package session_test

import (
	"path/filepath"
	"testing"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// TestDropBodies: a session that drops bodies writes them to the file
// all the same, keeps its tree, and remembers no body, neither of the
// entries it appends nor of those it loads.
func TestDropBodies(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s", "2026-11-05T14-03-22.000Z_adv.jsonl")
	opts := session.Options{DropBodies: true}
	s, err := session.Create(path, session.Header{ID: "adv", Cwd: "/w"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, text := range []string{"one", "two", "three"} {
		e, err := s.Append(&session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: text}}}})
		if err != nil {
			t.Fatal(err)
		}
		if e.Body == nil {
			t.Fatal("Append returned the entry without its body")
		}
		ids = append(ids, e.ID)
	}
	for _, e := range s.Entries() {
		if e.Body != nil {
			t.Fatalf("entry %s kept its body", e.ID)
		}
	}
	if lin, err := s.Lineage(s.Leaf()); err != nil || len(lin) != 3 || lin[0].ID != ids[0] {
		t.Fatalf("lineage %v, %v", lin, err)
	}
	s.Close()
	full, err := session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer full.Close()
	es := full.Entries()
	if len(es) != 3 || es[2].Body.(*session.Message).Message.Text() != "three" {
		t.Fatalf("the file lost what was appended: %v", es)
	}
	lean, err := session.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer lean.Close()
	if es := lean.Entries(); len(es) != 3 || es[0].Body != nil || lean.Leaf() != ids[2] {
		t.Fatalf("reopened: %v, leaf %s", es, lean.Leaf())
	}
	if _, err := lean.Append(&session.Custom{CustomType: "x"}); err != nil {
		t.Fatalf("append after reopening: %v", err)
	}
}
