package advisor

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/session"
)

// The benchmarks of the advisor runtime (docs/benchmarks.md, "Advisor
// runtime"). Every primary step is two transcript entries, as the agent
// writes them: an assistant message (thinking, a sentence, one bash call)
// and its result, about 1.2 KB of go test output. The runtime is set up
// as vigil's CLI sets it up: read-only tools over a root, and a redactor
// built from an environment.

// benchSizes are the session lengths, in primary steps, already in the
// transcript when the measured steps begin.
var benchSizes = []int{10, 1000, 10000}

// benchStep returns the two entries of primary step i.
func benchStep(i int) []session.Entry {
	id := fmt.Sprintf("toolu_%06d", i)
	args, err := json.Marshal(map[string]any{"command": fmt.Sprintf("go test ./parser%d/ -run TestParse -v", i%7), "timeout": 120})
	if err != nil {
		panic(err)
	}
	var out strings.Builder
	for j := 0; out.Len() < 1200; j++ {
		fmt.Fprintf(&out, "=== RUN   TestParse/case_%03d\n--- PASS: TestParse/case_%03d (0.00s)\n", j, j)
	}
	fmt.Fprintf(&out, "ok  \tparser%d\t0.%03ds\n", i%7, i%1000)
	return []session.Entry{
		{ID: fmt.Sprintf("a%d", i), Body: &session.Message{
			Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{
				llm.Thinking(fmt.Sprintf("Step %05d: the parser change is in; run its tests to see whether the empty-input case passes now.", i), "sig"),
				llm.Text("Let me run the parser tests."),
				llm.ToolCall(id, "bash", args),
			}},
			StopReason: llm.StopToolUse,
		}},
		{ID: fmt.Sprintf("r%d", i), Body: &session.Message{
			Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, false, llm.Text(out.String()))}},
		}},
	}
}

// benchSteps returns the entries of steps [from, to).
func benchSteps(from, to int) []session.Entry {
	out := make([]session.Entry, 0, 2*(to-from))
	for i := from; i < to; i++ {
		out = append(out, benchStep(i)...)
	}
	return out
}

// prefilledHost returns a host whose transcript holds steps [0, n), with
// room for extra more steps to be appended without growing the slice.
func prefilledHost(n, extra int) *fakeHost {
	h := &fakeHost{entries: make([]session.Entry, 0, 2*(n+extra))}
	for i := range n {
		h.entries = append(h.entries, benchStep(i)...)
	}
	return h
}

// appendStep appends one step's entries, as the agent does, and returns
// the event that reports it.
func (h *fakeHost) appendStep(entries []session.Entry) Event {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = append(h.entries, entries...)
	return Event{Kind: EventStepEnded, Cursor: len(h.entries)}
}

// truncate cuts the transcript back to its first n entries.
func (h *fakeHost) truncate(n int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entries = h.entries[:n]
}

// benchRedactor is a redactor built from an environment like a
// developer's: mostly ordinary variables, a few secrets.
func benchRedactor() *history.Redactor {
	env := []string{
		"HOME=/home/ana", "PATH=/usr/local/go/bin:/usr/bin:/bin", "SHELL=/bin/bash", "EDITOR=vim",
		"LANG=en_US.UTF-8", "TERM=xterm-256color", "USER=ana", "GOPATH=/home/ana/go",
		"DATABASE_PASSWORD=Tr0ub4dor&3-horse", "SERVICE_TOKEN=svc-2c9f1e7a5b3d4e6f8a0b",
		"WEBHOOK_SECRET=whsec-5e4d3c2b1a09f8e7",
	}
	for i := range 20 {
		env = append(env, fmt.Sprintf("APP_SETTING_%d=value-%d", i, i))
	}
	return history.NewRedactor(env, nil)
}

// instantModel is an in-process advisor model that answers every request
// at once with a short text. It records, for BenchmarkStepToQueued, how
// long after the benchmark's Notify each request arrived: by then the
// update has been read, rendered, redacted and appended to the context,
// and the request is built, ready to send.
type instantModel struct {
	base     time.Time
	notified atomic.Int64 // time since base of the last Notify, in ns
	queued   atomic.Int64 // sum of Notify-to-request times, in ns
	calls    atomic.Int64
}

var instantReply = []llm.Event{
	{Type: llm.EventTextDelta, Text: "Nothing to add."},
	{Type: llm.EventUsage, Usage: llm.Usage{Input: 10, Output: 4}},
	{Type: llm.EventStop, StopReason: llm.StopEndTurn},
}

func newInstantModel() *instantModel { return &instantModel{base: time.Now()} }

// notify records the time of a Notify.
func (m *instantModel) notify() { m.notified.Store(int64(time.Since(m.base))) }

