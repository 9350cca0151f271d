package report_test

import (
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/report"
)

// TestStatusHiddenUntilShown: nothing is drawn before Show; Show draws
// the last line set, later lines redraw it, Clear erases it, and a
// file's name cannot send the terminal an escape.
func TestStatusHiddenUntilShown(t *testing.T) {
	var b strings.Builder
	s := report.NewStatus(&b)
	s.Set("reviewing 1 of 3 sessions: a.jsonl")
	s.Set("reviewing 2 of 3 sessions: b.jsonl")
	if b.Len() != 0 {
		t.Fatalf("drawn before Show: %q", b.String())
	}
	s.Show()
	if got, want := b.String(), "\r\x1b[Kreviewing 2 of 3 sessions: b.jsonl"; got != want {
		t.Fatalf("after Show: %q, want %q", got, want)
	}
	b.Reset()
	s.Clear()
	s.Clear() // once erased, nothing more
	if got := b.String(); got != "\r\x1b[K" {
		t.Errorf("Clear wrote %q", got)
	}
	b.Reset()
	s.Show() // after the last Clear, as a late timer would: nothing
	if b.Len() != 0 {
		t.Errorf("a Show after Clear drew %q", b.String())
	}
	s.Set("reviewing 3 of 3 sessions: \x1b]0;pwned\x07.jsonl")
	if got, want := b.String(), "\r\x1b[Kreviewing 3 of 3 sessions: \\x1b]0;pwned\\x07.jsonl"; got != want {
		t.Errorf("escaped line %q, want %q", got, want)
	}
}
