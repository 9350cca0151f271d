package session_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vigil-dev/vigil/session"
)

// writeFile makes a session with two entries, then appends tail to its
// file behind the session's back. It returns the path and the entries.
func writeFile(t *testing.T, tail string) (string, []session.Entry) {
	t.Helper()
	_, s := newSession(t)
	mustAppend(t, s, user("a"))
	mustAppend(t, s, assistant("b"))
	entries := s.Entries()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(s.File(), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(tail); err != nil {
		t.Fatal(err)
	}
	return s.File(), entries
}

func TestTruncatedLastLine(t *testing.T) {
	for _, tt := range []struct {
		name string
		tail string
		torn bool // reported as a partial line
		kept int  // entries read, of the two written and the tail
	}{
		{name: "half a line", tail: `{"type":"message","id":"abcd1234","parentId":nu`, torn: true, kept: 2},
		{name: "one byte", tail: `{`, torn: true, kept: 2},
		{name: "binary junk", tail: "\x00\x00\x00\x00", torn: true, kept: 2},
		{name: "whole line but no newline", tail: `{"type":"custom_message","id":"abcd1234","timestamp":"2026-11-05T14:03:30.000Z","customType":"x","content":[],"display":false,"inContext":false}`, kept: 3},
		{name: "blank tail", tail: "   ", kept: 2},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path, written := writeFile(t, tt.tail)

			_, read, err := session.ReadFile(path)
			var te *session.TruncatedError
			if tt.torn != errors.As(err, &te) || (!tt.torn && err != nil) {
				t.Fatalf("ReadFile error = %v, want torn=%v", err, tt.torn)
			}
			if tt.torn && (te.Line != 4 || te.Size != len(tt.tail) || te.File != path || te.SavedTo != "") {
				t.Errorf("TruncatedError = %+v", te)
			}
			if len(read) != tt.kept {
				t.Fatalf("ReadFile kept %d entries, want %d", len(read), tt.kept)
			}
			if diff := cmp.Diff(written, read[:2]); diff != "" {
				t.Errorf("entries before the tail (-written +read):\n%s", diff)
			}

			s, err := session.Open(path, session.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := s.Recovered(); tt.torn != (got != nil) {
				t.Errorf("Recovered = %v, want torn=%v", got, tt.torn)
			} else if tt.torn {
				saved, err := os.ReadFile(got.SavedTo)
				if err != nil || string(saved) != tt.tail {
					t.Errorf("saved partial line = %q, %v; want %q", saved, err, tt.tail)
				}
				if filepath.Dir(got.SavedTo) != s.ArtifactsDir() {
					t.Errorf("partial line saved to %s, outside the artifacts folder", got.SavedTo)
				}
				if !strings.Contains(got.Error(), "saved to") {
					t.Errorf("error does not say where the line went: %v", got)
				}
			}
			e := mustAppend(t, s, user("after the crash"))
			if e.ParentID != read[len(read)-1].ID {
				t.Errorf("re-append parent = %q, want the last entry read %q", e.ParentID, read[len(read)-1].ID)
			}
			_, again, err := session.ReadFile(path)
			if err != nil {
				t.Fatalf("file not valid after repair: %v", err)
			}
			if diff := cmp.Diff(append(read, e), again); diff != "" {
				t.Errorf("after repair and append (-want +got):\n%s", diff)
			}
			data, _ := os.ReadFile(path)
			if !strings.HasSuffix(string(data), "\n") || strings.Count(string(data), "\n") != len(again)+1 {
				t.Errorf("repaired file is not one line per entry:\n%s", data)
			}
		})
	}
}

func TestCorruptLine(t *testing.T) {
	const ts = `"timestamp":"2026-11-05T14:03:30.000Z"`
	for _, tt := range []struct {
		name string
		line string
		want string
	}{
		{"not JSON", `hello`, "not a JSON object"},
		{"broken JSON", `{"type":"message",`, "unexpected end"},
		{"JSON null", `null`, "not a JSON object"},
		{"JSON array", `[1]`, "not a JSON object"},
		{"no type", `{"id":"x"}`, "no type"},
		{"known type without id", `{"type":"message",` + ts + `,"message":{"role":"user","content":[]}}`, "no id"},
		{"duplicate id", `DUP`, "duplicate id"},
		{"parent not earlier", `{"type":"message","id":"x","parentId":"later",` + ts + `,"message":{"role":"user","content":[]}}`, "not an earlier entry"},
		{"own parent", `{"type":"message","id":"x","parentId":"x",` + ts + `,"message":{"role":"user","content":[]}}`, "not an earlier entry"},
		{"bad timestamp", `{"type":"message","id":"x","timestamp":"yesterday","message":{"role":"user","content":[]}}`, "timestamp"},
		{"message without role", `{"type":"message","id":"x",` + ts + `,"message":{"content":[]}}`, "no role"},
		{"wrong field type", `{"type":"compaction","id":"x",` + ts + `,"tokensBefore":"many"}`, "cannot unmarshal"},
		{"bad model", `{"type":"model_change","id":"x",` + ts + `,"model":"/m"}`, "empty provider"},
		{"trailing garbage", `{"type":"message","id":"x",` + ts + `,"message":{"role":"user","content":[]}} x`, "invalid character"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path, written := writeFile(t, "")
			line := tt.line
			if line == "DUP" {
				line = `{"type":"message","id":"` + written[0].ID + `",` + ts + `,"message":{"role":"user","content":[]}}`
			}
			f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
			f.WriteString(line + "\n" + `{"type":"message","id":"zzz",` + ts + `,"message":{"role":"user","content":[]}}` + "\n")
			f.Close()
			before, _ := os.ReadFile(path)

			_, read, err := session.ReadFile(path)
			var le *session.LineError
			if !errors.As(err, &le) {
				t.Fatalf("ReadFile error = %v, want a *LineError", err)
			}
			if le.Line != 4 || le.File != path || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error = %v; want line 4 of %s, containing %q", err, path, tt.want)
			}
			if !strings.Contains(err.Error(), path+":4:") {
				t.Errorf("error %q does not name file:line", err)
			}
			if diff := cmp.Diff(written, read); diff != "" {
				t.Errorf("entries before the bad line (-written +read):\n%s", diff)
			}
			if _, err := session.Open(path, session.Options{}); !errors.As(err, &le) || le.Line != 4 {
				t.Errorf("Open = %v, want the same *LineError", err)
			}
			after, _ := os.ReadFile(path)
			if string(before) != string(after) {
				t.Error("a failed Open changed the file")
			}
		})
	}
}

