package advisor

import (
	"fmt"
	"strings"
	"testing"
)

func TestNormalise(t *testing.T) {
	tests := []struct {
		name, a, b string
		same       bool
	}{
		{"case and punctuation", "Run the verification commands now.", "run verification commands", true},
		{"white space", "Run  the\n tests", "Run the tests", true},
		{"trailing politeness", "Run the tests, please. Thank you!", "run the tests", true},
		{"thanks", "Check the error path, thanks", "check the error path", true},
		{"apostrophe", "Don't push to main", "dont push to main!", true},
		{"curly apostrophe", "Don\u2019t push to main", "Don't push to main", true},
		{"filler words", "Just stop deleting the migrations again", "stop deleting migrations", true},
		{"different object", "Run go test ./advisor/", "Run go vet ./advisor/", false},
		{"different comparison", "Check i < n in the loop", "Check i > n in the loop", false},
		{"negation matters", "Do push the branch", "Don't push the branch", false},
		{"numbers matter", "Line 42 divides by zero", "Line 43 divides by zero", false},
		{"word order matters", "Commit before running tests", "Running tests before commit", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, b := strings.Join(normalise(tt.a), " "), strings.Join(normalise(tt.b), " ")
			if (a == b) != tt.same {
				t.Errorf("normalise(%q) = %q, normalise(%q) = %q; same = %v, want %v", tt.a, a, tt.b, b, a == b, tt.same)
			}
		})
	}
}

func TestContentFree(t *testing.T) {
	tests := []struct {
		note string
		want bool
	}{
		{"Stop.", true},
		{"STOP!!!", true},
		{"Done.", true},
		{"No issue; continue.", true},
		{"No issues, continue.", true},
		{"No concerns so far.", true},
		{"Looks good to me.", true},
		{"LGTM", true},
		{"Okay, keep going.", true},
		{"Carry on, thanks.", true},
		{"Nothing to add.", true},
		{"Keep it up!", true},
		{"Continue.", true},
		{"Revert.", true},
		{"", true},
		{"...", true},
		{"Run tests.", false},
		{"Don't push.", false},
		{"Revert auth.go.", false},
		{"Stop deleting the migrations.", false},
		{"No tests cover the new branch.", false},
		{"Run the verification commands now.", false},
		{"i < n", false},
	}
	for _, tt := range tests {
		t.Run(tt.note, func(t *testing.T) {
			if got := contentFree(normalise(tt.note)); got != tt.want {
				t.Errorf("contentFree(%q) = %v, want %v (words %q)", tt.note, got, tt.want, normalise(tt.note))
			}
		})
	}
}

// step is one advise call in a replayed sequence; newUpdate starts a new
// update before it.
type step struct {
	newUpdate bool
	note      string
	sev       Severity
	deliver   bool
	reason    string // a substring of the reason when dropped
}

