package report

import (
	"fmt"
	"io"
	"sync"
)

// Status is a one-line status for a terminal's stderr ("reviewing 2 of 5
// sessions: NAME") that stays hidden until [Status.Show] is called: the
// caller calls it once the work has taken long enough to need one (a
// second, from a timer), so that quick work draws nothing. Until then
// [Status.Set] only remembers the line. It is safe for concurrent use, so
// that Show may come from a timer's goroutine.
type Status struct {
	mu    sync.Mutex
	w     io.Writer
	line  string
	shown bool
	drawn bool
}

// NewStatus returns a status line written to w.
func NewStatus(w io.Writer) *Status { return &Status{w: w} }

// Set makes line the status, drawn at once when the status is shown. Its
// text is passed through [Escape].
func (s *Status) Set(line string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.line = Escape(line)
	if s.shown {
		s.draw()
	}
}

// Show draws the status from now on.
func (s *Status) Show() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.shown = true
	if s.line != "" {
		s.draw()
	}
}

// Clear erases the status, leaving the cursor at the start of the line,
// so that other output can be written, and forgets it: nothing is drawn
// again until the next Set (so a Show that comes after the work's last
// Clear draws nothing).
func (s *Status) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.line = ""
	if s.drawn {
		fmt.Fprint(s.w, "\r\x1b[K")
		s.drawn = false
	}
}

func (s *Status) draw() {
	fmt.Fprint(s.w, "\r\x1b[K"+s.line)
	s.drawn = true
}
