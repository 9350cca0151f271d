package supervise

import (
	"context"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

// periodic is the single advisor of the periodic mode: it counts the
// runs' tool calls and run time, forks the session onto the host's
// model when a review is due, and steers a correction into the run.
type periodic struct {
	c     *Config
	h     Host
	per   *advisor.Periodic
	rec   *advisorhost.Transcript
	allow bool
}

// newPeriodic makes (does not start) the single periodic advisor over
// h.Fork, recording in h.Session's artifacts folder.
func newPeriodic(c *Config, h Host) (Advisor, error) {
	logf := h.logf(c)
	ref := h.ForkRef
	if ref == nil {
		ref = func() llm.Ref { return llm.Ref{} }
	}
	rec, err := advisorhost.OpenTranscript(h.Session, ref, logf)
	if err != nil {
		return nil, err
	}
	opts := c.periodicOptions(h.Fork, rec, logf)
	// The roster of one: its review guidance is followed by WATCHDOG.yml's
	// shared instructions, as a roster's periodic advisor's is.
	if c.roster().Instructions != "" {
		opts.Instructions = c.reviewPrompt("", "")
	}
	if h.Warn != nil {
		opts.OnWarning = h.Warn // in the session too, where the user looks
	}
	per, err := advisor.NewPeriodic(opts)
	if err != nil {
		rec.Close()
		return nil, err
	}
	return &periodic{c: c, h: h, per: per, rec: rec, allow: c.Settings.Advisor.AllowPromptInjection}, nil
}

func (p *periodic) Start()                  { p.per.Start(context.Background()) }
func (p *periodic) Notify(ev advisor.Event) { p.per.Notify(ev) }
func (p *periodic) SyncBacklog() int        { return 1 }

// WaitBacklogBelow waits for the review forked last.
func (p *periodic) WaitBacklogBelow(ctx context.Context, _ int) error { return p.per.WaitReview(ctx) }

func (p *periodic) Consult(ctx context.Context, question string) (string, error) {
	return p.per.Consult(ctx, question)
}

func (p *periodic) Rebind(*models.Resolved) bool { return false }

func (p *periodic) Spent() Spent { return Spent{Usage: p.per.Status().Usage} }

func (p *periodic) Stop() Spent {
	p.per.Stop()
	p.rec.Close()
	return p.Spent()
}

func (p *periodic) Dump(bool) string {
	return strings.TrimRight(p.per.Transcript().Compact(), "\n")
}

// forkModel is the model the host's forks run on, and its price; ok is
// false when it has none.
func (p *periodic) forkModel() (llm.Ref, llm.Price, bool) {
	if p.h.ForkRef == nil {
		return llm.Ref{}, llm.Price{}, false
	}
	ref := p.h.ForkRef()
	if ref == (llm.Ref{}) {
		return ref, llm.Price{}, false
	}
	var price llm.Price
	if p.h.ForkPrice != nil {
		price = p.h.ForkPrice()
	}
	return ref, price, true
}

// Report is the mode and its triggers, the counters since the last
// review, the reviews by outcome, the last one, and the spend.
func (p *periodic) Report(prior Spent) Report {
	st := p.per.Status()
	ref, price, ok := p.forkModel()
	var b strings.Builder
	b.WriteString("Advisor is enabled (periodic mode, on the agent's model")
	if ok {
		fmt.Fprintf(&b, " %s", ref)
	}
	b.WriteString(triggersText(st))
	b.WriteString(periodicCounts(st, true))
	if !p.allow {
		b.WriteString(" Corrections are withheld from the agent (advisor.allowPromptInjection is false): blocked ones are shown here, in the transcript and in the log, never in the agent's context.")
	}
	u := prior.Usage.Add(st.Usage)
	fmt.Fprintf(&b, " Spend: %s input, %s output, %s cache read", Group(u.Input), Group(u.Output), Group(u.CacheRead))
	if u.CacheWrite > 0 {
		fmt.Fprintf(&b, ", %s cache write", Group(u.CacheWrite))
	}
	if ok {
		fmt.Fprintf(&b, ", $%.4f", price.Cost(u))
	}
	b.WriteString(".")
	return Report{
		Text: b.String(),
		Line: Line{On: true, Model: "periodic on " + ref.String(), Reviewing: st.InFlight || st.Due, Reviews: st.Reviews, Cost: price.Cost(u)},
	}
}