func (m *instantModel) Stream(context.Context, llm.Request) iter.Seq2[llm.Event, error] {
	m.queued.Add(int64(time.Since(m.base)) - m.notified.Load())
	m.calls.Add(1)
	return func(yield func(llm.Event, error) bool) {
		for _, ev := range instantReply {
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// benchRun is a started runtime whose drain loop reports each time it
// has nothing left to do.
type benchRun struct {
	r     *Runtime
	idle  chan struct{}
	quit  chan struct{}
	timer *time.Timer // bounds each wait, reused so that waiting allocates nothing
	once  sync.Once
}

// newBenchRun returns a harness for one runtime; start makes and starts
// the runtime.
func newBenchRun() *benchRun {
	return &benchRun{idle: make(chan struct{}), quit: make(chan struct{}), timer: time.NewTimer(bound)}
}

// startBench makes and starts a runtime and waits for its drain loop to
// go idle.
func startBench(b *testing.B, opts Options) *benchRun {
	b.Helper()
	br := newBenchRun()
	br.start(b, opts)
	return br
}

// start makes and starts the runtime and waits for its drain loop to go
// idle.
func (br *benchRun) start(b testing.TB, opts Options) {
	b.Helper()
	r, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	br.r = r
	r.afterDrain = func() {
		select {
		case br.idle <- struct{}{}:
		case <-br.quit:
		}
	}
	r.Start(context.Background())
	br.wait(b)
}

// wait waits, boundedly, for the drain loop to go idle.
func (br *benchRun) wait(b testing.TB) {
	br.timer.Reset(bound)
	select {
	case <-br.idle:
	case <-br.timer.C:
		b.Fatalf("the runtime did not go idle; status %+v", br.r.Status())
	}
}

// step reports one step to the runtime and waits until it is reviewed.
func (br *benchRun) step(b testing.TB, ev Event) {
	br.r.Notify(ev)
	br.wait(b)
}

// stop stops the runtime; it may be called more than once.
func (br *benchRun) stop() {
	br.once.Do(func() {
		br.timer.Stop()
		close(br.quit)
		br.r.Stop()
	})
}

// benchOptions returns the options of an advisor over host, configured
// as the CLI configures it.
func benchOptions(b *testing.B, m llm.Model, host Host, red *history.Redactor, start StartPoint) Options {
	return Options{
		Model:     m,
		Host:      host,
		Roots:     []string{b.TempDir()},
		Redactor:  red,
		Start:     start,
		OnWarning: func(s string) { b.Errorf("warning: %s", s) },
	}
}

// stepSegment is how many steps BenchmarkStepToQueued appends before it
// restarts the runtime on the prefilled transcript, so that the session
// stays within stepSegment steps of its nominal length, and the advisor's
// context within 2*stepSegment messages, whatever b.N is.
const stepSegment = 100

// BenchmarkStepToQueued measures what the advisor adds to each primary
// step, in sessions already holding 10, 1,000 and 10,000 steps, with the
// runtime's cursor at the end (StartAtEnd). One op is one new step:
// Notify(EventStepEnded), the runtime reads the step with Host.Since,
// renders and redacts the update, appends it to its context and calls
// the model, which answers at once; the op ends when the drain loop is
// idle again. ns/queued is the part of it from Notify to the model call,
// that is until the update is rendered and the request ready to send.
func BenchmarkStepToQueued(b *testing.B) {
	red := benchRedactor()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			host := prefilledHost(n, stepSegment)
			tail := benchSteps(n, n+stepSegment)
			model := newInstantModel()
			opts := benchOptions(b, model, host, red, StartAtEnd)
			br := startBench(b, opts)
			defer func() { br.stop() }()
			done := 0 // steps since the last restart
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if done == stepSegment {
					b.StopTimer()
					br.stop()
					if s := br.r.Status(); s.Reviews != stepSegment || s.Failures != 0 {
						b.Fatalf("status %+v, want %d reviews", s, stepSegment)
					}
					host.truncate(2 * n)
					br = startBench(b, opts)
					done = 0
					b.StartTimer()
				}
				ev := host.appendStep(tail[2*done : 2*done+2])
				model.notify()
				br.step(b, ev)
				done++
			}
			b.StopTimer()
			if got := model.calls.Load(); got != int64(b.N) {
				b.Fatalf("%d model calls for %d steps", got, b.N)
			}
			b.ReportMetric(float64(model.queued.Load())/float64(b.N), "ns/queued")
		})
	}
}

// cacheSteps is the length of BenchmarkCacheShare's session.
const cacheSteps = 200

