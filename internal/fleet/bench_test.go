package fleet

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/llm/anthropic"
	"github.com/vigil-dev/vigil/rules"
)

// envInt reads a benchmark size from the environment.
func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// BenchmarkFleet runs FLEET_SESSIONS simulated sessions (default 50) of
// FLEET_STEPS steps each (default 20) through 2 workers on a real
// nats-server (JetStream on files): each session publishes its steps one
// after another, as an agent does, without waiting for reviews: all at
// once (a flood: latency is then mostly queueing), or one step every
// FLEET_INTERVAL_MS milliseconds per session (an offered load). It
// runs the rules reviewer, a detector with a note for every step, and a
// model advisor on fakellm that reviews every step. It
// reports steps reviewed per second per worker, p50 and p99 from a
// step's publication to its review's ack, and p50 and p99 from a step's
// publication to its note's delivery to the client.
//
//	FLEET_SESSIONS=500 FLEET_STEPS=100 go test -run '^$' -bench Fleet -benchtime 1x ./internal/fleet/
//	FLEET_SESSIONS=500 FLEET_STEPS=20 FLEET_INTERVAL_MS=2000 go test -run '^$' -bench Fleet -benchtime 1x ./internal/fleet/
func BenchmarkFleet(b *testing.B) {
	sessions, steps := envInt("FLEET_SESSIONS", 50), envInt("FLEET_STEPS", 20)
	b.Run(fmt.Sprintf("rules/%dx%d", sessions, steps), func(b *testing.B) {
		benchFleet(b, RulesFactory(rules.DefaultSettings()), sessions, steps, 0)
	})
	b.Run(fmt.Sprintf("note-per-step/%dx%d", sessions, steps), func(b *testing.B) {
		benchFleet(b, perStepFactory, sessions, steps, sessions*steps)
	})
	b.Run(fmt.Sprintf("model-fakellm/%dx%d", sessions, steps), func(b *testing.B) {
		srv := fakellm.StartTest(b, modelScript(sessions*steps))
		m, err := anthropic.New(anthropic.Config{BaseURL: srv.URL(), APIKey: "k", Model: "m"})
		if err != nil {
			b.Fatal(err)
		}
		benchFleet(b, func(info SessionInfo, h advisor.Host) (*advisor.Runtime, error) {
			return advisor.New(advisor.Options{Model: m, Host: h, Start: info.Start})
		}, sessions, steps, sessions*(steps/3))
	})
}

// modelScript is the fakellm script of the model advisor under load: it
// reviews every step, calls advise (an aside) when the step's last
// command failed (every third step of stepEntries), answers its note's
// result with a short text, and has nothing to add otherwise. Each of the
// first n notes is numbered, so that no advisor's guard drops one as a
// repeat of a note it delivered (one rule's steps are served in turn to
// every session). A request
// is told apart by its last message, the only one that carries a
// cache_control marker: a tool result (advise's) or the update's text,
// which ends with the failed command's exit code.
func modelScript(n int) *fakellm.Script {
	const cached = `","cache_control":{"type":"ephemeral"}`
	notes := make([]fakellm.Step, n)
	for i := range notes {
		notes[i] = fakellm.Step{ToolCalls: []fakellm.ToolCall{{
			Name:      "advise",
			Arguments: map[string]any{"note": fmt.Sprintf("That command failed (failure %d): check the path before going on.", i+1), "severity": "nit"},
		}}}
	}
	return &fakellm.Script{Rules: []fakellm.Rule{
		{
			Name:   "advise's result",
			Match:  []string{`"cache_control":{"type":"ephemeral"},"content":[`},
			Steps:  []fakellm.Step{{Text: "Sent."}},
			Repeat: true,
		},
		{
			Name:   "a failed command",
			Match:  []string{`[exit code 2]\n` + "```" + `\n` + cached},
			Steps:  notes,
			Repeat: true,
		},
		{Name: "quiet", Steps: []fakellm.Step{{Text: "Nothing to add."}}, Repeat: true},
	}}
}

