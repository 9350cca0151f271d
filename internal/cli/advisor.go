package cli

import (
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// sup is what the app's advisors are built from: its settings, roster
// and models, WATCHDOG.md from its folders, the log on stderr and the
// warnings where the user looks.
func (a *app) sup() *supervise.Config {
	home, _ := a.e.lookupEnv("HOME")
	return &supervise.Config{
		Settings: a.settings, Registry: a.registry, ModelRef: a.advFlagRef, Roster: a.loadRoster(),
		AgentDir: a.agentDir, ProjectDir: a.project, Dir: a.cwd, Home: home,
		Roots: []string{a.project, a.cwd},
		// Hides, in everything an advisor's model is sent, the
		// environment's secrets and the API keys vigil itself holds.
		Redactor: history.NewRedactor(os.Environ(), a.registry.Secrets()),
		Logf:     a.logf,
		Warn:     a.warnings.Warn,
		AgentModel: func() *models.Resolved {
			a.mu.Lock()
			defer a.mu.Unlock()
			return a.model
		},
	}
}

// logf writes a line of vigil's on stderr.
func (a *app) logf(format string, args ...any) {
	fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...)
}

// setupAdvisor decides whether the app runs an advisor: on with flag or
// advisor.enabled, its model from ref or modelRoles.advisor. Enabled with
// no model that resolves, it warns on stderr and leaves the advisor off.
func (a *app) setupAdvisor(flag bool, ref string) {
	a.advOn = flag || a.settings.Advisor.Enabled
	a.advFlagRef = ref
	c := a.sup()
	if !a.advOn || c.RulesOnly() || c.Periodic() || c.Fleet() {
		return
	}
	res, err := c.Resolve(a.settings)
	if err != nil && len(c.RosterOn()) > 0 {
		return // the roster's advisors name their own models
	}
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: the advisor is enabled but %v; running without it\n", err)
		return
	}
	a.advisorRes = res
}

// startAdvisor makes and starts the advisor of ag, whose hook target is
// fwd, reading the transcript from start. It returns nil when the advisor
// is off or has nothing to review with.
func (a *app) startAdvisor(ag *agent.Agent, sess *session.Session, fwd *advisorhost.ForwardHook, start advisor.StartPoint) (*supervise.AgentRun, error) {
	a.mu.Lock()
	res, on := a.advisorRes, a.advOn
	a.mu.Unlock()
	if !on {
		return nil, nil
	}
	return supervise.StartAgent(a.sup(), supervise.AgentOptions{
		Agent: ag, Session: sess, Start: start, Model: res, Hook: fwd,
		// ag is not yet the app's agent when its advisor starts.
		FleetDown: func(err error) { a.warnings.WarnOn(ag, supervise.FleetDownWarning(err)) },
		FleetUp: func(at string) {
			a.warnings.Notice("fleet", "The advisor's fleet ("+at+") answers now: the session's steps are reviewed from here on.")
		},
		Rebind: a.rebindAdvisor,
	})
}

// subagentConfig is the task tool's configuration: subagents get fresh
// tools and, with advisor.subagents, an advisor of their own while the
// advisor is on: same settings and model, WATCHDOG.md found again for the
// subagent's folder, its transcript in the subagent's own artifacts
// folder, isolated from the subagent's tools like the main advisor.
func (a *app) subagentConfig(subTools func() ([]tools.Tool, error)) *agent.SubagentConfig {
	cfg := &agent.SubagentConfig{Tools: subTools}
	if !a.settings.Advisor.Subagents {
		return cfg
	}
	var hooks sync.Map // subagent id → *advisorhost.ForwardHook
	cfg.Hooks = func(id string, _ *session.Session) []agent.Hook {
		f := &advisorhost.ForwardHook{}
		hooks.Store(id, f)
		return []agent.Hook{f}
	}
	cfg.Started = func(id string, sub *agent.Agent, s *session.Session) func() {
		v, ok := hooks.LoadAndDelete(id)
		if !ok {
			return nil
		}
		// In the periodic mode too: the subagent's run is the task the
		// user's run handed it, reviewed on its own session and model
		// by its own counters (the parent's count its task call once).
		run, err := a.startAdvisor(sub, s, v.(*advisorhost.ForwardHook), advisor.StartAtBeginning)
		if err != nil {
			fmt.Fprintf(a.e.stderr, "vigil: warning: subagent %s runs without its advisor: %v\n", id, err)
			return nil
		}
		if run == nil {
			return nil // the advisor is off
		}
		// The subagent's advisor ends with its run: a note it has not
		// delivered by then stays in its transcript.
		return func() { a.addSpent(run.Stop()) }
	}
	return cfg
}

