package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/config"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// advisorRun is the advisor of one agent: the host over the agent, and
// the advisor supervise built over it in whatever mode.
type advisorRun struct {
	host  *advisorhost.Host
	adv   supervise.Advisor
	unsub func()
}

// stop stops the advisor, then the host (which waits for a run it
// resumed), and returns what the advisor spent. The caller must not hold
// app.mu: that run's events go through app.publish.
func (r *advisorRun) stop() supervise.Spent {
	if r == nil {
		return supervise.Spent{}
	}
	r.unsub()
	spent := r.adv.Stop()
	r.host.Close()
	return spent
}

// forwardHook is a hook whose target is set once the agent exists (the
// agent takes its hooks at construction, and the host needs the agent),
// and changes when the advisor is turned on or off.
type forwardHook struct {
	mu sync.Mutex
	h  agent.Hook
}

func (f *forwardHook) set(h agent.Hook) {
	f.mu.Lock()
	f.h = h
	f.mu.Unlock()
}

func (f *forwardHook) Boundary(ctx context.Context, b agent.BoundaryInfo) []agent.Injection {
	f.mu.Lock()
	h := f.h
	f.mu.Unlock()
	if h == nil {
		return nil
	}
	return h.Boundary(ctx, b)
}

// sup is what the app's advisors are built from: its settings, roster
// and models, WATCHDOG.md from its folders, the log on stderr and the
// warnings where the user looks.
func (a *app) sup() *supervise.Config {
	home, _ := a.e.lookupEnv("HOME")
	return &supervise.Config{
		Settings: a.settings, Registry: a.registry, ModelRef: a.advFlagRef, Roster: a.loadRoster(),
		AgentDir: a.agentDir, ProjectDir: a.project, Dir: a.cwd, Home: home,
		Roots:    []string{a.project, a.cwd},
		Redactor: a.redactor(),
		Logf:     a.logf,
		Warn:     a.supervisionWarning,
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
func (a *app) startAdvisor(ag *agent.Agent, sess *session.Session, fwd *forwardHook, start advisor.StartPoint) (*advisorRun, error) {
	a.mu.Lock()
	res, on := a.advisorRes, a.advOn
	a.mu.Unlock()
	if !on {
		return nil, nil
	}
	c := a.sup()
	host := advisorhost.New(ag, sess)
	h := supervise.Host{
		Host: host, Session: sess, SessionID: sess.ID(), Start: start,
		Warn: a.supervisionWarning,
		// ag is not yet the app's agent when its advisor starts.
		FleetDown: func(err error) { a.supervisionWarningOn(ag, supervise.FleetDownWarning(err)) },
		FleetUp: func(at string) {
			a.supervisionNotice("fleet", "The advisor's fleet ("+at+") answers now: the session's steps are reviewed from here on.")
		},
	}
	var ph *advisorhost.Periodic
	if c.Periodic() && !c.Fleet() {
		// The periodic mode forks the session onto the agent's own model.
		ph = advisorhost.NewPeriodic(host, a.settings.Advisor.AllowPromptInjection, c.Redactor)
		h.Fork, h.ForkRef, h.ForkPrice = ph, a.primaryRef, a.primaryPrice
	}
	adv, err := supervise.New(c, h, res)
	if err != nil {
		host.Close()
		if errors.Is(err, supervise.ErrNothingToRun) {
			return nil, nil
		}
		return nil, err
	}
	// At a step end the agent waits while the advisor is that many steps
	// behind (advisor.syncBacklog; in the periodic mode, for the review
	// it just forked), at most advisor.syncTimeoutSeconds.
	host.SetSync(adv.SyncBacklog(), a.settings.Advisor.SyncTimeout(), adv.WaitBacklogBelow)
	fwd.set(host.Hook())
	if ph != nil {
		ph.Forward(adv.Notify)
	} else {
		host.Forward(adv.Notify)
	}
	run := &advisorRun{host: host, adv: adv, unsub: func() {}}
	if res != nil {
		// A changed modelRoles.advisor takes effect at the next prompt,
		// without a restart.
		run.unsub = ag.Subscribe(func(ev agent.Event) {
			if ev.Type == agent.EventTurnStart && ev.Cause == agent.CausePrompt {
				a.rebindAdvisor(run)
			}
		})
	}
	adv.Start()
	return run, nil
}

// primaryRef names the agent's model, which the periodic reviews run on.
func (a *app) primaryRef() llm.Ref {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.model == nil {
		return llm.Ref{}
	}
	return a.model.Ref()
}

// primaryPrice prices the agent's model.
func (a *app) primaryPrice() llm.Price {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.model == nil {
		return llm.Price{}
	}
	return a.model.Info.Price
}

// redactor hides, in everything an advisor's model is sent, the
// environment's secrets and the API keys vigil itself holds.
func (a *app) redactor() *history.Redactor {
	return history.NewRedactor(os.Environ(), a.registry.Secrets())
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
	var hooks sync.Map // subagent id → *forwardHook
	cfg.Hooks = func(id string, _ *session.Session) []agent.Hook {
		f := &forwardHook{}
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
		run, err := a.startAdvisor(sub, s, v.(*forwardHook), advisor.StartAtBeginning)
		if err != nil {
			fmt.Fprintf(a.e.stderr, "vigil: warning: subagent %s runs without its advisor: %v\n", id, err)
			return nil
		}
		if run == nil {
			return nil // the advisor is off
		}
		// The subagent's advisor ends with its run: a note it has not
		// delivered by then stays in its transcript.
		return func() { a.addSpent(run.stop()) }
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

// rebindAdvisor re-reads the settings and, if modelRoles.advisor now names
// another model that resolves, makes it run's model.
func (a *app) rebindAdvisor(run *advisorRun) {
	if a.advFlagRef != "" {
		return // the command line chose the model
	}
	s, err := config.Load(config.Options{AgentDir: a.agentDir, ProjectDir: a.project})
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: re-reading settings: %v\n", err)
		return
	}
	ref, ok := s.Role(config.RoleAdvisor)
	a.mu.Lock()
	cur := a.advisorRes
	a.mu.Unlock()
	if !ok || cur == nil || ref.String() == cur.Ref().String() {
		return
	}
	res, err := a.sup().Resolve(s)
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: keeping advisor model %s: %v\n", cur.Ref(), err)
		return
	}
	if !run.adv.Rebind(res) {
		return
	}
	a.mu.Lock()
	a.advisorRes = res
	a.mu.Unlock()
	fmt.Fprintf(a.e.stderr, "vigil: advisor model is now %s\n", res.Ref())
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
	return run.adv.Dump(raw)
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
			a.fwd.set(nil)
		}
		a.mu.Unlock()
		a.addSpent(run.stop())
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
		return run.adv.Report(spent).Text
	case on:
		return "Advisor setting is enabled, but no model is assigned to the 'advisor' role."
	}
	return "Advisor is disabled."
}