// benchFleet runs the load once per b.N; with wantNotes > 0 it also waits
// for that many notes to reach the clients. A run ends when every client
// has heard that each of its steps was reviewed (the agents' view: a
// step's notes come before its review's end); it waits up to 50 minutes
// for that (run the full loads with -timeout 1h). Review latencies are
// the workers' (Reviewed, after the ack); a review whose ack timed out
// although the server took it is reviewed and not redelivered, but has
// no Reviewed: "acked-reviews" says how many the workers reported.
func benchFleet(b *testing.B, factory Factory, sessions, steps, wantNotes int) {
	interval := time.Duration(envInt("FLEET_INTERVAL_MS", 0)) * time.Millisecond
	for range b.N {
		s := natstest.Start(b)
		total := sessions * steps
		var mu sync.Mutex
		var review []time.Duration
		opts := WorkerOptions{Tenant: "bench", Factory: factory, Limits: Limits{LeaseTTL: 5 * time.Second}, OnReviewed: func(r Reviewed) {
			mu.Lock()
			review = append(review, r.Latency)
			mu.Unlock()
		}}
		w1 := runWorker(b, s, opts, nil)
		w2 := runWorker(b, s, opts, nil)
		nc := connect(b, s)
		ensureWith(b, nc, "bench", opts.Limits)
		ctx := context.Background()
		clients := make([]*Client, sessions)
		for i := range clients {
			// A long publish bound: the benchmark floods the server with
			// every session's steps at once, where agents publish a step
			// every few seconds; a step not confirmed is counted as dropped.
			c, err := NewClient(ctx, nc, ClientOptions{Tenant: "bench", Session: fmt.Sprintf("s%d", i), PublishTimeout: time.Minute})
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			clients[i] = c
		}
		var noteLat []time.Duration
		var nmu sync.Mutex
		var readers sync.WaitGroup
		stopReading := make(chan struct{})
		allNotes := make(chan struct{})
		for _, c := range clients {
			readers.Go(func() {
				for {
					select {
					case n := <-c.Notes():
						d := time.Since(n.StepPublished)
						nmu.Lock()
						noteLat = append(noteLat, d)
						if len(noteLat) == wantNotes {
							close(allNotes)
						}
						nmu.Unlock()
					case <-stopReading:
						return
					}
				}
			})
		}
		b.ResetTimer()
		start := time.Now()
		var pubs sync.WaitGroup
		for i, c := range clients {
			sess := fmt.Sprintf("s%d", i)
			pubs.Go(func() {
				var tick <-chan time.Time
				if interval > 0 {
					// Pace the load like agents: one step per interval,
					// sessions spread over the first interval.
					time.Sleep(interval * time.Duration(i) / time.Duration(sessions))
					t := time.NewTicker(interval)
					defer t.Stop()
					tick = t.C
				}
				for j := 1; j <= steps; j++ {
					if tick != nil && j > 1 {
						<-tick
					}
					if _, err := c.Publish(ctx, stepEntries(sess, j, j%3 == 0)); err != nil {
						b.Error(err)
					}
				}
			})
		}
		pubs.Wait()
		wctx, cancel := context.WithTimeout(ctx, 50*time.Minute)
		for _, c := range clients {
			if err := c.WaitBacklogBelow(wctx, 1); err != nil {
				var reviewed int64
				for _, c := range clients {
					reviewed += c.Reviewed()
				}
				b.Fatalf("the clients heard of %d of %d steps reviewed in 50 minutes: %v", reviewed, total, err)
			}
		}
		cancel()
		if wantNotes > 0 {
			select {
			case <-allNotes:
			case <-time.After(time.Minute):
				nmu.Lock()
				b.Errorf("%d of %d notes reached the clients", len(noteLat), wantNotes)
				nmu.Unlock()
			}
		}
		elapsed := time.Since(start)
		b.StopTimer()
		close(stopReading)
		readers.Wait()
		s1, s2 := w1.w.Stats(), w2.w.Stats()
		b.ReportMetric(float64(total)/elapsed.Seconds()/2, "steps/s/worker")
		mu.Lock() // a review's Reviewed may follow its end's note
		b.ReportMetric(ms(pct(review, 50)), "review-p50-ms")
		b.ReportMetric(ms(pct(review, 99)), "review-p99-ms")
		b.ReportMetric(float64(len(review)), "acked-reviews")
		mu.Unlock()
		b.ReportMetric(float64(len(noteLat)), "notes")
		var dropped int64
		for _, c := range clients {
			dropped += c.Dropped()
		}
		b.ReportMetric(float64(dropped), "dropped")
		var repeats int64
		for _, c := range clients {
			repeats += c.Repeats()
		}
		b.ReportMetric(float64(repeats), "repeats")
		if len(noteLat) > 0 {
			b.ReportMetric(ms(pct(noteLat, 50)), "note-p50-ms")
			b.ReportMetric(ms(pct(noteLat, 99)), "note-p99-ms")
		}
		b.Logf("%d sessions x %d steps in %v; worker 1 reviewed %d (%d sessions), worker 2 %d (%d sessions)", sessions, steps, elapsed.Round(time.Millisecond), s1.Reviews, s1.Taken, s2.Reviews, s2.Taken)
	}
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
