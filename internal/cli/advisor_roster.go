package cli

import (
	"fmt"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/config"
)

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

// AdvisorRoster is /advisor with a roster: each advisor and its state;
// "" when WATCHDOG.yml declares none.
func (a *app) AdvisorRoster() string {
	if len(a.loadRoster().Advisors) == 0 {
		return ""
	}
	a.mu.Lock()
	run, spent := a.adv, a.advSpent
	a.mu.Unlock()
	if run != nil {
		if r := run.Report(spent).Roster; r != "" {
			return r
		}
	}
	return a.sup().RosterListing()
}

// SetAdvisorMember is /advisor on|off NAME: it turns one advisor of the
// roster on or off, saves advisor.roster.NAME in the user settings file,
// and restarts the roster at the current end of the session (the others
// prime again from there).
func (a *app) SetAdvisorMember(name string, on bool) (string, error) {
	if err := a.sup().CheckMember(name); err != nil {
		return "", err
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
			fwd.Set(nil)
		}
	}
	a.mu.Unlock()
	if !advOn {
		return fmt.Sprintf("Advisor %s turned %s (saved); the advisor is off: /advisor on starts it.", name, word), nil
	}
	a.addSpent(old.Stop())
	run, err := a.startAdvisor(ag, sess, fwd, advisor.StartAtEnd)
	if err != nil {
		return "", fmt.Errorf("/advisor: %w", err)
	}
	a.mu.Lock()
	a.adv = run
	a.mu.Unlock()
	return fmt.Sprintf("Advisor %s turned %s (saved in your settings).", name, word), nil
}