func TestGuardSequences(t *testing.T) {
	tests := []struct {
		name  string
		steps []step
	}{
		{"one note per update, blockers aside", []step{
			{true, "Run the tests before committing.", SeverityConcern, true, ""},
			{false, "The migration drops a column.", SeverityConcern, false, "already delivered in this update"},
			{false, "The migration drops the users table.", SeverityBlocker, true, ""},
			{true, "The migration drops a column.", SeverityConcern, true, ""},
		}},
		{"a refused note does not take the slot", []step{
			{true, "Stop.", SeverityBlocker, false, "no concrete content"},
			{false, "Run the tests before committing.", SeverityConcern, true, ""},
		}},
		{"a duplicate does not take the slot", []step{
			{true, "Run the tests before committing.", SeverityConcern, true, ""},
			{true, "run the tests before committing!", SeverityConcern, false, "repeats an earlier note"},
			{false, "The migration drops a column.", SeverityConcern, true, ""},
		}},
		{"a rate-limited note is not remembered", []step{
			{true, "Run the tests before committing.", SeverityConcern, true, ""},
			{false, "The migration drops a column.", SeverityConcern, false, "already delivered"},
			{true, "The migration drops a column.", SeverityConcern, true, ""},
		}},
		{"escalation is allowed once per level", []step{
			{true, "Handle the nil map.", SeverityOmitted, true, ""},
			{true, "Handle the nil map.", SeverityNit, false, "the same severity"},
			{true, "Handle the nil map!", SeverityConcern, true, ""},
			{true, "handle the nil map", SeverityConcern, false, "the same severity"},
			{true, "Handle the nil map.", SeverityBlocker, true, ""},
			{true, "Handle the nil map.", SeverityBlocker, false, "repeats an earlier note (\"Handle the nil map.\")"},
			{true, "Handle the nil map.", SeverityNit, false, "a lower severity"},
		}},
		{"a lower severity repeat is dropped", []step{
			{true, "The migration drops a column.", SeverityBlocker, true, ""},
			{true, "The migration drops a column.", SeverityConcern, false, "a lower severity"},
		}},
		{"similar but distinct notes pass", []step{
			{true, "Run go test ./advisor/ before committing.", SeverityConcern, true, ""},
			{true, "Run go vet ./advisor/ before committing.", SeverityConcern, true, ""},
			{true, "Run go vet ./agent/ before committing.", SeverityConcern, true, ""},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g emissionGuard
			for i, s := range tt.steps {
				if s.newUpdate {
					g.NewUpdate()
				}
				d := g.Check(Advice{Note: s.note, Severity: s.sev})
				if d.Deliver != s.deliver {
					t.Fatalf("step %d (%q, %q): Deliver = %v (reason %q), want %v", i, s.note, s.sev, d.Deliver, d.Reason, s.deliver)
				}
				if d.Deliver && d.Reason != "" {
					t.Errorf("step %d: delivered with reason %q", i, d.Reason)
				}
				if !d.Deliver && !strings.Contains(d.Reason, s.reason) {
					t.Errorf("step %d: reason %q, want it to contain %q", i, d.Reason, s.reason)
				}
			}
		})
	}
}

// TestGuardHolds checks that a note over the update's slots is held, not
// dropped, and that PerUpdate sets the slots.
func TestGuardHolds(t *testing.T) {
	g := emissionGuard{PerUpdate: 2}
	for i, want := range []bool{true, true, false} {
		d := g.Check(Advice{Note: fmt.Sprintf("Fix the bug on line %d.", i), Severity: SeverityConcern})
		if d.Deliver != want || !want && !d.Hold {
			t.Errorf("note %d: %+v, want delivered %v (held otherwise)", i, d, want)
		}
	}
	if d := g.Check(Advice{Note: "Stop using the prod database.", Severity: SeverityBlocker}); !d.Deliver {
		t.Errorf("a blocker over the slots: %+v, want delivered", d)
	}
	g.NewUpdate()
	if d := g.Check(Advice{Note: "Fix the bug on line 2.", Severity: SeverityConcern}); !d.Deliver {
		t.Errorf("the held note in the next update: %+v, want delivered", d)
	}
	g.Reset()
	if g.PerUpdate != 2 {
		t.Errorf("Reset lost PerUpdate: %d", g.PerUpdate)
	}
}

func TestGuardReset(t *testing.T) {
	var g emissionGuard
	g.Check(Advice{Note: "Run the tests first."})
	g.Reset()
	if d := g.Check(Advice{Note: "Run the tests first."}); !d.Deliver {
		t.Errorf("after Reset: got %+v, want delivered", d)
	}
}

func TestGuardForgetsOldestNotes(t *testing.T) {
	var g emissionGuard
	for i := range rememberedNotes + 1 {
		g.NewUpdate()
		if d := g.Check(Advice{Note: fmt.Sprintf("Fix the bug on line %d.", i)}); !d.Deliver {
			t.Fatalf("note %d: got %+v, want delivered", i, d)
		}
	}
	if len(g.notes) != rememberedNotes || len(g.order) != rememberedNotes {
		t.Fatalf("remembers %d notes (%d in order), want %d", len(g.notes), len(g.order), rememberedNotes)
	}
	g.NewUpdate()
	if d := g.Check(Advice{Note: "Fix the bug on line 0."}); !d.Deliver {
		t.Errorf("oldest note: got %+v, want delivered after it was forgotten", d)
	}
	g.NewUpdate()
	if d := g.Check(Advice{Note: fmt.Sprintf("Fix the bug on line %d.", rememberedNotes)}); d.Deliver {
		t.Errorf("newest note: got delivered, want a duplicate")
	}
}

