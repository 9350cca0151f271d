package advisor

import (
	"strconv"
	"strings"
	"testing"

	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
)

// TestContextMaintenance runs a long session past the advisor's threshold
// three times: the first crossing promotes it to a larger model, the
// second compacts its history, the third (whose compaction fails) re-primes
// it. fakellm refuses any request larger than the model's window, so no
// request may be refused.
func TestContextMaintenance(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, `
context_windows: {adv-small: 6000, adv-big: 12000}
rules:
  - name: summary
    match: ["Summarise this advisor history"]
    steps:
      - text: "SUMMARY-ONE: the agent ran many long steps; no notes were needed."
      - fault: {status: 500, message: "summariser down"}
  - name: review
    repeat: true
    steps: [{text: "Nothing to add."}]
`))
	open := func(name string) llm.Model {
		m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: name})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	var notices []string
	h := startRuntime(t, open("adv-small"), func(o *Options) {
		o.ContextWindow = 6000
		o.Promote = func(need int64) (Promotion, bool) {
			return Promotion{Model: open("adv-big"), Window: 12000, Name: "fake/adv-big"}, true
		}
		o.OnNotice = func(s string) { notices = append(notices, s) }
	})
	steps := 0
	for st := h.r.Status(); st.Reprimes == 0 && steps < 200; st = h.r.Status() {
		steps++
		h.r.Notify(h.host.step(strings.Repeat("output line of a long build log ", 40) + strconv.Itoa(steps)))
		h.waitFor("the review", func(s Status) bool { return s.Reviews == steps })
	}
	st := h.r.Status()
	if st.Promotions != 1 || st.Compactions != 1 || st.Reprimes != 1 {
		t.Fatalf("after %d steps: %d promotions, %d compactions, %d re-primes; want one each", steps, st.Promotions, st.Compactions, st.Reprimes)
	}
	sawSummary := false
	for i, r := range srv.Requests() {
		if r.Status == 400 {
			t.Errorf("request %d to %s was refused as too large", i+1, r.Model)
		}
		if r.Rule == "review" && strings.Contains(string(r.Body), "SUMMARY-ONE") {
			sawSummary = true
		}
	}
	if !sawSummary {
		t.Error("no review after the compaction carried its summary")
	}
	if len(notices) < 3 {
		t.Errorf("notices %q, want one per step", notices)
	}
	// One more step after the re-prime reviews fine on the fresh context.
	steps++
	h.r.Notify(h.host.step("after the re-prime"))
	h.waitFor("a review after the re-prime", func(s Status) bool { return s.Reviews == steps })
}
