package sidecar

import "testing"

// TestActivityCountsWithheld: the Activity column of vigil status says
// how many notes a sidecar withheld from its agent.
func TestActivityCountsWithheld(t *testing.T) {
	got := Stats{Hooks: 14, Steps: 9, Delivered: 2, Blocks: 1, Withheld: 3, WithheldNotes: []string{"a"}}.Activity()
	if want := "14 hooks, 9 steps, 2 notes (1 Stop block), 3 withheld"; got != want {
		t.Fatalf("activity %q, want %q", got, want)
	}
}
