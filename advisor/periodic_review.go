package advisor

import (
	"context"
	"fmt"
	"time"

	"github.com/vigil-dev/vigil/llm"
)

// PeriodicOutcome is how a periodic review ended.
type PeriodicOutcome string

// The outcomes of a periodic review. The first seven settle it (the
// counters reset); a cancelled review and one that stood down do not.
const (
	// OutcomeNoChange: the reply was NO_CHANGE.
	OutcomeNoChange PeriodicOutcome = "no_change"
	// OutcomeSteered: the correction was steered into the run.
	OutcomeSteered PeriodicOutcome = "steered"
	// OutcomeMalformed: the reply had neither shape; nothing delivered.
	OutcomeMalformed PeriodicOutcome = "malformed"
	// OutcomeBlocked: the host's policy forbids injecting the correction.
	OutcomeBlocked PeriodicOutcome = "blocked"
	// OutcomeDropped: the run ended, or the host refused, before the
	// correction could be delivered.
	OutcomeDropped PeriodicOutcome = "dropped"
	// OutcomeFailed: the fork failed or timed out.
	OutcomeFailed PeriodicOutcome = "failed"
	// OutcomeHeld: the roster's guard ([PeriodicOptions.Roster]) held the
	// correction back: another advisor of the roster made the point, or
	// the roster's notes for this step are given.
	OutcomeHeld PeriodicOutcome = "held"
	// OutcomeCancelled: the run ended, or the runtime stopped, while the
	// review was in flight; its reply, if any, was discarded.
	OutcomeCancelled PeriodicOutcome = "cancelled"
	// OutcomeStoodDown: a tool call started between queueing and
	// dispatch; the review stays due.
	OutcomeStoodDown PeriodicOutcome = "stood_down"
)

// PeriodicStatus is a snapshot of a periodic runtime.
type PeriodicStatus struct {
	// EveryToolCalls and EveryMinutes are the triggers; Off says both
	// are 0.
	EveryToolCalls, EveryMinutes int
	Off                          bool
	// ToolCalls and RunTime are counted since the last settled review.
	ToolCalls int
	RunTime   time.Duration
	// Due says a review is due; InFlight that one is running.
	Due, InFlight bool
	// Reviews counts the settled reviews, and the fields after it each
	// outcome (Cancelled and StoodDown are not in Reviews).
	Reviews                                                      int
	NoChange, Steered, Malformed, Blocked, Dropped, Failed, Held int
	Cancelled, StoodDown                                         int
	// Last is the outcome of the latest review; "" before the first.
	Last PeriodicOutcome
	// Usage sums the usage of every fork's reply, consults included.
	Usage llm.Usage
	// Consults counts the agent's questions answered ([Periodic.Consult]),
	// apart from Reviews; ConsultFailures those that failed or ran out
	// of time, ConsultsRefused those refused at once (the per-run cap);
	// ConsultUsage is the consults' part of Usage.
	Consults, ConsultFailures, ConsultsRefused int
	ConsultUsage                               llm.Usage
}

// Status returns a snapshot of the runtime's counters.
func (p *Periodic) Status() PeriodicStatus {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	st := p.status
	st.ToolCalls = p.calls
	st.RunTime = p.runTimeLocked(now)
	st.Due = !p.off && p.dueLocked(now)
	st.InFlight = p.inFlight != nil
	return st
}

// maxExchanges bounds the reviews Transcript keeps, two messages each.
const maxExchanges = 50

// Transcript returns the latest reviews' exchanges, oldest first: each
// review prompt and the fork's reply. The forked conversation itself is
// the primary's own and is not repeated; System is empty.
func (p *Periodic) Transcript() Transcript {
	p.mu.Lock()
	defer p.mu.Unlock()
	return Transcript{Messages: append([]llm.Message(nil), p.exchanges...)}
}

func (p *Periodic) loop(ctx context.Context) {
	p.prime(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.wake:
		}
		p.look(ctx)
		if p.beforeDispatch != nil {
			p.beforeDispatch()
		}
		p.dispatch(ctx)
	}
}

