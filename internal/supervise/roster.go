package supervise

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/models"
)

// rosterMember is one advisor of a roster (WATCHDOG.yml), as it runs: its
// runtime and transcript, or why it does not run.
type rosterMember struct {
	decl config.RosterAdvisor
	// res is its model; nil when none resolves.
	res *models.Resolved
	rt  *advisor.Runtime
	rec *advisorhost.Transcript
	// problem says why it does not run ("" when it runs).
	problem string
}

// roster is the roster's running advisors as one advisor: each step goes
// to all of them, a wait for the backlog waits for all, and a question
// goes to the first.
type roster struct {
	c       *Config
	members []*rosterMember
	live    []*rosterMember
	guard   *advisor.RosterGuard
}

// newRoster makes (does not start) a runtime for each enabled advisor of
// the roster over h, all reviewing the same steps through one
// [advisor.RosterGuard]. An advisor whose model does not resolve is left
// out with a warning; the others run. It returns nil when none runs.
func newRoster(c *Config, h Host) (Advisor, error) {
	logf := h.logf(c)
	rs := c.roster()
	r := &roster{c: c, guard: advisor.NewRosterGuard(rs.MaxNotesPerUpdate)}
	for _, decl := range c.RosterOn() {
		m := &rosterMember{decl: decl}
		r.members = append(r.members, m)
		ref := cmp.Or(decl.Model, c.ModelRef)
		if ref == "" {
			role, ok := c.Settings.Role(config.RoleAdvisor)
			if !ok {
				m.problem = "no model (set its model in WATCHDOG.yml, or modelRoles.advisor)"
				continue
			}
			ref = role.String()
		}
		res, err := c.Registry.Resolve(ref)
		if err == nil {
			_, err = res.Open()
		}
		if err != nil {
			m.problem = fmt.Sprintf("no model: %v", err)
			continue
		}
		m.res = res
		rt, rec, err := newRuntime(c, h, res, &member{decl: decl, guard: r.guard, shared: rs.Instructions, rosterMax: rs.MaxNotesPerUpdate})
		if err != nil {
			r.Stop()
			return nil, fmt.Errorf("advisor %s: %w", decl.Name, err)
		}
		m.rt, m.rec = rt, rec
		r.live = append(r.live, m)
	}
	for _, m := range r.members {
		if m.problem != "" {
			logf("warning: advisor %s (%s) does not run: %s", m.decl.Name, m.decl.Source, m.problem)
		}
	}
	if len(r.live) == 0 {
		logf("warning: no advisor of the roster (WATCHDOG.yml) can run; the single advisor (modelRoles.advisor) runs if it can")
		return nil, nil
	}
	return r, nil
}

// Notify passes a step to every advisor; a step's end frees the roster's
// slots first.
func (r *roster) Notify(ev advisor.Event) {
	if ev.Kind == advisor.EventStepEnded {
		r.guard.NewStep()
	}
	for _, m := range r.live {
		m.rt.Notify(ev)
	}
}

// WaitBacklogBelow waits until every advisor has fewer than n steps to
// review.
func (r *roster) WaitBacklogBelow(ctx context.Context, n int) error {
	for _, m := range r.live {
		if err := m.rt.WaitBacklogBelow(ctx, n); err != nil && !errors.Is(err, advisor.ErrStopped) {
			return err
		}
	}
	return nil
}

func (r *roster) SyncBacklog() int { return r.c.Settings.Advisor.SyncBacklog.Threshold() }

// Consult asks the roster's first running advisor.
func (r *roster) Consult(ctx context.Context, question string) (string, error) {
	return r.live[0].rt.Consult(ctx, question)
}

func (r *roster) Start() {
	for _, m := range r.live {
		m.rt.Start(context.Background())
	}
}

func (r *roster) Rebind(*models.Resolved) bool { return false }

// Spent sums what the members spent.
func (r *roster) Spent() Spent {
	var s Spent
	for _, m := range r.live {
		st := m.rt.Status()
		s.Usage, s.ByModel = s.Usage.Add(st.Usage), append(s.ByModel, st.Models...)
	}
	return s
}

// Stop stops every member, closes its transcript and sums what they
// spent.
func (r *roster) Stop() Spent {
	for _, m := range r.live {
		m.rt.Stop()
		if m.rec != nil {
			m.rec.Close()
			m.rec = nil
		}
	}
	return r.Spent()
}

// Dump is each advisor's transcript under its name.
func (r *roster) Dump(raw bool) string {
	var parts []string
	for _, m := range r.live {
		t := m.rt.Transcript()
		text := t.Compact()
		if raw {
			text = t.Raw(m.res.Ref().String())
		}
		parts = append(parts, fmt.Sprintf("=== advisor %s (%s) ===\n%s", m.decl.Name, m.res.Ref(), strings.TrimRight(text, "\n")))
	}
	return strings.Join(parts, "\n\n")
}

// Report is each advisor of the roster: its model, state, reviews and
// spend.
func (r *roster) Report(Spent) Report {
	text := r.text()
	return Report{Text: text, Line: r.line(), Roster: text}
}

func (r *roster) text() string {
	c := r.c
	var b strings.Builder
	fmt.Fprintf(&b, "Advisors (WATCHDOG.yml roster, at most %d notes per step in all, blockers exempt):", max(c.roster().MaxNotesPerUpdate, 1))
	for _, m := range r.members {
		fmt.Fprintf(&b, "\n- %s: ", m.decl.Name)
		if m.rt == nil {
			fmt.Fprintf(&b, "not running, %s (%s).", m.problem, m.decl.Source)
			continue
		}
		st := m.rt.Status()
		state := "running"
		if h := HealthText(st); h != "" {
			state = h
		} else if st.Pending || st.Backlog > 0 {
			state = fmt.Sprintf("running, reviewing (%d steps behind)", st.Backlog)
		}
		fmt.Fprintf(&b, "%s on %s; %d reviews (%d failed attempts), %d notes delivered, context %s tokens, $%.4f.",
			state, cmp.Or(st.Model, m.res.Ref().String()), st.Reviews, st.Failures, st.Delivered, Group(st.ContextTokens), c.PriceUsage(st.Models, m.res.Info.Price))
		if st.ProseStreak >= advisor.ProseWarnAfter {
			fmt.Fprintf(&b, " Warning: its last %d reviews ended in prose without calling advise.", st.ProseStreak)
		}
	}
	offMembers(c, &b)
	return b.String()
}

func (r *roster) line() Line {
	names := make([]string, len(r.live))
	l := Line{On: true}
	for i, m := range r.live {
		names[i] = m.decl.Name
		rs := m.rt.Status()
		l.Reviewing = l.Reviewing || rs.Pending || rs.Backlog > 0
		l.Backlog = max(l.Backlog, rs.Backlog)
		l.Reviews += rs.Reviews
		l.Cost += r.c.PriceUsage(rs.Models, m.res.Info.Price)
		l.Context = max(l.Context, rs.ContextTokens)
		if rs.ProseStreak >= advisor.ProseWarnAfter {
			l.Warning = fmt.Sprintf("%s's last %d reviews ended in prose without advise (/advisor status)", m.decl.Name, rs.ProseStreak)
		}
	}
	l.Model = fmt.Sprintf("%d of %d: %s", len(r.live), len(r.members), strings.Join(names, ", "))
	if len(r.live) < len(r.members) && l.Warning == "" {
		l.Warning = "some advisors of the roster do not run (/advisor status)"
	}
	return l
}