// BenchmarkCacheShare runs a 200-step session (one op) through the
// advisor, each step reviewed before the next, against fakellm over real
// HTTP with the Anthropic adapter; the advisor answers every update with
// a short text. It reports, over the whole session:
//
//   - cache-%: CacheRead / (Input + CacheRead + CacheWrite), the share of
//     prompt tokens served from the prompt cache;
//   - uncached-tok/review: (Input + CacheWrite) per review, what a review
//     pays at the full or higher rate (a cache write is what Anthropic
//     charges to take in the new delta, at 1.25× the input price);
//   - delta-tok/review: the rendered update's size at 4 bytes a token,
//     the unit of fakellm's count;
//   - uncached/bound: uncached-tok/review over 1.1 × delta-tok/review +
//     100, the target's bound; at most 1 meets it;
//   - first-uncached-tok, steady-uncached-tok: the uncached tokens of the
//     first review (system prompt and tools written to the cache) and the
//     mean of the others.
func BenchmarkCacheShare(b *testing.B) {
	entries := benchSteps(0, cacheSteps)
	red := benchRedactor()
	script := fakellm.MustParse(b, `
rules:
  - steps:
      - text: Nothing to add.
    repeat: true
`)
	var usage llm.Usage
	var reviews, deltaBytes, firstUncached, steadyUncached, steadyReviews int64
	for range b.N {
		srv, err := fakellm.Start(script) // a fresh prompt cache for each session
		if err != nil {
			b.Fatal(err)
		}
		m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "claude-bench"})
		if err != nil {
			b.Fatal(err)
		}
		host := &fakeHost{entries: make([]session.Entry, 0, len(entries))}
		br := startBench(b, benchOptions(b, m, host, red, StartAtBeginning))
		for i := range cacheSteps {
			br.step(b, host.appendStep(entries[2*i:2*i+2]))
		}
		s := br.r.Status()
		if s.Reviews != cacheSteps || s.Failures != 0 {
			b.Fatalf("status %+v, want %d reviews and no failures", s, cacheSteps)
		}
		usage = usage.Add(s.Usage)
		reviews += int64(s.Reviews)
		for _, msg := range br.r.Transcript().Messages {
			if msg.Role == llm.RoleUser {
				deltaBytes += int64(len(msg.Text()))
			}
		}
		b.StopTimer()
		for i, req := range srv.Requests() {
			// fakellm reads a cached prefix whether or not the request
			// marks a breakpoint; Anthropic reads none without one.
			if !lastMessageMarked(req.Body) {
				b.Fatalf("request %d marks no cache breakpoint on its last message", i)
			}
			u := int64(req.Usage.Input + req.Usage.CacheWrite)
			if i == 0 {
				firstUncached += u
			} else {
				steadyUncached += u
				steadyReviews++
			}
		}
		br.stop()
		if err := srv.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	uncached := float64(usage.Input+usage.CacheWrite) / float64(reviews)
	delta := float64(deltaBytes) / 4 / float64(reviews)
	b.ReportMetric(100*float64(usage.CacheRead)/float64(usage.PromptTokens()), "cache-%")
	b.ReportMetric(uncached, "uncached-tok/review")
	b.ReportMetric(delta, "delta-tok/review")
	b.ReportMetric(uncached/(1.1*delta+100), "uncached/bound")
	b.ReportMetric(float64(firstUncached)/float64(b.N), "first-uncached-tok")
	b.ReportMetric(float64(steadyUncached)/float64(steadyReviews), "steady-uncached-tok")
}

// lastMessageMarked reports whether an Anthropic request body marks a
// prompt-cache breakpoint on the last block of its last message.
func lastMessageMarked(body []byte) bool {
	var req struct {
		Messages []struct {
			Content []struct {
				CacheControl json.RawMessage `json:"cache_control"`
			} `json:"content"`
		} `json:"messages"`
	}
	if json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		return false
	}
	c := req.Messages[len(req.Messages)-1].Content
	return len(c) > 0 && len(c[len(c)-1].CacheControl) > 0
}

// memReviews is how many steps BenchmarkRuntimeMemory has the runtime
// review.
const memReviews = 10

// BenchmarkRuntimeMemory measures the heap a runtime holds after it
// started at the end of a session of 10, 1,000 or 10,000 steps and
// reviewed the next 10: the live heap after a GC, minus the live heap
// before the runtime was made, with the host's transcript allocated
// before. runtime-B is that figure; transcript-B, for scale, is the heap
// the host's transcript of that many steps holds.
func BenchmarkRuntimeMemory(b *testing.B) {
	red := benchRedactor()
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("steps=%d", n), func(b *testing.B) {
			empty := liveHeap()
			host := prefilledHost(n, memReviews)
			transcript := liveHeap() - empty
			tail := benchSteps(n, n+memReviews)
			model := newInstantModel()
			opts := benchOptions(b, model, host, red, StartAtEnd)
			var held int64
			b.ResetTimer()
			for range b.N {
				host.truncate(2 * n)
				br := newBenchRun()
				before := liveHeap()
				br.start(b, opts)
				for i := range memReviews {
					br.step(b, host.appendStep(tail[2*i:2*i+2]))
				}
				held += liveHeap() - before
				if s := br.r.Status(); s.Reviews != memReviews {
					b.Fatalf("status %+v, want %d reviews", s, memReviews)
				}
				br.stop()
			}
			b.StopTimer()
			runtime.KeepAlive(host)
			runtime.KeepAlive(tail)
			b.ReportMetric(float64(held)/float64(b.N), "runtime-B")
			b.ReportMetric(float64(transcript), "transcript-B")
		})
	}
}

// liveHeap returns the bytes of live heap objects after a full collection
// (two, so that sync.Pool victims are gone too).
func liveHeap() int64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
