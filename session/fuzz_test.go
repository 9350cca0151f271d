package session_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// validFile returns the bytes of a small session with every entry type,
// and its entries.
func validFile(tb testing.TB) ([]byte, []session.Entry) {
	tb.Helper()
	m := session.NewManager(tb.TempDir(), testOptions())
	s, err := m.New("/w")
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close()
	a := mustAppend(tb, s, user("a"))
	mustAppend(tb, s, &session.ModelChange{Model: llm.Ref{Provider: "p", Model: "m"}, Thinking: llm.ThinkingHigh})
	b := mustAppend(tb, s, assistant("b"))
	mustAppend(tb, s, &session.Custom{CustomType: "advisor", Content: []llm.Block{llm.Text("x")}, Display: true, InContext: true})
	c := mustAppend(tb, s, &session.Compaction{Summary: "s", FirstKeptID: b.ID, TokensBefore: 9})
	if err := s.BranchFrom(a.ID); err != nil {
		tb.Fatal(err)
	}
	mustAppend(tb, s, &session.BranchSummary{FromID: c.ID, Summary: "left"})
	data, err := os.ReadFile(s.File())
	if err != nil {
		tb.Fatal(err)
	}
	return data, s.Entries()
}

// FuzzRead checks the reader on any bytes: it never panics, it reports
// only typed errors, what it returns is a valid tree, the part of the file
// before a bad line reads back the same on its own, a bad tail never loses
// the valid lines before it, and Open repairs what it accepts so that an
// append leaves the file fully valid.
func FuzzRead(f *testing.F) {
	valid, validEntries := validFile(f)
	f.Add(valid)
	f.Add(valid[:len(valid)-7])
	f.Add(append(bytes.Clone(valid), `{"type":"future","id":"zz","parentId":null,"x":1}`+"\n"...))
	f.Add(append(bytes.Clone(valid), "junk\n{}\n"...))
	f.Add([]byte(`{"type":"session","version":1,"id":"s","created":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte("\n\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		_, entries, err := session.Read(bytes.NewReader(data), "fuzz")
		var le *session.LineError
		var te *session.TruncatedError
		cut := -1 // where the valid part of data ends, if err says
		switch {
		case err == nil:
		case errors.As(err, &le):
			cut = lineStart(data, le.Line)
		case errors.As(err, &te):
			cut = int(te.Offset)
		default:
			t.Fatalf("untyped error %T: %v", err, err)
		}
		checkLinks(t, entries)
		if cut > 0 {
			_, again, err := session.Read(bytes.NewReader(data[:cut]), "fuzz")
			if err != nil {
				t.Fatalf("the valid part before the bad line does not read: %v", err)
			}
			if diff := cmp.Diff(entries, again); diff != "" {
				t.Fatalf("the valid part reads differently alone (-whole +part):\n%s", diff)
			}
		}

		// A valid file followed by anything keeps every valid entry.
		_, withTail, _ := session.Read(bytes.NewReader(append(bytes.Clone(valid), data...)), "fuzz")
		if len(withTail) < len(validEntries) {
			t.Fatalf("a bad tail lost valid lines: %d entries, want at least %d", len(withTail), len(validEntries))
		}
		if diff := cmp.Diff(validEntries, withTail[:len(validEntries)]); diff != "" {
			t.Fatalf("a bad tail changed valid entries (-want +got):\n%s", diff)
		}

		// What Open accepts, it leaves appendable. Only files that need a
		// repair are tried: the disk makes this part slow, and for a whole
		// file Open reads with the same code as Read.
		if err != nil && te == nil || len(data) == 0 || data[len(data)-1] == '\n' {
			return
		}
		path := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := session.Open(path, session.Options{})
		if err != nil {
			return
		}
		defer s.Close()
		if diff := cmp.Diff(entries, s.Entries()); diff != "" {
			t.Fatalf("Open and Read disagree (-read +open):\n%s", diff)
		}
		e, err := s.Append(user("after"))
		if err != nil {
			t.Fatal(err)
		}
		_, after, err := session.ReadFile(path)
		if err != nil {
			t.Fatalf("file invalid after Open and Append: %v", err)
		}
		if diff := cmp.Diff(append(entries, e), after); diff != "" {
			t.Fatalf("after Open and Append (-want +got):\n%s", diff)
		}
	})
}

// lineStart returns the offset where the 1-based line n starts.
func lineStart(data []byte, n int) int {
	off := 0
	for range n - 1 {
		i := bytes.IndexByte(data[off:], '\n')
		if i < 0 {
			return len(data)
		}
		off += i + 1
	}
	return off
}

// checkLinks is checkTree without the single-root rule, which hand-made
// files need not follow.
func checkLinks(t *testing.T, entries []session.Entry) {
	t.Helper()
	seen := map[string]bool{}
	for i, e := range entries {
		if e.Body == nil {
			t.Fatalf("entry %d has no body", i)
		}
		if e.ID == "" {
			continue
		}
		if seen[e.ID] || (e.ParentID != "" && !seen[e.ParentID]) {
			t.Fatalf("entry %d (%s, parent %q) breaks the tree", i, e.ID, e.ParentID)
		}
		seen[e.ID] = true
	}
}