// startPoint is where a new advisor of sess starts reading: a session
// with history (resumed, continued, forked) primes the advisor with a
// bounded tail of it; a new one starts at its beginning.
func startPoint(sess *session.Session) advisor.StartPoint {
	if sess.Len() > 0 {
		return advisor.StartPrimed
	}
	return advisor.StartAtBeginning
}

// rebindAdvisor makes the model modelRoles.advisor names now run's,
// when it changed ([supervise.Config.Rebound]).
func (a *app) rebindAdvisor(run *supervise.AgentRun) {
	a.mu.Lock()
	cur := a.advisorRes
	a.mu.Unlock()
	if res := a.sup().Rebound(run, cur); res != nil {
		a.mu.Lock()
		a.advisorRes = res
		a.mu.Unlock()
	}
}

// AdvisorOn reports whether the advisor is on for this session
// (/advisor toggles it).
func (a *app) AdvisorOn() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.advOn
}

// AdvisorTranscript is /advisor dump [raw]: the running advisor's
// transcript, compact or raw.
func (a *app) AdvisorTranscript(raw bool) string {
	a.mu.Lock()
	run := a.adv
	a.mu.Unlock()
	if run == nil {
		return "Advisor is not active for this session."
	}
	return run.Dump(raw)
}

// SetAdvisor is /advisor on|off: it turns the advisor on or off for this
// session and persists advisor.enabled in the user settings file. Turned on, it starts at the
// current end of the session: earlier history is not replayed.
func (a *app) SetAdvisor(on bool) (string, error) {
	if err := config.Set(config.UserFile(a.agentDir), "advisor.enabled", on); err != nil {
		return "", fmt.Errorf("/advisor: save the setting: %w", err)
	}
	a.settings.Advisor.Enabled = on
	if !on {
		a.mu.Lock()
		run := a.adv
		a.adv, a.advOn = nil, false
		if a.fwd != nil {
			a.fwd.Set(nil)
		}
		a.mu.Unlock()
		a.addSpent(run.Stop())
		return "Advisor disabled.", nil
	}
	a.mu.Lock()
	a.advOn = true
	running := a.adv != nil
	ag, sess, fwd := a.ag, a.sess, a.fwd
	a.mu.Unlock()
	if running {
		return "Advisor enabled.", nil
	}
	if c := a.sup(); !c.RulesOnly() && !c.Periodic() {
		res, err := c.Resolve(a.settings)
		if err != nil {
			if errors.Is(err, supervise.ErrNoModel) {
				return "Advisor setting enabled, but no model is assigned to the 'advisor' role.", nil
			}
			return "", fmt.Errorf("/advisor: %w", err)
		}
		a.mu.Lock()
		a.advisorRes = res
		a.mu.Unlock()
	}
	run, err := a.startAdvisor(ag, sess, fwd, advisor.StartAtEnd)
	if err != nil {
		return "", fmt.Errorf("/advisor: %w", err)
	}
	a.mu.Lock()
	a.adv = run
	a.mu.Unlock()
	return "Advisor enabled.", nil
}

// addSpent adds what a stopped advisor spent to the app's running total.
func (a *app) addSpent(s supervise.Spent) {
	a.mu.Lock()
	a.advSpent = a.advSpent.Add(s)
	a.mu.Unlock()
}

// AdvisorStatus is /advisor status: model, context use, tokens and cost,
// summed over every advisor this app ran.
func (a *app) AdvisorStatus() string {
	text := a.advisorStatusText()
	if side := a.spendSideBySide(); side != "" {
		text += " " + side
	}
	return text
}

// advisorStatusText is /advisor status without the side-by-side spend.
func (a *app) advisorStatusText() string {
	a.mu.Lock()
	run, on, spent := a.adv, a.advOn, a.advSpent
	a.mu.Unlock()
	switch {
	case on && run != nil:
		return run.Report(spent).Text
	case on:
		return "Advisor setting is enabled, but no model is assigned to the 'advisor' role."
	}
	return "Advisor is disabled."
}

// spendSideBySide is the agent's and the advisor's spend in one line, for
// /advisor status; "" while the advisor is off.
func (a *app) spendSideBySide() string {
	st := a.Status()
	if !st.Advisor.On {
		return ""
	}
	total := st.Cost + st.Advisor.Cost
	share := 0.0
	if total > 0 {
		share = st.Advisor.Cost * 100 / total
	}
	return fmt.Sprintf("Spend side by side: the agent $%.4f (%s), the advisor $%.4f (%.0f%% of $%.4f).", st.Cost, st.Model, st.Advisor.Cost, share, total)
}
