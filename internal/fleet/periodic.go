package fleet

// The periodic advisor on a worker: a [Reviewer] over advisor.Periodic,
// whose host forks the worker's view of the session onto the worker's
// model and steers its corrections back as the session's notes.

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// DefaultMaxFork bounds the rendered transcript a periodic fork sends
// when [PeriodicConfig.MaxFork] is 0, in bytes (about 50,000 tokens).
const DefaultMaxFork = advisor.DefaultForkTranscript

// PeriodicConfig configures the periodic reviewer of [PeriodicFactory].
type PeriodicConfig struct {
	// Model answers the forks; Ref names it, and the forks' usage is
	// counted under Ref.String(). Required.
	Model llm.Model
	Ref   llm.Ref
	// Render turns the session's view (the steps the worker has seen
	// since the last compaction or rewrite; after a takeover, the bounded
	// tail it was primed with) into the transcript the fork is sent: in
	// vigil serve, the advisor's rendering with secrets redacted.
	// Required.
	Render func([]session.Entry) string
	// Redact, if set, hides secrets in the review prompt (it carries the
	// user's review instructions).
	Redact func(string) string
	// MaxFork bounds the rendered transcript, in bytes; its beginning is
	// cut. 0 means [DefaultMaxFork].
	MaxFork int
	// AllowInjection is advisor.allowPromptInjection: false blocks every
	// steer, and the correction goes back as a withheld note instead.
	AllowInjection bool
	// Options returns the periodic runtime's options for a session (its
	// triggers, instructions, logging); their Host is the worker's.
	// Required.
	Options func(info SessionInfo) advisor.PeriodicOptions
}

// PeriodicFactory runs the periodic advisor ([advisor.Periodic]) for each
// session. A worker sees the session's steps, not its agent, so the
// runtime's events are made from them: a run starts with the first step
// after none is going (or with a run_started the step carries) and ends
// with the run_ended or user_interrupted the agent publishes; every tool
// call of a step's assistant message starts, and settles with its result
// in the step. A review due when a step's last call settles is forked
// from the worker's view of the session onto c.Model, and a correction is
// steered back as a note of that step (KindSteer), with the step's note
// ids, so that it reaches the agent once.
func PeriodicFactory(c PeriodicConfig) (ReviewerFactory, error) {
	if c.Model == nil || c.Render == nil || c.Options == nil {
		return nil, errors.New("fleet: PeriodicConfig needs Model, Render and Options")
	}
	if c.MaxFork <= 0 {
		c.MaxFork = DefaultMaxFork
	}
	return func(info SessionInfo, h advisor.Host) (Reviewer, error) {
		ph := &periodicHost{Host: h, c: &c}
		opts := c.Options(info)
		opts.Host = ph
		p, err := advisor.NewPeriodic(opts)
		if err != nil {
			return nil, fmt.Errorf("fleet: periodic advisor of session %s: %w", info.Session, err)
		}
		return &periodicReviewer{p: p, h: ph, model: c.Ref.String()}, nil
	}, nil
}

// periodicReviewer is the [Reviewer] over one session's periodic runtime.
type periodicReviewer struct {
	p     *advisor.Periodic
	h     *periodicHost
	model string
}

func (r *periodicReviewer) Start(ctx context.Context) { r.p.Start(ctx) }
func (r *periodicReviewer) Stop()                     { r.p.Stop() }

// Notify passes on a run's start and end (the run the worker made up
// ends too); tool events are made from the steps, so those published are
// left out, and the rest the periodic runtime ignores.
func (r *periodicReviewer) Notify(ev advisor.Event) {
	switch ev.Kind {
	case advisor.EventRunStarted:
		if ev.Run == "" {
			return
		}
		r.h.setRun(ev.Run)
		r.p.Notify(ev)
	case advisor.EventRunEnded, advisor.EventUserInterrupted:
		if run := r.h.setRun(""); run != "" {
			r.p.Notify(advisor.Event{Kind: advisor.EventRunEnded, Run: run})
		}
	}
}

