package advisor

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
)

// The benchmarks of the agent's questions to its advisor (issue 20,
// docs/benchmarks.md, "Asking the advisor").

// benchQuestion is the question every benchmark consult asks.
const benchQuestion = "I am about to delete the parser's legacy fallback and its tests, since the new path passes them all. Is it safe to delete them now, or should I keep them for one more release?"

// consultSlack is the allowance, in tokens, over the question
// and the pending update for a consult's uncached input.
const consultSlack = 150

// consultFigures are the token counts of the consults of one session.
type consultFigures struct {
	// uncached and bound are, per consult, its uncached input tokens
	// (Input + CacheWrite) and question + pending update + consultSlack.
	uncached, bound []int
	// pull is the uncached input of a pull advisor's one request: the
	// system prompt, the whole transcript and the question, to a model
	// that has not seen them.
	pull int
	// pullTotal is that request's whole prompt.
	pullTotal int
}

// runConsultSession runs a session of steps primary steps, each reviewed
// before the next, against fakellm over HTTP with the Anthropic adapter,
// then rounds times: one more step written but not yet reviewed (the
// step that calls ask_advisor), a consult, and a reviewed step.
func runConsultSession(tb testing.TB, steps, rounds int) consultFigures {
	tb.Helper()
	entries := benchSteps(0, steps+2*rounds)
	red := benchRedactor()
	srv := fakellm.StartTest(tb, fakellm.MustParse(tb, `
rules:
  - steps:
      - text: Nothing to add.
    repeat: true
`))
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "claude-bench"})
	if err != nil {
		tb.Fatal(err)
	}
	host := &fakeHost{entries: make([]session.Entry, 0, len(entries))}
	br := newBenchRun()
	br.start(tb, Options{Model: m, Host: host, Roots: []string{tb.TempDir()}, Redactor: red, ConsultMaxPerRun: rounds})
	defer br.stop()
	for i := range steps {
		br.step(tb, host.appendStep(entries[2*i:2*i+2]))
	}
	var out consultFigures
	for k := range rounds {
		i := steps + 2*k
		host.appendStep(entries[2*i : 2*i+2]) // written, not yet reviewed
		if _, err := br.r.Consult(tb.Context(), benchQuestion); err != nil {
			tb.Fatal(err)
		}
		br.wait(tb)
		reqs := srv.Requests()
		last := reqs[len(reqs)-1]
		if !lastMessageMarked(last.Body) {
			tb.Fatalf("consult %d marks no cache breakpoint on its last message", k)
		}
		msgs := br.r.Transcript().Messages
		consult := msgs[len(msgs)-2]
		if !IsConsult(consult) || len(consult.Content) != 2 {
			tb.Fatalf("consult %d: the context's last turn is not a consult with its update", k)
		}
		update := consult.Content[0].Text
		out.uncached = append(out.uncached, last.Usage.Input+last.Usage.CacheWrite)
		out.bound = append(out.bound, len(update)/4+len(benchQuestion)/4+consultSlack)
		br.step(tb, host.appendStep(entries[2*(i+1):2*(i+1)+2]))
	}
	if s := br.r.Status(); s.Consults != rounds || s.Reviews != steps+rounds || s.Failures != 0 {
		tb.Fatalf("status %+v", s)
	}

	// The pull advisor: the same session and question, sent whole.
	pull, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "claude-pull"})
	if err != nil {
		tb.Fatal(err)
	}
	transcript := history.Render(host.entries, history.AdvisorOptions(red))
	req := llm.Request{
		System:   red.Redact(DefaultSystemPrompt),
		Tools:    br.r.Transcript().Tools,
		Messages: []llm.Message{llm.UserText(transcript + "\n\n" + consultText(benchQuestion))},
	}
	if _, err := llm.Accumulate(pull.Stream(tb.Context(), req)); err != nil {
		tb.Fatal(err)
	}
	reqs := srv.Requests()
	u := reqs[len(reqs)-1].Usage
	out.pull, out.pullTotal = u.Input+u.CacheWrite, u.Input+u.CacheWrite+u.CacheRead
	return out
}

