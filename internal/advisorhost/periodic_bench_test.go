package advisorhost_test

import (
	"context"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// benchCalls is the length of the scripted session, in tool calls, and
// benchEvery the periodic trigger: ten reviews a session.
const (
	benchCalls = 100
	benchEvery = 10
)

// benchSystem stands in for vigil's system prompt with an AGENTS.md: its
// size, not its words, is what the cache figures depend on.
var benchSystem = "You are vigil, a careful coding agent working in the user's repository.\n" +
	strings.Repeat("Read before you change; make the smallest change that does what was asked; run the relevant tests.\n", 40)

// periodicScript scripts a session of benchCalls bash calls, each its
// own step with a sentence before it, then an answer; every review's
// fork answers NO_CHANGE.
func periodicScript() string {
	var b strings.Builder
	b.WriteString("rules:\n  - name: review\n    model: m\n    match: [\"" + advisor.ReviewHeading + "\"]\n    repeat: true\n    steps:\n      - text: NO_CHANGE\n")
	b.WriteString("  - name: primary\n    model: m\n    steps:\n")
	for i := range benchCalls {
		fmt.Fprintf(&b, "      - text: \"Step %d: run the parser tests again to see whether case %d passes.\"\n", i, i%13)
		fmt.Fprintf(&b, "        tool_calls: [{name: bash, arguments: {command: \"seq %d %d\"}}]\n", i, i+150)
	}
	b.WriteString("      - text: \"The parser tests pass.\"\n")
	return b.String()
}

// forkTimer wraps the agent's model and notes when each fork's request
// is made.
type forkTimer struct {
	m     llm.Model
	mu    sync.Mutex
	forks []time.Time
}

func (f *forkTimer) Stream(ctx context.Context, req llm.Request) iter.Seq2[llm.Event, error] {
	if n := len(req.Messages); n > 0 && strings.Contains(req.Messages[n-1].Text(), advisor.ReviewHeading) {
		f.mu.Lock()
		f.forks = append(f.forks, time.Now())
		f.mu.Unlock()
	}
	return f.m.Stream(ctx, req)
}

// periodicSession is what one benchmarked session measured.
type periodicSession struct {
	reviews []fakellm.Usage
	// toFork and toServer are, per review, the time from the settlement
	// that made it due to the fork's request being made, and to fakellm
	// receiving it.
	toFork, toServer []time.Duration
	// noTools is the uncached part of the last review's fork sent without
	// the agent's tool definitions.
	noTools int
}

// runPeriodicSession runs the scripted session with a periodic advisor
// set up as the CLI sets it up, over real HTTP to fakellm.
func runPeriodicSession(tb testing.TB) periodicSession {
	srv := fakellm.StartTest(tb, fakellm.MustParse(tb, periodicScript()))
	dir := tb.TempDir()
	sess, err := session.NewManager(tb.TempDir(), session.Options{}).New(dir)
	if err != nil {
		tb.Fatal(err)
	}
	defer sess.Close()
	ts, err := tools.NewSession(tools.Options{Cwd: dir, Roots: []string{dir}, ArtifactsDir: sess.ArtifactsDir()})
	if err != nil {
		tb.Fatal(err)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m", HTTPClient: &http.Client{Transport: tr}})
	if err != nil {
		tb.Fatal(err)
	}
	timer := &forkTimer{m: m}
	var fwd hookRef
	ag, err := agent.New(agent.Options{Model: timer, System: benchSystem, Session: sess, Tools: ts.Tools(), Hooks: []agent.Hook{&fwd}})
	if err != nil {
		tb.Fatal(err)
	}
	// Subscribed before the host: the time a call settles is taken just
	// before the advisor hears of it.
	var settled []time.Time
	ag.Subscribe(func(ev agent.Event) {
		if ev.Type == agent.EventToolEnd {
			settled = append(settled, time.Now())
		}
	})
	host := advisorhost.New(ag, sess)
	defer host.Close()
	fwd.h = host.Hook()
	ph := advisorhost.NewPeriodic(host, true, nil)
	per, err := advisor.NewPeriodic(advisor.PeriodicOptions{Host: ph, EveryToolCalls: benchEvery})
	if err != nil {
		tb.Fatal(err)
	}
	host.SetSync(1, 30*time.Second, func(ctx context.Context, _ int) error { return per.WaitReview(ctx) })
	ph.Forward(per.Notify)
	per.Start(context.Background())
	defer per.Stop()
	if err := ag.Prompt(context.Background(), "make the parser tests pass"); err != nil {
		tb.Fatal(err)
	}

	var out periodicSession
	var arrived []time.Time
	for _, r := range srv.Requests() {
		if r.Rule == "review" {
			out.reviews = append(out.reviews, r.Usage)
			arrived = append(arrived, r.Time)
		}
	}
	if len(out.reviews) != benchCalls/benchEvery || len(timer.forks) != len(out.reviews) || len(settled) != benchCalls {
		tb.Fatalf("%d reviews (%d forks timed), %d calls settled; want %d and %d", len(out.reviews), len(timer.forks), len(settled), benchCalls/benchEvery, benchCalls)
	}
	for i := range out.reviews {
		at := settled[(i+1)*benchEvery-1]
		out.toFork = append(out.toFork, timer.forks[i].Sub(at))
		out.toServer = append(out.toServer, arrived[i].Sub(at))
	}

	// The same fork as the last review's, without the tool definitions:
	// what a fork that offers no tools would cost.
	path, err := sess.Path(sess.Leaf())
	if err != nil {
		tb.Fatal(err)
	}
	f := ag.Fork(path[:len(path)-1]) // up to the last result, as the last review forked
	req := f.Request
	req.Tools = nil
	req.Messages = append(slices.Clone(req.Messages), llm.UserText(advisor.ReviewPrompt("")))
	if _, err := llm.Accumulate(m.Stream(context.Background(), req)); err != nil {
		tb.Fatal(err)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1].Usage
	out.noTools = last.Input + last.CacheWrite
	return out
}

// BenchmarkPeriodicReview runs a scripted session of 100 tool calls with
// the periodic advisor at everyToolCalls 10 (docs/benchmarks.md,
// "Periodic review"): per review, the tokens fakellm's prefix-cache
// simulation counts as uncached and as read from the cache, and the time
// from the settlement that made the review due to its fork's request.
func BenchmarkPeriodicReview(b *testing.B) {
	var uncached, cached, prompt, noTools float64
	var toFork, toServer []time.Duration
	for b.Loop() {
		s := runPeriodicSession(b)
		for _, u := range s.reviews {
			uncached += float64(u.Input + u.CacheWrite)
			cached += float64(u.CacheRead)
			prompt += float64(u.Input + u.CacheWrite + u.CacheRead)
		}
		noTools += float64(s.noTools)
		toFork = append(toFork, s.toFork...)
		toServer = append(toServer, s.toServer...)
	}
	n := float64(b.N * benchCalls / benchEvery)
	b.ReportMetric(uncached/n, "uncached-tok/review")
	b.ReportMetric(cached/n, "cached-tok/review")
	b.ReportMetric(prompt/n, "prompt-tok/review")
	b.ReportMetric(noTools/float64(b.N), "no-tools-uncached-tok")
	b.ReportMetric(float64(median(toFork).Microseconds()), "µs-settle-to-fork")
	b.ReportMetric(float64(median(toServer).Microseconds()), "µs-settle-to-server")
	b.ReportMetric(float64(slices.Max(toServer).Microseconds()), "µs-settle-to-server-max")
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestPeriodicReviewCacheShare keeps the benchmark's cache figures true:
// every review reads from the cache all the agent's last request sent, so
// its uncached part is the step since (one reply and its result, here
// under 300 tokens) and the review prompt; and a fork without the tool
// definitions would miss the cache for nearly the whole conversation.
func TestPeriodicReviewCacheShare(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 100-call session")
	}
	s := runPeriodicSession(t)
	bound := len(advisor.ReviewPrompt(""))/4 + 300
	for i, u := range s.reviews {
		t.Logf("review %2d: prompt %6d tokens, %6d read from the cache, %4d uncached; settled to fork %v, to server %v",
			i+1, u.Input+u.CacheWrite+u.CacheRead, u.CacheRead, u.Input+u.CacheWrite, s.toFork[i], s.toServer[i])
		if unc := u.Input + u.CacheWrite; unc > bound {
			t.Errorf("review %d: %d of %d tokens uncached, want at most %d", i+1, unc, unc+u.CacheRead, bound)
		}
	}
	last := s.reviews[len(s.reviews)-1]
	if unc := last.Input + last.CacheWrite; s.noTools < 10*unc {
		t.Errorf("without tools the last fork has %d uncached tokens, want far more than the %d with them", s.noTools, unc)
	}
}