// dispatch starts the queued review, unless a call started since it was
// queued: a fork then would hold a call without its result, which a
// provider answers with made-up failures and the review with false
// advice. It stands down instead, and stays due.
func (p *Periodic) dispatch(ctx context.Context) {
	p.mu.Lock()
	if !p.queued {
		p.mu.Unlock()
		return
	}
	p.queued = false
	if p.inFlight != nil || p.consulting || p.run == "" {
		// Not reached (arming needs a run and no review in flight, and a
		// run's end unqueues), but a queue left set would hold the agent
		// at its boundary.
		p.broadcastLocked()
		p.mu.Unlock()
		return
	}
	fresh := p.starts == p.queuedAt
	if g := p.opts.Roster; g != nil {
		// A roster's reviews of one boundary fork, or stand down, as one.
		fresh = g.dispatch(p.queuedStep, fresh)
	}
	if !fresh {
		p.status.StoodDown++
		p.status.Last = OutcomeStoodDown
		p.broadcastLocked()
		p.mu.Unlock()
		p.logf("advisor: review stood down: a tool call started after it was queued; it stays due until that call's result")
		return
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rv := &review{run: p.run, cancel: cancel}
	p.inFlight = rv
	calls, runTime := p.calls, p.runTimeLocked(time.Now())
	p.broadcastLocked()
	p.mu.Unlock()
	p.logf("advisor: review started after %d tool calls and %s of run time", calls, runTime.Round(time.Second))
	p.review(rctx, rv)
}

// review runs one review: the fork, the verdict, and the steer.
func (p *Periodic) review(ctx context.Context, rv *review) {
	instructions := ""
	if p.opts.Instructions != nil {
		instructions = p.opts.Instructions()
	}
	p.mu.Lock()
	seen := seenText(p.seen)
	p.mu.Unlock()
	prompt := ReviewPrompt(instructions) + seen
	fctx, cancel := context.WithTimeout(ctx, p.opts.ReviewTimeout)
	reply, err := p.opts.Host.Fork(fctx, prompt)
	cancel()
	if ctx.Err() != nil {
		// The run ended, or the runtime stopped: whatever came back is
		// about a run that is over.
		p.finish(OutcomeCancelled, llm.Usage{}, false)
		p.logf("advisor: review cancelled: its run ended or the advisor stopped; any reply is discarded")
		return
	}
	if err != nil {
		p.finish(OutcomeFailed, llm.Usage{}, true)
		p.warn(fmt.Sprintf("advisor: review failed: %v", err))
		return
	}
	p.record(prompt, reply)
	outcome := OutcomeMalformed
	switch verdict, correction := ParseReview(reply.Reply.Text()); verdict {
	case VerdictNoChange:
		outcome = OutcomeNoChange
		p.logf("advisor: review complete: NO_CHANGE")
	case VerdictCorrection:
		outcome = p.steer(ctx, rv.run, correction)
	default:
		p.logf("advisor: review reply malformed (first line neither NO_CHANGE nor CORRECTION with a correction); nothing delivered: %q", clip(reply.Reply.Text(), 200))
	}
	p.finish(outcome, reply.Usage, true)
}

// steer delivers a correction to the run the review was forked in.
func (p *Periodic) steer(ctx context.Context, run, correction string) PeriodicOutcome {
	note := Advice{Note: correction, Severity: SeverityConcern, Advisor: p.opts.Name}
	g := p.opts.Roster
	if g != nil {
		if d := g.reserve(note); !d.Deliver {
			p.logf("advisor: correction held back (%s): %q", d.Reason, clip(correction, 200))
			return OutcomeHeld
		}
	}
	outcome := p.deliver(ctx, run, note)
	if g != nil {
		if outcome == OutcomeSteered {
			g.commit(note)
		} else {
			g.release(note)
		}
	}
	return outcome
}

// deliver steers note into run, or says why it was not.
func (p *Periodic) deliver(ctx context.Context, run string, note Advice) PeriodicOutcome {
	correction := note.Note
	res, err := p.opts.Host.SteerRun(ctx, run, note)
	switch {
	case err != nil:
		p.logf("advisor: correction not delivered: %v", err)
		return OutcomeDropped
	case res.Outcome == SteerDelivered:
		p.logf("advisor: steered active run")
		return OutcomeSteered
	case res.Outcome == SteerBlocked:
		p.logf("advisor: correction not delivered (blocked by %s): %q", res.Reason, clip(correction, 200))
		// The user still sees what the review found: trying the advisor
		// with injection off is how they learn whether to trust it.
		if w, ok := p.opts.Host.(Withholder); ok {
			if err := w.Withhold(ctx, note); err != nil {
				p.logf("advisor: showing the blocked correction: %v", err)
			}
		}
		return OutcomeBlocked
	case res.Outcome == SteerRunEnded:
		p.logf("advisor: correction dropped: the run ended before it could be delivered")
		return OutcomeDropped
	}
	p.logf("advisor: correction not delivered (refused: %s)", res.Reason)
	return OutcomeDropped
}

// finish ends the review in flight with outcome; a settled one resets
// the counters.
func (p *Periodic) finish(outcome PeriodicOutcome, usage llm.Usage, settled bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inFlight = nil
	p.status.Last = outcome
	switch outcome {
	case OutcomeNoChange:
		p.status.NoChange++
	case OutcomeSteered:
		p.status.Steered++
	case OutcomeMalformed:
		p.status.Malformed++
	case OutcomeBlocked:
		p.status.Blocked++
	case OutcomeDropped:
		p.status.Dropped++
	case OutcomeFailed:
		p.status.Failed++
	case OutcomeHeld:
		p.status.Held++
	case OutcomeCancelled:
		p.status.Cancelled++
	}
	p.status.Usage = p.status.Usage.Add(usage)
	if settled {
		p.status.Reviews++
		p.calls, p.active = 0, 0
		p.pulled, p.seen = false, nil
		p.runStart = time.Now()
	}
	p.broadcastLocked()
}

// record keeps a review's exchange and hands it to the Recorder.
func (p *Periodic) record(prompt string, reply ForkReply) {
	msgs := []llm.Message{llm.UserText(prompt), reply.Reply}
	p.mu.Lock()
	p.exchanges = append(p.exchanges, msgs...)
	if n := len(p.exchanges) - 2*maxExchanges; n > 0 {
		p.exchanges = append([]llm.Message(nil), p.exchanges[n:]...)
	}
	p.mu.Unlock()
	if p.opts.Recorder != nil {
		p.opts.Recorder.Record(msgs[0], llm.Usage{})
		p.opts.Recorder.Record(msgs[1], reply.Usage)
	}
}

// clip cuts s to at most n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