func TestBadHeader(t *testing.T) {
	for _, tt := range []struct {
		name    string
		content string
		want    string
		is      error
	}{
		{"empty file", "", "empty file", nil},
		{"blank first line", "\n", "blank first line", nil},
		{"not a header", `{"type":"message","id":"x"}` + "\n", "not a session header", nil},
		{"no id", `{"type":"session","version":1,"created":"2026-11-05T14:03:30.000Z"}` + "\n", "no session id", nil},
		{"version 0", `{"type":"session","version":0,"id":"s"}` + "\n", "version 0", nil},
		{"newer version", `{"type":"session","version":2,"id":"s","created":"2026-11-05T14:03:30.000Z"}` + "\n", "version 2", session.ErrNewerVersion},
		{"torn header", `{"type":"sess`, "unexpected end", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "s.jsonl")
			os.WriteFile(path, []byte(tt.content), 0o600)
			_, _, err := session.ReadFile(path)
			var le *session.LineError
			if !errors.As(err, &le) || le.Line != 1 || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ReadFile = %v, want a line 1 error containing %q", err, tt.want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if _, err := session.Open(path, session.Options{}); err == nil {
				t.Error("Open: no error")
			}
		})
	}
}

func TestHeaderOnlyWithoutNewline(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(path, []byte(`{"type":"session","version":1,"id":"s","cwd":"/w","created":"2026-11-05T14:03:30.000Z"}`), 0o600)
	s, err := session.Open(path, session.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := mustAppend(t, s, user("a"))
	s.Close()
	if _, read, err := session.ReadFile(path); err != nil || len(read) != 1 || read[0].ID != e.ID {
		t.Errorf("ReadFile = %v, %v", read, err)
	}
}

func TestUnknownEntryType(t *testing.T) {
	future := `{"type":"title_change","id":"f0f0f0f0","parentId":"PARENT","timestamp":"2026-11-05T14:03:30.000Z","title":"x < y","extra":{"n":1}}`
	loose := `{"type":"title_slot","title":"untitled"}`
	_, s := newSession(t)
	a := mustAppend(t, s, user("a"))
	s.Close()
	future = strings.Replace(future, "PARENT", a.ID, 1)
	f, _ := os.OpenFile(s.File(), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(loose + "\n" + future + "\n")
	f.Close()

	m := session.NewManager(filepath.Dir(filepath.Dir(s.File())), session.Options{})
	r, err := m.Open(s.File())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	entries := r.Entries()
	if len(entries) != 3 {
		t.Fatalf("%d entries, want 3", len(entries))
	}
	if diff := cmp.Diff(&session.Unknown{Type: "title_slot", Raw: rawJSON(loose)}, entries[1].Body); diff != "" || entries[1].ID != "" {
		t.Errorf("id-less unknown entry %q (-want +got):\n%s", entries[1].ID, diff)
	}
	if diff := cmp.Diff(&session.Unknown{Type: "title_change", Raw: rawJSON(future)}, entries[2].Body); diff != "" {
		t.Errorf("unknown entry (-want +got):\n%s", diff)
	}
	if r.Leaf() != "f0f0f0f0" || entries[2].ParentID != a.ID || entries[2].Time.IsZero() {
		t.Errorf("unknown entry not in the tree: leaf %q, entry %+v", r.Leaf(), entries[2])
	}
	b := mustAppend(t, r, user("b"))
	path, _ := r.Path(b.ID)
	if diff := cmp.Diff([]string{a.ID, "f0f0f0f0", b.ID}, ids(path)); diff != "" {
		t.Errorf("Path (-want +got):\n%s", diff)
	}
	fork, err := m.Fork(r, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer fork.Close()
	data, _ := os.ReadFile(fork.File())
	if !strings.Contains(string(data), "\n"+future+"\n") {
		t.Errorf("fork did not copy the unknown line verbatim:\n%s", data)
	}
}
