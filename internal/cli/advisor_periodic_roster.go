package cli

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/config"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/tui"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// forkHost is a periodic host whose forks can go to another model, so
// that each advisor of a roster forks onto its own (advisorhost.Periodic
// in vigil's agent, sidecar.PeriodicHost in a sidecar).
type forkHost interface {
	advisor.PeriodicHost
	ForkOn(model llm.Model, ref llm.Ref) advisor.PeriodicHost
}

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

// periodicRoster is the roster's periodic advisors as one advisor.
type periodicRoster struct {
	*advisor.PeriodicRoster
	members []*periodicMember
}

// newPeriodicRoster makes (does not start) a periodic advisor for each
// enabled advisor of the roster over host: one with a model of its own
// forks onto it, one without onto the host's model (the agent's own in
// vigil's agent, the advisor model in a sidecar), which hostRef names
// and hostPrice prices; hostRef nil says the host has none, and such an
// advisor does not run. One [advisor.RosterGuard] spans them. warn, when
// set, is told of each advisor's supervision warnings (logf otherwise).
// It returns nil when none runs.
func (a *app) newPeriodicRoster(host forkHost, sess *session.Session, hostRef func() llm.Ref, hostPrice func() llm.Price, warn func(string), logf func(string, ...any)) (*periodicRoster, error) {
	roster := a.loadRoster()
	r := &periodicRoster{PeriodicRoster: &advisor.PeriodicRoster{Guard: advisor.NewRosterGuard(roster.MaxNotesPerUpdate)}}
	for _, decl := range a.rosterOn() {
		m := &periodicMember{decl: decl}
		r.members = append(r.members, m)
		h := advisor.PeriodicHost(host)
		switch {
		case decl.Model != "":
			res, err := a.registry.Resolve(decl.Model)
			var model llm.Model
			if err == nil {
				model, err = res.Open()
			}
			if err != nil {
				m.problem = fmt.Sprintf("no model: %v", err)
				continue
			}
			ref := res.Ref()
			h, m.ref, m.price = host.ForkOn(model, ref), func() llm.Ref { return ref }, res.Info.Price
		case hostRef == nil:
			m.problem = "no model (set its model in WATCHDOG.yml, or modelRoles.advisor)"
			continue
		default:
			m.ref, m.price = hostRef, hostPrice()
		}
		rec, err := advisorhost.OpenNamedTranscript(sess, decl.Name, m.ref, logf)
		if err != nil {
			r.stop()
			return nil, fmt.Errorf("advisor %s: %w", decl.Name, err)
		}
		m.rec = rec
		opts := a.periodicOptions(h, rec, logf)
		opts.Name, opts.Roster = decl.Name, r.Guard
		if warn != nil {
			opts.OnWarning = warn
		}
		name, own, shared := decl.Name, decl.Instructions, roster.Instructions
		// The documented order: the review guidance, the roster's shared
		// instructions, then the advisor's own (the periodic review reads
		// no WATCHDOG.md).
		opts.Instructions = func() string {
			return advisor.RosterPrompt(cmp.Or(strings.TrimSpace(a.reviewInstructions()), advisor.DefaultReviewInstructions), "", shared, name, own)
		}
		per, err := advisor.NewPeriodic(opts)
		if err != nil {
			r.stop()
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
		r.stop()
		logf("warning: no advisor of the roster (WATCHDOG.yml) can run; the single periodic advisor runs")
		return nil, nil
	}
	return r, nil
}

// stop stops every member and closes its transcript.
func (r *periodicRoster) stop() {
	r.Stop()
	for _, m := range r.members {
		if m.rec != nil {
			m.rec.Close()
			m.rec = nil
		}
	}
}

// spent is what the members spent, and by model.
func (r *periodicRoster) spent() (llm.Usage, []advisor.ModelUsage) {
	var u llm.Usage
	var by []advisor.ModelUsage
	for _, m := range r.members {
		if m.per == nil {
			continue
		}
		st := m.per.Status()
		u = u.Add(st.Usage)
		by = append(by, advisor.ModelUsage{Model: m.ref().String(), Usage: st.Usage})
	}
	return u, by
}

// startPeriodicRoster starts the roster's periodic advisors for ag over
// its own host: at a step boundary the agent waits for every review
// forked there, so their corrections reach the same request. It returns
// nil when none of them can run.
func (a *app) startPeriodicRoster(ag *agent.Agent, sess *session.Session, fwd *forwardHook) (*advisorRun, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) }
	host := advisorhost.New(ag, sess)
	s := a.settings.Advisor
	ph := advisorhost.NewPeriodic(host, s.AllowPromptInjection, a.redactor())
	price := func() llm.Price {
		a.mu.Lock()
		defer a.mu.Unlock()
		if a.model == nil {
			return llm.Price{}
		}
		return a.model.Info.Price
	}
	r, err := a.newPeriodicRoster(ph, sess, a.primaryRef, price, a.supervisionWarning, logf)
	if r == nil || err != nil {
		host.Close()
		return nil, err
	}
	host.SetSync(1, s.SyncTimeout(), func(ctx context.Context, _ int) error { return r.WaitReview(ctx) })
	fwd.set(host.Hook())
	ph.Forward(r.Notify)
	r.Start(context.Background())
	return &advisorRun{host: host, proster: r, unsub: func() {}}, nil
}

// periodicRosterStatus is /advisor status for a roster in the periodic
// mode: the triggers, then each advisor's model, state, reviews and
// spend.
func (a *app) periodicRosterStatus(r *periodicRoster) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Advisors (WATCHDOG.yml roster, periodic mode, at most %d corrections per step in all", max(a.loadRoster().MaxNotesPerUpdate, 1))
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
	for _, adv := range a.loadRoster().Advisors {
		if !a.memberOn(adv) {
			fmt.Fprintf(&b, "\n- %s: off (%s; /advisor on %s turns it on).", adv.Name, adv.Source, adv.Name)
		}
	}
	if !a.settings.Advisor.AllowPromptInjection {
		b.WriteString("\nCorrections are withheld from the agent (advisor.allowPromptInjection is false): blocked ones are shown here, in the transcript and in the log, never in the agent's context.")
	}
	return b.String()
}

// periodicRosterLine is the status line's advisor for a periodic roster:
// the advisors that run, whether any reviews, and their reviews and cost.
func periodicRosterLine(r *periodicRoster) tui.AdvisorStatus {
	adv := tui.AdvisorStatus{On: true}
	var names []string
	for _, m := range r.members {
		if m.per == nil {
			continue
		}
		names = append(names, m.decl.Name)
		st := m.per.Status()
		adv.Reviewing = adv.Reviewing || st.InFlight || st.Due
		adv.Reviews += st.Reviews
		adv.Cost += m.price.Cost(st.Usage)
	}
	adv.Model = fmt.Sprintf("periodic, %d of %d: %s", len(names), len(r.members), strings.Join(names, ", "))
	if len(names) < len(r.members) {
		adv.Warning = "some advisors of the roster do not run (/advisor status)"
	}
	return adv
}

// periodicRosterTranscript is /advisor dump for a periodic roster: each
// advisor's reviews under its name.
func periodicRosterTranscript(r *periodicRoster) string {
	var parts []string
	for _, m := range r.members {
		if m.per == nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("=== advisor %s (periodic, %s) ===\n%s", m.decl.Name, m.ref(), strings.TrimRight(m.per.Transcript().Compact(), "\n")))
	}
	return strings.Join(parts, "\n\n")
}
