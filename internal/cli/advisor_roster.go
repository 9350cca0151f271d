package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/config"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/session"
)

// rosterMember is one advisor of a roster (WATCHDOG.yml), as it runs: its
// runtime and transcript, or why it does not run.
type rosterMember struct {
	decl config.RosterAdvisor
	// res is its model; nil when none resolves (health: no model).
	res *models.Resolved
	rt  *advisor.Runtime
	rec *advisorhost.Transcript
	// problem says why it does not run ("" when it runs).
	problem string
}

// loadRoster reads the WATCHDOG.yml files of the app's folder, once, and
// keeps their warnings for the user. A roster that cannot be read is a
// warning too: the single advisor runs instead.
func (a *app) loadRoster() *config.Roster {
	if a.roster != nil {
		return a.roster
	}
	r, err := config.LoadRoster(config.RosterOptions{AgentDir: a.agentDir, Dir: a.cwd, ProjectRoot: a.project})
	if err != nil {
		a.notices = append(a.notices, "warning: "+err.Error()+"; running the single advisor instead")
		r = &config.Roster{}
	}
	for _, w := range r.Warnings {
		a.notices = append(a.notices, "warning: "+w)
	}
	a.roster = r
	return r
}

// rosterOn is the roster's advisors that are enabled (in WATCHDOG.yml and
// not turned off with /advisor off NAME).
func (a *app) rosterOn() []config.RosterAdvisor {
	var out []config.RosterAdvisor
	for _, adv := range a.loadRoster().Advisors {
		if a.memberOn(adv) {
			out = append(out, adv)
		}
	}
	return out
}

// memberOn reports whether a roster's advisor runs: its enabled field,
// unless advisor.roster (/advisor on|off NAME) says otherwise.
func (a *app) memberOn(adv config.RosterAdvisor) bool {
	if on, ok := a.settings.Advisor.Roster[adv.Name]; ok {
		return on
	}
	return adv.On()
}

// rosterAdvisor is the roster's running advisors as one advisor: each
// step goes to all of them, a wait for the backlog waits for all, and a
// question goes to the first. It is the sidecar's [sidecar.Advisor] and
// feeds vigil's own agent's host.
type rosterAdvisor struct {
	members []*rosterMember
	live    []*rosterMember
	guard   *advisor.RosterGuard
}

// Notify passes a step to every advisor; a step's end frees the roster's
// slots first.
func (r *rosterAdvisor) Notify(ev advisor.Event) {
	if ev.Kind == advisor.EventStepEnded {
		r.guard.NewStep()
	}
	for _, m := range r.live {
		m.rt.Notify(ev)
	}
}

// WaitBacklogBelow waits until every advisor has fewer than n steps to
// review.
func (r *rosterAdvisor) WaitBacklogBelow(ctx context.Context, n int) error {
	for _, m := range r.live {
		if err := m.rt.WaitBacklogBelow(ctx, n); err != nil && !errors.Is(err, advisor.ErrStopped) {
			return err
		}
	}
	return nil
}

// Consult asks the roster's first running advisor.
func (r *rosterAdvisor) Consult(ctx context.Context, question string) (string, error) {
	return r.live[0].rt.Consult(ctx, question)
}

func (r *rosterAdvisor) start() {
	for _, m := range r.live {
		m.rt.Start(context.Background())
	}
}

func (r *rosterAdvisor) stop() {
	for _, m := range r.members {
		m.stop()
	}
}

