package session_test

import (
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// clock is a deterministic time source: each call advances it by one
// second. It is safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock {
	return &clock{t: time.Date(2026, 11, 5, 14, 3, 22, 0, time.UTC)}
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func testOptions() session.Options { return session.Options{Now: newClock().Now} }

// newSession creates a session in a fresh temporary sessions root.
func newSession(t *testing.T) (*session.Manager, *session.Session) {
	t.Helper()
	m := session.NewManager(filepath.Join(t.TempDir(), "sessions"), testOptions())
	s, err := m.New("/home/ana/src/vigil")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// tb is what the helpers need of *testing.T, *testing.F and *rapid.T.
type tb interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

func mustAppend(t tb, s *session.Session, b session.Body) session.Entry {
	t.Helper()
	e, err := s.Append(b)
	if err != nil {
		t.Fatalf("Append(%T): %v", b, err)
	}
	return e
}

func user(text string) *session.Message {
	return &session.Message{Message: llm.UserText(text)}
}

func assistant(text string) *session.Message {
	return &session.Message{
		Message:    llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(text)}},
		Model:      llm.Ref{Provider: "anthropic", Model: "claude-sonnet-5-5"},
		Usage:      llm.Usage{Input: 10, Output: 5},
		StopReason: llm.StopEndTurn,
	}
}

// ids returns the ids of entries, for compact comparisons.
func ids(es []session.Entry) []string {
	out := make([]string, 0, len(es))
	for _, e := range es {
		out = append(out, e.ID)
	}
	return out
}

// checkTree verifies the tree invariants of a file's entries: ids are
// unique, every parent is an earlier entry, and exactly one root exists.
func checkTree(t tb, entries []session.Entry) {
	t.Helper()
	seen := map[string]bool{}
	roots := 0
	for i, e := range entries {
		if e.ID == "" {
			continue
		}
		if seen[e.ID] {
			t.Errorf("entry %d: duplicate id %q", i, e.ID)
		}
		if e.ParentID == "" {
			roots++
		} else if !seen[e.ParentID] {
			t.Errorf("entry %d (%s): parent %q is not an earlier entry", i, e.ID, e.ParentID)
		}
		seen[e.ID] = true
	}
	if len(entries) > 0 && roots != 1 {
		t.Errorf("%d roots, want 1", roots)
	}
}

func rawJSON(s string) json.RawMessage { return json.RawMessage(s) }
