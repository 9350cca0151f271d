package session_test

import (
	"errors"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

func TestDecodeHeader(t *testing.T) {
	h, err := session.DecodeHeader([]byte(`{"type":"session","version":1,"id":"3f9a0c1d2e4b5a69","cwd":"/src/vigil","created":"2026-11-05T14:03:22.417Z"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := time.Date(2026, 11, 5, 14, 3, 22, 417e6, time.UTC)
	if h.ID != "3f9a0c1d2e4b5a69" || h.Cwd != "/src/vigil" || h.Version != 1 || !h.Created.Equal(want) {
		t.Errorf("got %+v", h)
	}
}

func TestDecodeHeaderNewerVersion(t *testing.T) {
	h, err := session.DecodeHeader([]byte(`{"type":"session","version":7,"id":"abc","cwd":"/x","created":"2026-11-05T14:03:22.417Z"}`))
	if !errors.Is(err, session.ErrNewerVersion) {
		t.Fatalf("err = %v, want ErrNewerVersion", err)
	}
	if h.Version != 7 || h.ID != "abc" || h.Cwd != "/x" || h.Created.IsZero() {
		t.Errorf("header read as far as it could be: got %+v", h)
	}
}

func TestDecodeHeaderRejects(t *testing.T) {
	for _, line := range []string{
		``,
		`null`,
		`{"type":"message","id":"a"}`,
		`{"type":"session","version":1,"cwd":"/x","created":"2026-11-05T14:03:22.417Z"}`,
		`{"type":"session","version":1,"id":"a","created":"yesterday"}`,
	} {
		if _, err := session.DecodeHeader([]byte(line)); err == nil {
			t.Errorf("DecodeHeader(%q): no error", line)
		}
	}
}

func TestDecodeEntry(t *testing.T) {
	e, err := session.DecodeEntry([]byte(`{"type":"message","id":"a1","parentId":"r0","timestamp":"2026-11-05T14:03:25.120Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := e.Body.(*session.Message)
	if !ok || e.ID != "a1" || e.ParentID != "r0" || m.Message.Role != llm.RoleUser || m.Message.Text() != "hi" {
		t.Errorf("got %+v", e)
	}

	e, err = session.DecodeEntry([]byte(`{"type":"future_thing","id":"b2","parentId":"a1","timestamp":"2026-11-05T14:03:26.000Z","x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if u, ok := e.Body.(*session.Unknown); !ok || u.Type != "future_thing" || e.ID != "b2" {
		t.Errorf("unknown type: got %+v", e)
	}

	if _, err := session.DecodeEntry([]byte(`{"type":"message","timestamp":"2026-11-05T14:03:25.120Z","message":{"role":"user","content":[]}}`)); err == nil {
		t.Error("a message without an id decoded")
	}
}
