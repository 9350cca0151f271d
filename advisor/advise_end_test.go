package advisor

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A review whose round of tool calls is all advise calls the runtime took
// (delivered, queued, held) ends there, without asking the model what it
// makes of the results (issue 31; omp 18.3). A round with a dropped or
// undelivered note, a malformed advise call or another tool goes on, and
// so does every round with ContinueAfterAdvise.
func TestReviewEndsAfterItsAdviseCalls(t *testing.T) {
	const concern = `{name: advise, arguments: {note: "Run the parser tests before committing.", severity: concern}}`
	const other = `{name: advise, arguments: {note: "Also update the changelog entry.", severity: concern}}`
	const closing = "      - text: CLOSING-TEXT\n"
	for _, tc := range []struct {
		name   string
		rounds string // the first review's tool rounds
		opts   func(*Options)
		host   func(*fakeHost)
		// reqs is the first review's model requests; results, what its
		// last round's results tell the model (read in the next review
		// when the first ended with its advise calls).
		reqs    int
		results string
	}{
		{name: "delivered", rounds: "      - tool_calls: [" + concern + "]\n",
			reqs: 1, results: "Delivered: the agent is interrupted"},
		{name: "second held", rounds: "      - tool_calls: [" + concern + ", " + other + "]\n",
			reqs: 1, results: "Held for the next update"},
		{name: "nit queued", rounds: `      - tool_calls: [{name: advise, arguments: {note: "Rename tmp to buffer.", severity: nit}}]` + "\n",
			reqs: 1, results: "Queued as an aside"},
		{name: "dropped repeat", rounds: "      - tool_calls: [" + concern + ", " + concern + "]\n" + closing,
			reqs: 2, results: "Dropped, not delivered"},
		{name: "not delivered", rounds: "      - tool_calls: [" + concern + "]\n" + closing,
			host: func(h *fakeHost) { h.steerErr = errors.New("agent gone") },
			reqs: 2, results: "Not delivered: the agent could not be reached"},
		{name: "malformed", rounds: `      - tool_calls: [{name: advise, arguments: {severity: concern}}]` + "\n" + closing,
			reqs: 2, results: `missing required argument \"note\"`},
		{name: "with a read", rounds: "      - tool_calls: [" + concern + `, {name: read, arguments: {path: "notes.txt"}}]` + "\n" + closing,
			reqs: 2, results: "NOTES-CONTENT"},
		{name: "ContinueAfterAdvise", rounds: "      - tool_calls: [" + concern + "]\n" + closing,
			opts: func(o *Options) { o.ContinueAfterAdvise = true },
			reqs: 2, results: "Delivered: the agent is interrupted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.WriteFile(filepath.Join(root, "notes.txt"), []byte("NOTES-CONTENT"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv, m := fakeServer(t, "rules:\n  - steps:\n"+tc.rounds+"      - text: NEXT-REVIEW\n")
			h := startRuntime(t, m, func(o *Options) {
				o.Roots = []string{root}
				if tc.opts != nil {
					tc.opts(o)
				}
			})
			if tc.host != nil {
				h.host.mu.Lock()
				tc.host(h.host)
				h.host.mu.Unlock()
			}
			h.r.Notify(h.host.step("committing"))
			h.waitFor("the first review", func(s Status) bool { return s.Reviews == 1 })
			if n := len(srv.Requests()); n != tc.reqs {
				t.Fatalf("the first review made %d model requests, want %d", n, tc.reqs)
			}
			h.r.Notify(h.host.step("committed"))
			h.waitFor("the second review", func(s Status) bool { return s.Reviews == 2 })
			reqs := srv.Requests()
			if len(reqs) != tc.reqs+1 {
				t.Fatalf("%d model requests after two reviews, want %d", len(reqs), tc.reqs+1)
			}
			// The model reads the last round's results all the same: in the
			// first review's last request, or, when that review ended with
			// them, in the second review's.
			at := tc.reqs - 1
			if tc.reqs == 1 {
				at = 1
			}
			if body := string(reqs[at].Body); !strings.Contains(body, tc.results) {
				t.Errorf("request %d lacks %q:\n%.3000s", at+1, tc.results, body)
			}
			if strings.Contains(string(reqs[tc.reqs].Body), "NEXT-REVIEW") {
				t.Errorf("the second review's request holds its own reply")
			}
		})
	}
}

// A review that ends with its advise call ends a prose streak, as a
// review that advised and then closed in text did.
func TestReviewEndingWithAdviseEndsTheProseStreak(t *testing.T) {
	prose := strings.Repeat("The agent should read the failing assertion before editing again. ", 6)
	_, m := fakeServer(t, `
rules:
  - steps:
      - text: "`+prose+`"
      - text: "`+prose+`"
      - tool_calls: [{name: advise, arguments: {note: "Read the assertion first.", severity: nit}}]
`)
	h := startRuntime(t, m, nil)
	for i := 1; i <= 2; i++ {
		h.r.Notify(h.host.step("step"))
		h.waitFor("a prose review", func(s Status) bool { return s.Reviews == i })
	}
	if st := h.r.Status(); st.ProseStreak != 2 {
		t.Fatalf("after two prose reviews: streak %d, want 2", st.ProseStreak)
	}
	h.r.Notify(h.host.step("step"))
	h.waitFor("the review that advises", func(s Status) bool { return s.Reviews == 3 })
	if st := h.r.Status(); st.ProseStreak != 0 || st.ProseWarnings != 0 {
		t.Errorf("after an advise call: streak %d, warnings %d; want 0 and 0", st.ProseStreak, st.ProseWarnings)
	}
}
