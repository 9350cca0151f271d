package supervise

import (
	"context"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

// periodicMember is one advisor of a roster (WATCHDOG.yml) in the
// periodic mode: its runtime and transcript, or why it does not run.
type periodicMember struct {
	decl config.RosterAdvisor
	per  *advisor.Periodic
	rec  *advisorhost.Transcript
	// ref is the model its forks go to; price prices them.
	ref   func() llm.Ref
	price llm.Price
	// problem says why it does not run ("" when it runs).
	problem string
}

// periodicRoster is the roster's periodic advisors as one.
type periodicRoster struct {
	*advisor.PeriodicRoster
	c       *Config
	members []*periodicMember
}

// newPeriodicRoster makes (does not start) a periodic advisor for each
// enabled advisor of the roster over h.Fork: one with a model of its own
// forks onto it, one without onto the host's model (h.ForkRef; nil says
// the host has none, and such an advisor does not run). One
// [advisor.RosterGuard] spans them. It returns nil when none runs.
func newPeriodicRoster(c *Config, h Host) (Advisor, error) {
	logf := h.logf(c)
	rs := c.roster()
	r := &periodicRoster{c: c, PeriodicRoster: &advisor.PeriodicRoster{Guard: advisor.NewRosterGuard(rs.MaxNotesPerUpdate)}}
	for _, decl := range c.RosterOn() {
		m := &periodicMember{decl: decl}
		r.members = append(r.members, m)
		ph := advisor.PeriodicHost(h.Fork)
		switch {
		case decl.Model != "":
			res, err := c.Registry.Resolve(decl.Model)
			var model llm.Model
			if err == nil {
				model, err = res.Open()
			}
			if err != nil {
				m.problem = fmt.Sprintf("no model: %v", err)
				continue
			}
			ref := res.Ref()
			ph, m.ref, m.price = h.Fork.ForkOn(model, ref), func() llm.Ref { return ref }, res.Info.Price
		case h.ForkRef == nil:
			m.problem = "no model (set its model in WATCHDOG.yml, or modelRoles.advisor)"
			continue
		default:
			m.ref = h.ForkRef
			if h.ForkPrice != nil {
				m.price = h.ForkPrice()
			}
		}
		rec, err := advisorhost.OpenNamedTranscript(h.Session, decl.Name, m.ref, logf)
		if err != nil {
			r.Stop()
			return nil, fmt.Errorf("advisor %s: %w", decl.Name, err)
		}
		m.rec = rec
		opts := c.periodicOptions(ph, rec, logf)
		opts.Name, opts.Roster = decl.Name, r.Guard
		if h.Warn != nil {
			opts.OnWarning = h.Warn
		}
		// The documented order: the review guidance, the roster's shared
		// instructions, then the advisor's own.
		opts.Instructions = c.reviewPrompt(decl.Name, decl.Instructions)
		per, err := advisor.NewPeriodic(opts)
		if err != nil {
			r.Stop()
			return nil, fmt.Errorf("advisor %s: %w", decl.Name, err)
		}
		m.per = per
		r.Members = append(r.Members, per)
	}
	for _, m := range r.members {
		if m.problem != "" {
			logf("warning: advisor %s (%s) does not run: %s", m.decl.Name, m.decl.Source, m.problem)
		}
	}
	if len(r.Members) == 0 {
		r.Stop()
		logf("warning: no advisor of the roster (WATCHDOG.yml) can run; the single periodic advisor runs")
		return nil, nil
	}
	return r, nil
}

func (r *periodicRoster) Start()                       { r.PeriodicRoster.Start(context.Background()) }
func (r *periodicRoster) SyncBacklog() int             { return 1 }
func (r *periodicRoster) Rebind(*models.Resolved) bool { return false }

// Stop stops every member, closes its transcript, and says what they
// spent, by model.
func (r *periodicRoster) Stop() Spent {
	r.PeriodicRoster.Stop()
	for _, m := range r.members {
		if m.rec != nil {
			m.rec.Close()
			m.rec = nil
		}
	}
	return r.Spent()
}

// Spent is what the members spent, by the model their forks go to.
func (r *periodicRoster) Spent() Spent {
	var s Spent
	for _, m := range r.members {
		if m.per == nil {
			continue
		}
		st := m.per.Status()
		s.Usage = s.Usage.Add(st.Usage)
		s.ByModel = append(s.ByModel, advisor.ModelUsage{Model: m.ref().String(), Usage: st.Usage})
	}
	return s
}

// Dump is each advisor's reviews under its name.
func (r *periodicRoster) Dump(bool) string {
	var parts []string
	for _, m := range r.members {
		if m.per == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("=== advisor %s (periodic, %s) ===\n%s", m.decl.Name, m.ref(), strings.TrimRight(m.per.Transcript().Compact(), "\n")))
	}
	return strings.Join(parts, "\n\n")
}

// Report is the triggers, then each advisor's model, state, reviews and
// spend; its line the advisors that run, whether any reviews, and their
// reviews and cost.
func (r *periodicRoster) Report(Spent) Report {
	text := r.text()
	return Report{Text: text, Line: r.line(), Roster: text}
}

func (r *periodicRoster) text() string {
	c := r.c
	var b strings.Builder
	fmt.Fprintf(&b, "Advisors (WATCHDOG.yml roster, periodic mode, at most %d corrections per step in all", max(c.roster().MaxNotesPerUpdate, 1))
	if len(r.Members) > 0 {
		b.WriteString(triggersText(r.Members[0].Status()))
	} else {
		b.WriteString(").")
	}
	for _, m := range r.members {
		fmt.Fprintf(&b, "\n- %s: ", m.decl.Name)
		if m.per == nil {
			fmt.Fprintf(&b, "not running, %s (%s).", m.problem, m.decl.Source)
			continue
		}
		st := m.per.Status()
		state := "idle"
		switch {
		case st.InFlight:
			state = "reviewing"
		case st.Due:
			state = "a review is due"
		}
		fmt.Fprintf(&b, "running (%s) on %s;%s Spend: $%.4f.", state, m.ref(), periodicCounts(st, false), m.price.Cost(st.Usage))
	}
	offMembers(c, &b)
	if !c.Settings.Advisor.AllowPromptInjection {
		b.WriteString("\nCorrections are withheld from the agent (advisor.allowPromptInjection is false): blocked ones are shown here, in the transcript and in the log, never in the agent's context.")
	}
	return b.String()
}

func (r *periodicRoster) line() Line {
	l := Line{On: true}
	var names []string
	for _, m := range r.members {
		if m.per == nil {
			continue
		}
		names = append(names, m.decl.Name)
		st := m.per.Status()
		l.Reviewing = l.Reviewing || st.InFlight || st.Due
		l.Reviews += st.Reviews
		l.Cost += m.price.Cost(st.Usage)
	}
	l.Model = fmt.Sprintf("periodic, %d of %d: %s", len(names), len(r.members), strings.Join(names, ", "))
	if len(names) < len(r.members) {
		l.Warning = "some advisors of the roster do not run (/advisor status)"
	}
	return l
}
