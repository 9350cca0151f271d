package cli

import (
	"testing"

	"github.com/vigil-dev/vigil/internal/sidecar"
)

// TestSidecarActivityCountsWithheld: the Activity column of vigil
// status says how many notes a sidecar withheld from its agent.
func TestSidecarActivityCountsWithheld(t *testing.T) {
	got := sidecarActivity(sidecar.Stats{Hooks: 14, Steps: 9, Delivered: 2, Blocks: 1, Withheld: 3, WithheldNotes: []string{"a"}})
	if want := "14 hooks, 9 steps, 2 notes (1 Stop block), 3 withheld"; got != want {
		t.Fatalf("activity %q, want %q", got, want)
	}
}
