package sidecar

import (
	"context"
	"errors"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/llm"
)

// PeriodicHost is the [advisor.PeriodicHost] of an attached agent: its
// [Host], plus the fork and the run-scoped steer the periodic mode needs.
//
// The agent's own requests cannot be forked from outside it: vigil sees
// its transcript, not its system prompt or tools. So a fork here renders
// what the agent's model sees now (its latest entries since the last
// compaction, bounded to MaxFork bytes, tool output cut as for the
// advisor, secrets redacted) into one user message, followed by the
// review prompt, and asks Model: the agent's own model when vigil can
// use it, else the advisor's. No prompt cache is shared with the agent.
type PeriodicHost struct {
	*Host
	// Model answers forks; Ref names it.
	Model llm.Model
	Ref   llm.Ref
	// AllowInjection is advisor.allowPromptInjection: false blocks every
	// steer, and the runtime shows the correction through the Host's
	// [Host.Withhold] instead.
	AllowInjection bool
	// Redactor hides secrets from the fork; nil hides none.
	Redactor *history.Redactor
	// MaxFork bounds the rendered transcript a fork sends; 0 means
	// DefaultMaxFork.
	MaxFork int

	mu  sync.Mutex
	run string // the run going now, "" when none
	// pendingRun is the run the interrupting notes queued by SteerRun
	// are for, so they are dropped when it ends undelivered.
	pendingRun string
}

// DefaultMaxFork is the transcript a fork sends at most, in bytes (about
// 50,000 tokens).
const DefaultMaxFork = advisor.DefaultForkTranscript

// setRun records the run going now ("" when none). A note SteerRun queued
// for a run that ended undelivered is dropped.
func (p *PeriodicHost) setRun(run string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.run != "" && run != p.run && p.pendingRun == p.run {
		p.Host.dropSteers()
		p.pendingRun = ""
	}
	p.run = run
}

// Run names the run going now, "" when none.
func (p *PeriodicHost) Run() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.run
}

// SteerRun implements [advisor.PeriodicHost]: the note waits for the
// run's next tool boundary (or its Stop, which it then blocks).
func (p *PeriodicHost) SteerRun(ctx context.Context, run string, note advisor.Advice) (advisor.SteerResult, error) {
	if !p.AllowInjection {
		return advisor.SteerResult{Outcome: advisor.SteerBlocked, Reason: "advisor.allowPromptInjection=false"}, nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if run == "" || run != p.run {
		return advisor.SteerResult{Outcome: advisor.SteerRunEnded}, nil
	}
	p.pendingRun = run
	if err := p.Host.Steer(ctx, note); err != nil {
		return advisor.SteerResult{}, err
	}
	return advisor.SteerResult{Outcome: advisor.SteerDelivered}, nil
}

// ForkOn returns the host as one advisor of a roster sees it: the same
// runs and steers, but its forks go to model (named ref) instead of
// Model; nil keeps Model.
func (p *PeriodicHost) ForkOn(model llm.Model, ref llm.Ref) advisor.PeriodicHost {
	if model == nil {
		return p
	}
	return forkOn{p, model, ref}
}

// forkOn is [PeriodicHost.ForkOn]'s host.
type forkOn struct {
	*PeriodicHost
	model llm.Model
	ref   llm.Ref
}

func (f forkOn) Fork(ctx context.Context, prompt string) (advisor.ForkReply, error) {
	return f.fork(ctx, prompt, f.model, f.ref)
}

// Fork implements [advisor.PeriodicHost] (see the type's doc for how it
// differs from the built-in agent's fork).
func (p *PeriodicHost) Fork(ctx context.Context, prompt string) (advisor.ForkReply, error) {
	return p.fork(ctx, prompt, p.Model, p.Ref)
}

// fork is Fork onto model.
func (p *PeriodicHost) fork(ctx context.Context, prompt string, model llm.Model, ref llm.Ref) (advisor.ForkReply, error) {
	if model == nil {
		return advisor.ForkReply{}, errors.New("fork: no model to ask")
	}
	view, _, err := p.Host.View(ctx)
	if err != nil {
		return advisor.ForkReply{}, err
	}
	view = advisor.SettledPath(view)
	opts := history.AdvisorOptions(p.Redactor)
	opts.Title = "Your work so far"
	at := ""
	if len(view) > 0 {
		at = view[len(view)-1].ID
	}
	// The review prompt carries the user's reviewInstructions: it leaves
	// the process too.
	return advisor.ForkTranscript(ctx, model, ref, history.Render(view, opts), p.Redactor.Redact(prompt), at, p.MaxFork)
}