// newRoster makes (does not start) a runtime for each enabled advisor of
// the roster over host, all reviewing the same steps through one
// [advisor.RosterGuard]. An advisor whose model does not resolve is left
// out with a warning; the others run. It returns nil when none runs.
func (a *app) newRoster(host advisor.Host, sess *session.Session, start advisor.StartPoint, logf func(string, ...any)) (*rosterAdvisor, error) {
	roster := a.loadRoster()
	r := &rosterAdvisor{guard: advisor.NewRosterGuard(roster.MaxNotesPerUpdate)}
	for _, decl := range a.rosterOn() {
		m := &rosterMember{decl: decl}
		r.members = append(r.members, m)
		ref := cmp.Or(decl.Model, a.advFlagRef)
		if ref == "" {
			role, ok := a.settings.Role(config.RoleAdvisor)
			if !ok {
				m.problem = "no model (set its model in WATCHDOG.yml, or modelRoles.advisor)"
				continue
			}
			ref = role.String()
		}
		res, err := a.registry.Resolve(ref)
		if err == nil {
			_, err = res.Open()
		}
		if err != nil {
			m.problem = fmt.Sprintf("no model: %v", err)
			continue
		}
		m.res = res
		rt, rec, err := a.newAdvisorRuntime(host, sess, start, res, &rosterRun{member: m, guard: r.guard, shared: roster.Instructions})
		if err != nil {
			r.stop()
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

// rosterRun is what newAdvisorRuntime needs to make a roster's advisor.
type rosterRun struct {
	member *rosterMember
	guard  *advisor.RosterGuard
	shared string
}

// stop stops the member's runtime and closes its transcript.
func (m *rosterMember) stop() {
	if m.rt != nil {
		m.rt.Stop()
	}
	if m.rec != nil {
		m.rec.Close()
		m.rec = nil
	}
}

// running is the members that run.
func running(members []*rosterMember) []*rosterMember {
	var out []*rosterMember
	for _, m := range members {
		if m.rt != nil {
			out = append(out, m)
		}
	}
	return out
}

// rosterStatus is /advisor status's account of each advisor of the
// roster: its model, state, reviews and spend.
func (a *app) rosterStatus(members []*rosterMember) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Advisors (WATCHDOG.yml roster, at most %d notes per step in all, blockers exempt):", max(a.loadRoster().MaxNotesPerUpdate, 1))
	for _, m := range members {
		fmt.Fprintf(&b, "\n- %s: ", m.decl.Name)
		if m.rt == nil {
			fmt.Fprintf(&b, "not running, %s (%s).", m.problem, m.decl.Source)
			continue
		}
		st := m.rt.Status()
		state := "running"
		if h := healthText(st); h != "" {
			state = h
		} else if st.Pending || st.Backlog > 0 {
			state = fmt.Sprintf("running, reviewing (%d steps behind)", st.Backlog)
		}
		fmt.Fprintf(&b, "%s on %s; %d reviews (%d failed attempts), %d notes delivered, context %s tokens, $%.4f.",
			state, cmp.Or(st.Model, m.res.Ref().String()), st.Reviews, st.Failures, st.Delivered, group(st.ContextTokens), a.priceUsage(st.Models, m.res.Info.Price))
		if st.ProseStreak >= advisor.ProseWarnAfter {
			fmt.Fprintf(&b, " Warning: its last %d reviews ended in prose without calling advise.", st.ProseStreak)
		}
	}
	for _, adv := range a.loadRoster().Advisors {
		if !a.memberOn(adv) {
			fmt.Fprintf(&b, "\n- %s: off (%s; /advisor on %s turns it on).", adv.Name, adv.Source, adv.Name)
		}
	}
	return b.String()
}

// startRosterRun starts the roster's advisors for the agent over host:
// at a step end the agent waits (advisor.syncBacklog) for every one.
func (a *app) startRosterRun(host *advisorhost.Host, sess *session.Session, fwd *forwardHook, start advisor.StartPoint) (*advisorRun, error) {
	r, err := a.newRoster(host, sess, start, func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) })
	if r == nil || err != nil {
		return nil, err // none runs: the caller runs the single advisor
	}
	host.SetSync(a.settings.Advisor.SyncBacklog.Threshold(), a.settings.Advisor.SyncTimeout(), r.WaitBacklogBelow)
	fwd.set(host.Hook())
	host.Forward(r.Notify)
	run := &advisorRun{host: host, rt: r.live[0].rt, rec: r.live[0].rec, members: r.members, unsub: func() {}}
	r.start()
	return run, nil
}