// flood309 rebuilds the flood of issue #3520: 309 advise calls, 114 of
// them "Stop.", 52 "No issue; continue.", 41 "Done.", and the rest the
// same verification advice, reworded only in case, punctuation, filler and
// politeness (issue #3154), at concern and now and then blocker.
func flood309() []Advice {
	var notes []Advice
	stops := []string{"Stop.", "stop", "STOP!", "Stop!!", "Stop now.", "Stop, please."}
	for i := range 114 {
		notes = append(notes, Advice{Note: stops[i%len(stops)], Severity: SeverityBlocker})
	}
	for i := range 52 {
		n := "No issue; continue."
		if i%2 == 1 {
			n = "no issues — continue"
		}
		notes = append(notes, Advice{Note: n})
	}
	for range 41 {
		notes = append(notes, Advice{Note: "Done.", Severity: SeverityNit})
	}
	verify := []string{
		"Run the verification commands now.",
		"Run the verification commands now, please.",
		"run the verification commands",
		"Run the verification commands!",
		"Please run the verification commands now. Thanks!",
		"RUN THE VERIFICATION COMMANDS.",
		"Run  the  verification  commands  again.",
	}
	for i := range 102 {
		sev := SeverityConcern
		if i%17 == 16 {
			sev = SeverityBlocker
		}
		notes = append(notes, Advice{Note: verify[i%len(verify)], Severity: sev})
	}
	// Interleave so the flood is not sorted by kind, deterministically.
	out := make([]Advice, 0, len(notes))
	for i := range notes {
		out = append(out, notes[(i*37)%len(notes)])
	}
	return out
}

func TestGuardRecordedFloods(t *testing.T) {
	flood := flood309()
	if len(flood) != 309 {
		t.Fatalf("flood has %d notes, want 309", len(flood))
	}
	tests := []struct {
		name          string
		notes         []Advice
		perUpdate     int
		maxDelivered  int
		wantDelivered []string
	}{
		{"309 notes one per update", flood, 1, 2, []string{"Run the verification commands"}},
		{"309 notes ten per update", flood, 10, 2, []string{"Run the verification commands"}},
		{"114 times Stop", repeat(Advice{Note: "Stop.", Severity: SeverityBlocker}, 114), 1, 0, nil},
		{"same concern every turn (#3154)", repeat(Advice{Note: "Run the verification commands now.", Severity: SeverityConcern}, 40), 1, 1, []string{"Run the verification commands now."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g emissionGuard
			var delivered []string
			for i, a := range tt.notes {
				if i%tt.perUpdate == 0 {
					g.NewUpdate()
				}
				d := g.Check(a)
				if d.Deliver {
					delivered = append(delivered, a.Note)
				} else if d.Reason == "" {
					t.Errorf("note %d (%q) dropped without a reason", i, a.Note)
				}
			}
			if len(delivered) > tt.maxDelivered {
				t.Errorf("delivered %d notes, want at most %d: %q", len(delivered), tt.maxDelivered, delivered)
			}
			for _, w := range tt.wantDelivered {
				found := false
				for _, d := range delivered {
					found = found || strings.HasPrefix(d, w)
				}
				if !found {
					t.Errorf("delivered %q, want a note starting %q among them", delivered, w)
				}
			}
		})
	}
}

func repeat(a Advice, n int) []Advice {
	out := make([]Advice, n)
	for i := range out {
		out[i] = a
	}
	return out
}

// TestGuardDoesNotOverSuppress replays the shape of issue #10271, where a
// guard suppressed 7 of 8 distinct concerns: each distinct note, one per
// update, must be delivered.
func TestGuardDoesNotOverSuppress(t *testing.T) {
	concerns := []string{
		"The retry loop never resets the failure counter after a success.",
		"You are editing the generated file; change the template instead.",
		"The test asserts on map iteration order, which is random.",
		"Run the verification commands before claiming the fix works.",
		"This drops the error from Close on the written file.",
		"The new flag is not documented in docs/config.md.",
		"Run the verification commands for ./session/ too.",
		"Stop rewriting the parser; the bug is in the lexer.",
	}
	var g emissionGuard
	for i, c := range concerns {
		g.NewUpdate()
		if d := g.Check(Advice{Note: c, Severity: SeverityConcern}); !d.Deliver {
			t.Errorf("update %d: %q dropped: %s", i+1, c, d.Reason)
		}
	}
}
