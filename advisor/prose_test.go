package advisor

import (
	"strings"
	"testing"
)

// TestRuntimeWarnsOfProseReviews: an advisor model that writes its reviews
// as prose and never calls advise (seen with omp: 174 turns, status
// healthy) is warned of once, after ProseWarnAfter reviews in a row, with
// what it was saying; a short quiet reply neither counts nor resets, and
// an advise call ends the streak so a later one warns again.
func TestRuntimeWarnsOfProseReviews(t *testing.T) {
	prose := "The agent ran the tests twice and they failed the same way both times; it should read the assertion in test_calc.py before editing calc.py again, since the failure names the add function and the expected value. Editing the test instead would hide the bug rather than fix it, which is not what was asked."
	_, m := fakeServer(t, `
rules:
  - steps:
      - text: "`+prose+`"
      - text: "Nothing to add."
      - text: "`+prose+`"
      - text: "`+prose+`"
      - text: "`+prose+`"
      - tool_calls: [{name: advise, arguments: {note: "Read the assertion first.", severity: nit}}]
      - text: "`+prose+`"
`)
	h := startRuntime(t, m, nil)
	for i := 1; i <= 4; i++ {
		h.r.Notify(h.host.step("step"))
		h.waitFor("review", func(s Status) bool { return s.Reviews == i })
	}
	if st := h.r.Status(); st.ProseStreak != 3 || st.ProseWarnings != 1 {
		t.Fatalf("after prose, quiet, prose, prose: streak %d, warnings %d; want 3 and 1", st.ProseStreak, st.ProseWarnings)
	}
	select {
	case w := <-h.warn:
		if !strings.Contains(w, "last 3 reviews ended in prose without calling advise") || !strings.Contains(w, "The agent ran the tests twice") {
			t.Errorf("warning %q", w)
		}
	default:
		t.Fatal("no warning after three prose reviews in a row")
	}
	h.r.Notify(h.host.step("step"))
	h.waitFor("fifth review", func(s Status) bool { return s.Reviews == 5 })
	h.r.Notify(h.host.step("step"))
	h.waitFor("review with advise", func(s Status) bool { return s.Reviews == 6 })
	h.r.Notify(h.host.step("step"))
	h.waitFor("seventh review", func(s Status) bool { return s.Reviews == 7 })
	st := h.r.Status()
	if st.ProseStreak != 1 || st.ProseWarnings != 1 {
		t.Errorf("after an advise call and one prose review: streak %d, warnings %d; want 1 and 1", st.ProseStreak, st.ProseWarnings)
	}
	select {
	case w := <-h.warn:
		t.Errorf("a second warning: %q", w)
	default:
	}
}