// consultBenchSteps and consultBenchRounds size BenchmarkConsultCache's
// session: the steps reviewed before the first consult, and the consults.
const (
	consultBenchSteps  = 200
	consultBenchRounds = 10
)

// BenchmarkConsultCache runs a 200-step session through the advisor,
// each step reviewed, then 10 consults, each after one more step the
// advisor has not reviewed (the step that calls ask_advisor), against
// fakellm's prompt-cache simulation over HTTP with the Anthropic adapter.
// It reports, per consult:
//
//   - uncached-tok/consult: Input + CacheWrite, what the consult pays at
//     the full or higher rate;
//   - bound-tok/consult: the question + the pending update + 150, the
//     issue's bound; uncached/bound is at most 1 when it is met;
//   - pull-uncached-tok: the uncached input of a pull advisor asked the
//     same question about the same session, sent whole (system prompt,
//     tools, the whole transcript rendered, the question) to a model
//     that has not seen it; pull/consult is how many times more it pays.
func BenchmarkConsultCache(b *testing.B) {
	var uncached, bound, pull, pullTotal float64
	n := 0
	for b.Loop() {
		f := runConsultSession(b, consultBenchSteps, consultBenchRounds)
		for i := range f.uncached {
			uncached += float64(f.uncached[i])
			bound += float64(f.bound[i])
			n++
		}
		pull += float64(f.pull)
		pullTotal += float64(f.pullTotal)
	}
	runs := float64(b.N)
	b.ReportMetric(uncached/float64(n), "uncached-tok/consult")
	b.ReportMetric(bound/float64(n), "bound-tok/consult")
	b.ReportMetric(uncached/bound, "uncached/bound")
	b.ReportMetric(pull/runs, "pull-uncached-tok")
	b.ReportMetric(pullTotal/runs, "pull-prompt-tok")
	b.ReportMetric(pull/runs/(uncached/float64(n)), "pull/consult")
}

// TestConsultCacheBound keeps BenchmarkConsultCache's figure true: at
// steady state every consult's uncached input is within the question,
// the pending update and 150 tokens, and a pull advisor pays far more.
func TestConsultCacheBound(t *testing.T) {
	f := runConsultSession(t, 30, 3)
	for i := range f.uncached {
		t.Logf("consult %d: %d uncached tokens, bound %d", i+1, f.uncached[i], f.bound[i])
		if f.uncached[i] > f.bound[i] {
			t.Errorf("consult %d: %d uncached tokens, want at most %d", i+1, f.uncached[i], f.bound[i])
		}
	}
	if last := f.uncached[len(f.uncached)-1]; f.pull < 10*last {
		t.Errorf("the pull advisor pays %d uncached tokens, want far more than the consult's %d", f.pull, last)
	}
}

// BenchmarkConsultOverhead measures what vigil adds to a consult beyond
// the model call, in sessions of 10, 1,000 and 10,000 steps with the
// advisor's cursor at the end: one op is one step written and not
// reviewed, then Consult, with an in-process model that answers at once,
// so the op is all vigil's: queueing to the drain goroutine, reading and
// rendering the update, redaction, the request, the guard and the
// answer's escaping. ns/op is the mean; µs-median and µs-p90 the
// distribution (the bound is a median of 5 ms).
func BenchmarkConsultOverhead(b *testing.B) {
	red := benchRedactor()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			host := prefilledHost(n, stepSegment)
			tail := benchSteps(n, n+stepSegment)
			model := newInstantModel()
			opts := benchOptions(b, model, host, red, StartAtEnd)
			opts.ConsultMaxPerRun = 1 << 30
			br := startBench(b, opts)
			defer func() { br.stop() }()
			done := 0
			var times []time.Duration
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if done == stepSegment {
					b.StopTimer()
					br.stop()
					host.truncate(2 * n)
					br = startBench(b, opts)
					done = 0
					b.StartTimer()
				}
				host.appendStep(tail[2*done : 2*done+2])
				start := time.Now()
				if _, err := br.r.Consult(b.Context(), benchQuestion); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				br.wait(b)
				done++
			}
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e3, "µs-median")
			b.ReportMetric(float64(times[len(times)*9/10].Nanoseconds())/1e3, "µs-p90")
		})
	}
}