// Review reports the step's calls, all started once the reply is known
// and then settled in their results' order, and waits for a review they
// made due.
func (r *periodicReviewer) Review(ctx context.Context, step StepEnd) error {
	var started, settled []advisor.CallKey
	for _, e := range step.Entries {
		m, ok := e.Body.(*session.Message)
		if !ok {
			continue
		}
		for _, b := range m.Message.Content {
			switch {
			case b.Type == llm.BlockToolCall && m.Message.Role == llm.RoleAssistant && b.ID != "":
				started = append(started, advisor.CallKey{ID: b.ID})
			case b.Type == llm.BlockToolResult && b.ID != "":
				settled = append(settled, advisor.CallKey{ID: b.ID})
			}
		}
	}
	if len(started) == 0 && len(settled) == 0 {
		return nil
	}
	if r.h.run() == "" {
		run := fmt.Sprintf("step-%d", step.Seq)
		r.h.setRun(run)
		r.p.Notify(advisor.Event{Kind: advisor.EventRunStarted, Run: run, Trigger: advisor.TriggerUser})
	}
	for _, k := range started {
		r.p.Notify(advisor.Event{Kind: advisor.EventToolStarted, Call: k})
	}
	for _, k := range settled {
		r.p.Notify(advisor.Event{Kind: advisor.EventToolSettled, Call: k})
	}
	if err := r.p.WaitReview(ctx); err != nil && !errors.Is(err, advisor.ErrStopped) {
		return fmt.Errorf("waiting for the periodic review: %w", err)
	}
	return nil
}

func (r *periodicReviewer) Usage() []advisor.ModelUsage {
	u := r.p.Status().Usage
	if u == (llm.Usage{}) {
		return nil
	}
	return []advisor.ModelUsage{{Model: r.model, Usage: u}}
}

// periodicHost is the [advisor.PeriodicHost] of a session on a worker:
// the worker's host, the run the reviewer made up from the steps, and
// forks of the worker's view onto the worker's model.
type periodicHost struct {
	advisor.Host
	c *PeriodicConfig

	mu     sync.Mutex
	curRun string
}

var (
	_ advisor.PeriodicHost = (*periodicHost)(nil)
	_ advisor.Withholder   = (*periodicHost)(nil)
)

// setRun records the run going ("" for none) and returns the one before.
func (h *periodicHost) setRun(run string) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.curRun
	h.curRun = run
	return old
}

func (h *periodicHost) run() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.curRun
}

// Withhold implements [advisor.Withholder]: the worker's host's, when it
// has one.
func (h *periodicHost) Withhold(ctx context.Context, a advisor.Advice) error {
	if w, ok := h.Host.(advisor.Withholder); ok {
		if err := w.Withhold(ctx, a); err != nil {
			return fmt.Errorf("withholding the correction: %w", err)
		}
	}
	return nil
}

// SteerRun implements [advisor.PeriodicHost]: a correction for the run
// going becomes a steer note of the step under review.
func (h *periodicHost) SteerRun(ctx context.Context, run string, note advisor.Advice) (advisor.SteerResult, error) {
	if !h.c.AllowInjection {
		return advisor.SteerResult{Outcome: advisor.SteerBlocked, Reason: "advisor.allowPromptInjection=false"}, nil
	}
	if run == "" || run != h.run() {
		return advisor.SteerResult{Outcome: advisor.SteerRunEnded}, nil
	}
	if err := h.Host.Steer(ctx, note); err != nil {
		return advisor.SteerResult{}, fmt.Errorf("steering the correction: %w", err)
	}
	return advisor.SteerResult{Outcome: advisor.SteerDelivered}, nil
}

// Fork implements [advisor.PeriodicHost]. A worker has the agent's
// transcript, not its requests: the fork renders the worker's view into
// one user message, followed by the review prompt, and asks the worker's
// model. No prompt cache is shared with the agent.
func (h *periodicHost) Fork(ctx context.Context, prompt string) (advisor.ForkReply, error) {
	view, _, err := h.Host.View(ctx)
	if err != nil {
		return advisor.ForkReply{}, fmt.Errorf("fork: the session's view: %w", err)
	}
	view = advisor.SettledPath(view)
	if h.c.Redact != nil {
		prompt = h.c.Redact(prompt)
	}
	at := ""
	if len(view) > 0 {
		at = view[len(view)-1].ID
	}
	return advisor.ForkTranscript(ctx, h.c.Model, h.c.Ref, h.c.Render(view), prompt, at, h.c.MaxFork)
}
