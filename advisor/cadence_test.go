package advisor

import (
	"strings"
	"testing"
)

func TestParseCadence(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want Cadence
		err  bool
	}{
		{"", Cadence{}, false}, {"every", Cadence{}, false}, {"final", Cadence{Final: true}, false},
		{"3", Cadence{Every: 3}, false}, {"1", Cadence{Every: 1}, false},
		{"0", Cadence{}, true}, {"-2", Cadence{}, true}, {"often", Cadence{}, true},
	} {
		got, err := ParseCadence(tt.in)
		if (err != nil) != tt.err || !tt.err && got != tt.want {
			t.Errorf("ParseCadence(%q) = %+v, %v; want %+v (error %v)", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// TestRuntimeCadence checks that every N-th step and the end of a run are
// reviewed, with the skipped steps' updates in that review; and that
// "final" reviews the run once, at its end.
func TestRuntimeCadence(t *testing.T) {
	const script = `
rules:
  - repeat: true
    steps:
      - text: Nothing to add.
`
	t.Run("every 3", func(t *testing.T) {
		srv, m := fakeServer(t, script)
		h := startRuntime(t, m, func(o *Options) { o.Cadence = Cadence{Every: 3} })
		for i, s := range []string{"step one", "step two", "step three", "step four"} {
			h.r.Notify(h.host.step(s))
			want := 0
			if i >= 2 {
				want = 1
			}
			h.waitFor("the cadence", func(st Status) bool { return st.Reviews == want && st.Backlog == 0 })
		}
		reqs := srv.Requests()
		if len(reqs) != 1 {
			t.Fatalf("%d requests after 4 steps, want 1 (at the third)", len(reqs))
		}
		body := string(reqs[0].Body)
		for _, s := range []string{"step one", "step two", "step three"} {
			if !strings.Contains(body, s) {
				t.Errorf("the review at the third step lacks %q:\n%s", s, body)
			}
		}
		h.r.Notify(Event{Kind: EventRunEnded, Run: "r1"})
		h.waitFor("the run's end", func(st Status) bool { return st.Reviews == 2 })
		if reqs := srv.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "step four") {
			t.Errorf("the run's end did not review the fourth step (%d requests)", len(reqs))
		}
	})
	t.Run("final", func(t *testing.T) {
		srv, m := fakeServer(t, script)
		h := startRuntime(t, m, func(o *Options) { o.Cadence = Cadence{Final: true} })
		for _, s := range []string{"alpha", "beta", "gamma"} {
			h.r.Notify(h.host.step(s))
			h.waitFor("the step", func(st Status) bool { return st.Backlog == 0 })
		}
		if n := len(srv.Requests()); n != 0 {
			t.Fatalf("%d requests before the run ended, want 0", n)
		}
		h.r.Notify(Event{Kind: EventRunEnded, Run: "r1"})
		h.waitFor("the run's end", func(st Status) bool { return st.Reviews == 1 })
		body := string(srv.Requests()[0].Body)
		for _, s := range []string{"alpha", "beta", "gamma"} {
			if !strings.Contains(body, s) {
				t.Errorf("the final review lacks %q:\n%s", s, body)
			}
		}
	})
}
