package session_test

import (
	"os"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/session"
)

// TestFailedWrite makes the write fail and the undo fail too: nothing is
// appended, and the session refuses further appends rather than write
// after a partial line.
func TestFailedWrite(t *testing.T) {
	_, s := newSession(t)
	a := mustAppend(t, s, user("a"))
	ro, err := os.Open(s.File())
	if err != nil {
		t.Fatal(err)
	}
	old := session.SwapFile(s, ro)
	defer old.Close()
	if _, err := s.Append(user("b")); err == nil {
		t.Fatal("Append to a read-only file: no error")
	}
	if s.Len() != 1 || s.Leaf() != a.ID {
		t.Errorf("a failed append changed the session: %d entries, leaf %s", s.Len(), s.Leaf())
	}
	if _, err := s.Append(user("c")); err == nil || !strings.Contains(err.Error(), "earlier write failed") {
		t.Errorf("Append after an unrepaired failure = %v", err)
	}
}