// userNotices are what the user must know before the agent starts: the
// folder's settings that override theirs, and the roster's warnings.
func (a *app) userNotices() []string {
	var out []string
	if a.projectNotice != "" {
		out = append(out, a.projectNotice)
	}
	if !a.advOn {
		return out // the roster matters when an advisor runs
	}
	a.loadRoster()
	return append(out, a.notices...)
}

// rosterTranscript is /advisor dump for a roster: each advisor's
// transcript under its name.
func rosterTranscript(members []*rosterMember, raw bool) string {
	var parts []string
	for _, m := range running(members) {
		t := m.rt.Transcript()
		text := t.Compact()
		if raw {
			text = t.Raw(m.res.Ref().String())
		}
		parts = append(parts, fmt.Sprintf("=== advisor %s (%s) ===\n%s", m.decl.Name, m.res.Ref(), strings.TrimRight(text, "\n")))
	}
	return strings.Join(parts, "\n\n")
}

// AdvisorRoster is /advisor with a roster: each advisor and its state;
// "" when WATCHDOG.yml declares none.
func (a *app) AdvisorRoster() string {
	if len(a.loadRoster().Advisors) == 0 {
		return ""
	}
	a.mu.Lock()
	run := a.adv
	a.mu.Unlock()
	if run != nil && run.members != nil {
		return a.rosterStatus(run.members)
	}
	if run != nil && run.proster != nil {
		return a.periodicRosterStatus(run.proster)
	}
	var b strings.Builder
	b.WriteString("Advisors (WATCHDOG.yml roster; the advisor is off, /advisor on starts them):")
	for _, adv := range a.loadRoster().Advisors {
		state := "on"
		if !a.memberOn(adv) {
			state = "off"
		}
		fmt.Fprintf(&b, "\n- %s: %s, model %s (%s).", adv.Name, state, cmp.Or(adv.Model, "modelRoles.advisor"), adv.Source)
	}
	return b.String()
}

// SetAdvisorMember is /advisor on|off NAME: it turns one advisor of the
// roster on or off, saves advisor.roster.NAME in the user settings file,
// and restarts the roster at the current end of the session (the others
// prime again from there).
func (a *app) SetAdvisorMember(name string, on bool) (string, error) {
	var names []string
	found := false
	for _, adv := range a.loadRoster().Advisors {
		names = append(names, adv.Name)
		found = found || adv.Name == name
	}
	if !found {
		if len(names) == 0 {
			return "", fmt.Errorf("/advisor %s: WATCHDOG.yml declares no advisors (docs/advisor.md, \"Several advisors\")", name)
		}
		return "", fmt.Errorf("/advisor: no advisor %q in the roster (%s)", name, strings.Join(names, ", "))
	}
	if err := config.Set(config.UserFile(a.agentDir), "advisor.roster."+name, on); err != nil {
		return "", fmt.Errorf("/advisor: save the setting: %w", err)
	}
	if a.settings.Advisor.Roster == nil {
		a.settings.Advisor.Roster = map[string]bool{}
	}
	a.settings.Advisor.Roster[name] = on
	word := map[bool]string{true: "on", false: "off"}[on]
	a.mu.Lock()
	old, ag, sess, fwd, advOn := a.adv, a.ag, a.sess, a.fwd, a.advOn
	if advOn {
		a.adv = nil
		if fwd != nil {
			fwd.set(nil)
		}
	}
	a.mu.Unlock()
	if !advOn {
		return fmt.Sprintf("Advisor %s turned %s (saved); the advisor is off: /advisor on starts it.", name, word), nil
	}
	a.addSpent(old.stop())
	run, err := a.startAdvisor(ag, sess, fwd, advisor.StartAtEnd)
	if err != nil {
		return "", fmt.Errorf("/advisor: %w", err)
	}
	a.mu.Lock()
	a.adv = run
	a.mu.Unlock()
	return fmt.Sprintf("Advisor %s turned %s (saved in your settings).", name, word), nil
}
