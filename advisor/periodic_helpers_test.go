package advisor

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/vigil-dev/vigil/llm"
)

// periodicHost is a PeriodicHost whose forks the test answers: each Fork
// hands the test a forkCall on forks and waits for its answer.
type periodicHost struct {
	fakeHost
	forks chan forkCall
	// lateReplies makes Fork wait for its answer even after ctx is done,
	// as a host that cannot abandon a fork would.
	lateReplies bool

	mu       sync.Mutex
	steers   []steerCall
	result   SteerResult
	withheld []Advice
}

var (
	_ PeriodicHost = (*periodicHost)(nil)
	_ Withholder   = (*periodicHost)(nil)
)

// Withhold records a correction the host blocked, as shown to the user.
func (h *periodicHost) Withhold(_ context.Context, note Advice) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.withheld = append(h.withheld, note)
	return nil
}

type forkCall struct {
	prompt string
	ctx    context.Context
	answer chan forkAnswer
}

type forkAnswer struct {
	reply ForkReply
	err   error
}

type steerCall struct {
	run  string
	note Advice
}

func (h *periodicHost) Fork(ctx context.Context, prompt string) (ForkReply, error) {
	c := forkCall{prompt: prompt, ctx: ctx, answer: make(chan forkAnswer, 1)}
	select {
	case h.forks <- c:
	case <-ctx.Done():
		return ForkReply{}, ctx.Err()
	}
	if h.lateReplies {
		a := <-c.answer
		return a.reply, a.err
	}
	select {
	case a := <-c.answer:
		return a.reply, a.err
	case <-ctx.Done():
		return ForkReply{}, ctx.Err()
	}
}

func (h *periodicHost) SteerRun(_ context.Context, run string, note Advice) (SteerResult, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.steers = append(h.steers, steerCall{run: run, note: note})
	if h.result.Outcome == "" {
		return SteerResult{Outcome: SteerDelivered}, nil
	}
	return h.result, nil
}

func (h *periodicHost) steerCalls() []steerCall {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]steerCall(nil), h.steers...)
}

// pt drives a Periodic runtime inside a synctest bubble: every call
// returns once the runtime's goroutine is blocked, so what it did is
// settled and a test needs no sleep.
type pt struct {
	t    *testing.T
	p    *Periodic
	host *periodicHost

	mu       sync.Mutex
	logs     []string
	warnings []string
}

// periodic starts a runtime over a fresh host; call it inside a bubble.
// The runtime is stopped when the bubble's function returns.
func periodic(t *testing.T, opts PeriodicOptions) *pt {
	t.Helper()
	x := unstarted(t, opts)
	x.p.Start(context.Background())
	return x
}

// unstarted is periodic without the Start, for a test that sets the host
// up first.
func unstarted(t *testing.T, opts PeriodicOptions) *pt {
	t.Helper()
	x := &pt{t: t, host: &periodicHost{forks: make(chan forkCall)}}
	opts.Host = x.host
	opts.Logf = func(format string, args ...any) {
		x.mu.Lock()
		x.logs = append(x.logs, fmt.Sprintf(format, args...))
		x.mu.Unlock()
	}
	opts.OnWarning = func(s string) {
		x.mu.Lock()
		x.warnings = append(x.warnings, s)
		x.mu.Unlock()
	}
	p, err := NewPeriodic(opts)
	if err != nil {
		t.Fatal(err)
	}
	x.p = p
	return x
}

func (x *pt) notify(ev Event) {
	x.p.Notify(ev)
	synctest.Wait()
}

// The events of the agent, by name.
func (x *pt) runStarted(run, trigger string) {
	x.notify(Event{Kind: EventRunStarted, Run: run, Trigger: trigger})
}
func (x *pt) runEnded(run string) { x.notify(Event{Kind: EventRunEnded, Run: run}) }
func (x *pt) started(k CallKey, parent ...CallKey) {
	ev := Event{Kind: EventToolStarted, Call: k}
	if len(parent) > 0 {
		ev.Parent = parent[0]
	}
	x.notify(ev)
}
func (x *pt) settled(k CallKey, parent ...CallKey) {
	ev := Event{Kind: EventToolSettled, Call: k}
	if len(parent) > 0 {
		ev.Parent = parent[0]
	}
	x.notify(ev)
}

// call is one top-level call of the agent's own, started and settled.
func (x *pt) call(id string) {
	x.started(agentCall(id))
	x.settled(agentCall(id))
}

func agentCall(id string) CallKey { return CallKey{Source: "agent", ID: id} }

// fork returns the fork the runtime asked for, failing if it asked none.
func (x *pt) fork() forkCall {
	x.t.Helper()
	synctest.Wait()
	select {
	case c := <-x.host.forks:
		return c
	default:
		x.t.Fatalf("no fork; status %+v; log %q", x.p.Status(), x.log())
		return forkCall{}
	}
}

// noFork fails if the runtime asked for a fork.
func (x *pt) noFork(when string) {
	x.t.Helper()
	synctest.Wait()
	select {
	case c := <-x.host.forks:
		x.t.Fatalf("forked %s (prompt %.40q)", when, c.prompt)
	default:
	}
}

// answer replies to a fork with text and waits for the runtime to act.
func (x *pt) answer(c forkCall, text string) {
	c.answer <- forkAnswer{reply: ForkReply{Reply: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(text)}}, Usage: llm.Usage{Input: 75, CacheRead: 20000}}}
	synctest.Wait()
}

func (x *pt) fail(c forkCall, err error) {
	c.answer <- forkAnswer{err: err}
	synctest.Wait()
}

func (x *pt) log() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.logs...)
}

func (x *pt) warns() []string {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]string(nil), x.warnings...)
}

// logged fails unless a log line contains s.
func (x *pt) logged(s string) {
	x.t.Helper()
	for _, l := range x.log() {
		if strings.Contains(l, s) {
			return
		}
	}
	x.t.Errorf("no log line contains %q; log:\n%s", s, strings.Join(x.log(), "\n"))
}

// bubble runs f in a synctest bubble with a runtime started by opts,
// stopped when f returns.
func bubble(t *testing.T, opts PeriodicOptions, f func(x *pt)) {
	synctest.Test(t, func(t *testing.T) {
		x := periodic(t, opts)
		defer x.p.Stop()
		f(x)
	})
}
