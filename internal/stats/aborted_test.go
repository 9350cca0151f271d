package stats_test

import (
	"encoding/json"
	"testing"

	"github.com/vigil-dev/vigil/internal/stats"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// A request a blocker aborted leaves no reply, only the agent's
// request_aborted marker with the request's model and usage: it was paid
// for, so it counts as a turn; a marker that says neither does not.
func TestAbortedRequestCounts(t *testing.T) {
	root := t.TempDir()
	s := sessionOf(t)(session.NewManager(root, session.Options{}).New("/w/app"))
	marker := func(details string) session.Body {
		return &session.Custom{CustomType: "request_aborted", Content: []llm.Block{llm.Text("[model request aborted]")}, Display: true, Details: json.RawMessage(details)}
	}
	appendAll(t, s,
		user("go"),
		marker(`{"model":"fake/m","usage":{"input":1000,"output":20,"cache_read":5000}}`),
		marker(`{"usage":{"input":0,"output":0}}`),
		reply("fake/m", llm.Usage{Input: 200, Output: 50}),
	)
	s.Close()
	r, err := stats.Scan(root, stats.Options{Price: prices})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Sessions) != 1 {
		t.Fatalf("sessions: %+v", r.Sessions)
	}
	got := r.Sessions[0].Primary
	if got.Turns != 2 || got.Tokens != (stats.Tokens{Input: 1200, Output: 70, CacheRead: 5000}) {
		t.Errorf("primary = %+v, want 2 turns, the marker's tokens and the reply's", got)
	}
	if want := (1000*1+20*10+5000*0.1)/1e6 + (200*1+50*10)/1e6; !near(got.Cost, want) {
		t.Errorf("cost = %g, want %g", got.Cost, want)
	}
}
