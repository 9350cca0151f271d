package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/config"
	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/rulesadvisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
	"github.com/vigil-dev/vigil/tools"
)

// advisorRun is the advisor of one agent: its host and its runtime, rt
// in the continuous mode or per in the periodic one.
type advisorRun struct {
	host  *advisorhost.Host
	rt    *advisor.Runtime
	per   *advisor.Periodic
	rec   *advisorhost.Transcript // nil without a model: nothing to record
	unsub func()
	// fleet, when set, is the advisor a fleet of workers serves (rt and
	// per are nil).
	fleet *fleetRun
	// members are the roster's advisors (WATCHDOG.yml), rt the first that
	// runs; nil for the single advisor.
	members []*rosterMember
	// proster, when set, is the roster in the periodic mode (rt and per
	// are nil).
	proster *periodicRoster
}

// stop stops the runtime, then the host (which waits for a run it
// resumed), and returns what the advisor spent. The caller must not hold
// app.mu: that run's events go through app.publish.
func (r *advisorRun) stop() (llm.Usage, []advisor.ModelUsage) {
	if r == nil {
		return llm.Usage{}, nil
	}
	r.unsub()
	switch {
	case r.fleet != nil:
		r.fleet.stop()
		r.host.Close()
		return llm.Usage{}, nil // the workers pay, and count it (vigil stats --fleet)
	case r.proster != nil:
		r.proster.stop()
		r.host.Close()
		return r.proster.spent()
	case r.per != nil:
		r.per.Stop()
	case r.members != nil:
		for _, m := range r.members {
			if m.rt != nil {
				m.rt.Stop()
			}
		}
	default:
		r.rt.Stop()
	}
	r.host.Close()
	if r.rec != nil {
		// After the runtime stopped: no advisor turn is still to come.
		r.rec.Close()
	}
	if r.per != nil {
		return r.per.Status().Usage, nil
	}
	if r.members != nil {
		var u llm.Usage
		var by []advisor.ModelUsage
		for _, m := range running(r.members) {
			m.stop() // closes its transcript
			st := m.rt.Status()
			u, by = u.Add(st.Usage), append(by, st.Models...)
		}
		return u, by
	}
	st := r.rt.Status()
	return st.Usage, st.Models
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

// errNoAdvisorModel says the advisor is on but no model is assigned.
var errNoAdvisorModel = errors.New("no model is assigned to the 'advisor' role (pass --advisor-model REF or set modelRoles.advisor)")

// setupAdvisor decides whether the app runs an advisor: on with flag or
// advisor.enabled, its model from ref or modelRoles.advisor. Enabled with
// no model that resolves, it warns on stderr and leaves the advisor off.
func (a *app) setupAdvisor(flag bool, ref string) {
	a.advOn = flag || a.settings.Advisor.Enabled
	a.advFlagRef = ref
	if !a.advOn || a.rulesOnly() || a.periodic() || a.fleetOn() {
		return
	}
	res, err := a.resolveAdvisor(a.settings)
	if err != nil && len(a.rosterOn()) > 0 {
		return // the roster's advisors name their own models
	}
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: the advisor is enabled but %v; running without it\n", err)
		return
	}
	a.advisorRes = res
}

// rulesOnly reports whether the advisor is vigil's detectors alone, with
// no model: advisor.reviewer rules, or --advisor-model rules.
func (a *app) rulesOnly() bool {
	return a.advFlagRef == config.ReviewerRules || (a.advFlagRef == "" && a.settings.Advisor.Reviewer == config.ReviewerRules)
}

// resolveAdvisor finds and opens the advisor model: the --advisor-model
// reference, or modelRoles.advisor in s.
func (a *app) resolveAdvisor(s *config.Settings) (*models.Resolved, error) {
	ref := a.advFlagRef
	if ref == "" {
		r, ok := s.Role(config.RoleAdvisor)
		if !ok {
			return nil, errNoAdvisorModel
		}
		ref = r.String()
	}
	res, err := a.registry.Resolve(ref)
	if err == nil {
		_, err = res.Open()
	}
	if err != nil {
		return nil, fmt.Errorf("advisor model %s: %w", ref, err)
	}
	return res, nil
}

// startAdvisor makes and starts the advisor of ag, whose hook target is
// fwd, reading the transcript from start. It returns nil when the advisor
// is off or has no model.
func (a *app) startAdvisor(ag *agent.Agent, sess *session.Session, fwd *forwardHook, start advisor.StartPoint) (*advisorRun, error) {
	a.mu.Lock()
	res, on := a.advisorRes, a.advOn
	a.mu.Unlock()
	if on && a.periodic() && !a.fleetOn() {
		if len(a.rosterOn()) > 0 {
			if run, err := a.startPeriodicRoster(ag, sess, fwd); run != nil || err != nil {
				return run, err
			}
		}
		return a.startPeriodic(ag, sess, fwd)
	}
	if !on {
		return nil, nil
	}
	host := advisorhost.New(ag, sess)
	if a.fleetOn() {
		return a.startFleetRun(ag, host, sess, fwd, start), nil
	}
	if len(a.rosterOn()) > 0 {
		run, err := a.startRosterRun(host, sess, fwd, start)
		if run != nil || err != nil {
			if err != nil {
				host.Close()
			}
			return run, err
		}
	}
	rt, rec, err := a.newAdvisorRuntime(host, sess, start, res, nil)
	if rt == nil || err != nil {
		host.Close()
		return nil, err
	}
	// advisor.syncBacklog: at a step end the primary waits while that
	// many steps are unreviewed, at most advisor.syncTimeoutSeconds.
	host.SetSync(a.settings.Advisor.SyncBacklog.Threshold(), a.settings.Advisor.SyncTimeout(), rt.WaitBacklogBelow)
	fwd.set(host.Hook())
	host.Forward(rt.Notify)
	run := &advisorRun{host: host, rt: rt, rec: rec}
	// A changed modelRoles.advisor takes effect at the next prompt,
	// without a restart.
	run.unsub = ag.Subscribe(func(ev agent.Event) {
		if rec != nil && ev.Type == agent.EventTurnStart && ev.Cause == agent.CausePrompt {
			a.rebindAdvisor(run)
		}
	})
	rt.Start(context.Background())
	return run, nil
}

// newAdvisorRuntime makes (does not start) the advisor runtime over host,
// its transcript recorded in sess's artifacts folder, with the model res
// (nil: the detectors alone when advisor.reviewer is rules). It returns a
// nil runtime when there is nothing to review with.
//
// rr, when set, makes it an advisor of the roster: its name, its own
// instructions after the shared ones, its tools, its transcript file, and
// the guard it shares with the others.
func (a *app) newAdvisorRuntime(host advisor.Host, sess *session.Session, start advisor.StartPoint, res *models.Resolved, rr *rosterRun) (*advisor.Runtime, *advisorhost.Transcript, error) {
	rulesOnly := a.rulesOnly()
	if res == nil && !rulesOnly {
		return nil, nil, nil
	}
	var model llm.Model
	var detector advisor.Detector
	if rulesOnly {
		detector = rulesadvisor.New(rules.DefaultSettings())
	} else {
		m, err := res.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("advisor model: %w", err)
		}
		model = m
		if a.settings.Advisor.Gate == config.GateRules {
			detector = rulesadvisor.New(rules.DefaultSettings())
		}
	}
	var system string
	var err error
	var name string
	if rr != nil {
		name = rr.member.decl.Name
		var w string
		if w, err = a.advisorWatchdog(); err == nil {
			system = advisor.RosterPrompt(advisor.DefaultSystemPrompt, w, rr.shared, name, rr.member.decl.Instructions)
		}
	} else {
		system, err = a.advisorSystem()
	}
	if err != nil {
		return nil, nil, err
	}
	a.warnPromptFit(name, system, contextWindow(res, model))
	var rec *advisorhost.Transcript
	var recorder advisor.Recorder
	var rt *advisor.Runtime
	if model != nil {
		rec, err = advisorhost.OpenNamedTranscript(sess, name, func() llm.Ref {
			// Each reply is recorded with the model that served it, which
			// a promotion or a changed modelRoles.advisor moves on.
			if rt == nil {
				return llm.Ref{}
			}
			ref, _ := llm.ParseRef(rt.Status().Model)
			return ref
		}, func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) })
		if err != nil {
			return nil, nil, err
		}
		recorder = rec
	}
	withhold := !a.settings.Advisor.AllowPromptInjection
	if withhold {
		host = withholdLog{Host: host, logf: func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) }}
	}
	var modelName string
	if model != nil {
		modelName = res.Ref().String()
	}
	var guard *advisor.RosterGuard
	var toolNames []string
	perUpdate := a.settings.Advisor.MaxNotesPerUpdate
	cadence := a.settings.Advisor.Cadence
	if rr != nil {
		if c := rr.member.decl.Cadence; c != "" {
			cadence = c
		}
		guard, toolNames = rr.guard, rr.member.decl.Tools
		// A member's own cap, else the roster's in all (which the roster
		// guard keeps).
		perUpdate = rr.member.decl.MaxNotesPerUpdate
		if perUpdate <= 0 {
			perUpdate = a.loadRoster().MaxNotesPerUpdate
		}
	}
	rt, err = advisor.New(advisor.Options{
		Name:        name,
		Roster:      guard,
		ToolNames:   toolNames,
		ModelName:   modelName,
		System:      system,
		Recorder:    recorder,
		Model:       model,
		Detector:    detector,
		Gate:        detector != nil && model != nil,
		Host:        host,
		Withhold:    withhold,
		Roots:       []string{a.project, a.cwd},
		ImmuneTurns: immuneTurns(a.settings.Advisor.ImmuneTurns),

		MaxNotesPerUpdate: perUpdate,
		Cadence:           mustCadence(cadence),
		FollowThinking:    a.settings.Advisor.Effort == "auto",
		Start:             start,
		// Context maintenance: the advisor model's window, and the larger
		// model advisor.promotion allows to move to when it fills.
		ContextWindow: contextWindow(res, model),
		Promote: func(need int64) (advisor.Promotion, bool) {
			// From the model serving now: promotions and a changed
			// modelRoles.advisor move it on.
			return a.promoteAdvisor(rt.Status().Model, need)
		},
		OnNotice: func(s string) { fmt.Fprintln(a.e.stderr, "vigil: "+s) },
		Redactor: a.redactor(),
		// The runtime's warnings name the advisor themselves.
		OnWarning: a.supervisionWarning,
		// The agent's questions (the ask_advisor tool).
		ConsultTimeout:   a.settings.Advisor.Consult.Timeout(),
		ConsultMaxPerRun: a.settings.Advisor.Consult.MaxPerRun,
	})
	if err != nil {
		if rec != nil {
			rec.Close()
		}
		return nil, nil, err
	}
	return rt, rec, nil
}

// withholdLog is the host of an advisor whose notes are withheld from the
// agent (advisor.allowPromptInjection: false): each note is logged on
// stderr (a sidecar's log), then shown by the host as it shows them.
type withholdLog struct {
	advisor.Host
	logf func(format string, args ...any)
}

func (w withholdLog) Withhold(ctx context.Context, note advisor.Advice) error {
	sev := string(note.Severity)
	if sev == "" {
		sev = "note"
	}
	w.logf("advisor %s, withheld from the agent (advisor.allowPromptInjection is false): %q", sev, note.Note)
	if h, ok := w.Host.(advisor.Withholder); ok {
		return h.Withhold(ctx, note)
	}
	return nil
}

// ShowPromotion passes promotions on to the host it wraps.
func (w withholdLog) ShowPromotion(ctx context.Context, p advisor.PromotionRecord) error {
	if h, ok := w.Host.(advisor.PromotionShower); ok {
		return h.ShowPromotion(ctx, p)
	}
	return nil
}

// redactor hides, in everything an advisor's model is sent, the
// environment's secrets and the API keys vigil itself holds.
func (a *app) redactor() *history.Redactor {
	return history.NewRedactor(os.Environ(), a.registry.Secrets())
}

// advisorSystem is the advisor's system prompt: ours, then the
// WATCHDOG.md files (advisor-only guidance) from the agent folder and the
// project, most general first.
func (a *app) advisorSystem() (string, error) {
	w, err := a.advisorWatchdog()
	if err != nil {
		return "", err
	}
	// The single advisor is the roster of one: WATCHDOG.yml's shared
	// instructions apply to it too.
	return advisor.RosterPrompt(advisor.DefaultSystemPrompt, w, a.loadRoster().Instructions, "", ""), nil
}

// advisorWatchdog is the WATCHDOG.md files of the agent folder and the
// project, most general first, as the advisor's prompt shows them.
func (a *app) advisorWatchdog() (string, error) {
	home, _ := a.e.lookupEnv("HOME")
	files, err := contextfiles.Discover(contextfiles.Options{
		Names:        contextfiles.WatchdogNames(),
		AgentDir:     a.agentDir,
		Dir:          a.cwd,
		Home:         home,
		WalkFromHome: true,
		Logf:         func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: advisor: "+format+"\n", args...) },
	})
	if err != nil {
		return "", err
	}
	return advisor.WatchdogPrompt(files), nil
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

// contextWindow is the advisor model's window, 0 when there is no model.
func contextWindow(res *models.Resolved, model llm.Model) int {
	if res == nil || model == nil {
		return 0
	}
	return res.Info.ContextWindow
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
	res, err := a.resolveAdvisor(s)
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: keeping advisor model %s: %v\n", cur.Ref(), err)
		return
	}
	model, err := res.Open()
	if err != nil {
		return
	}
	run.rt.SetModel(model, res.Ref().String())
	a.mu.Lock()
	a.advisorRes = res
	a.mu.Unlock()
	fmt.Fprintf(a.e.stderr, "vigil: advisor model is now %s\n", res.Ref())
}

// immuneTurns maps advisor.immuneTurns (0: every note may interrupt) to
// advisor.Options.ImmuneTurns (0: the default; negative: off).
func immuneTurns(n int) int {
	if n <= 0 {
		return -1
	}
	return n
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
	run, res := a.adv, a.advisorRes
	a.mu.Unlock()
	if run == nil {
		return "Advisor is not active for this session."
	}
	if run.proster != nil {
		return periodicRosterTranscript(run.proster)
	}
	if run.per != nil {
		return strings.TrimRight(run.per.Transcript().Compact(), "\n")
	}
	if run.fleet != nil {
		_, where, _ := run.fleet.remoteStatus()
		return "The advisor of this session runs on the " + where + ": its transcript is the workers'."
	}
	if run.members != nil {
		return rosterTranscript(run.members, raw)
	}
	t := run.rt.Transcript()
	if raw {
		name := "rules (zero-token detectors)"
		if res != nil && !a.rulesOnly() {
			name = res.Ref().String()
		}
		return strings.TrimRight(t.Raw(name), "\n")
	}
	return strings.TrimRight(t.Compact(), "\n")
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
	if !a.rulesOnly() && !a.periodic() {
		res, err := a.resolveAdvisor(a.settings)
		if err != nil {
			if errors.Is(err, errNoAdvisorModel) {
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

// addSpent adds what a stopped advisor spent to the app's running total:
// u in all, by the model that served it.
func (a *app) addSpent(u llm.Usage, byModel []advisor.ModelUsage) {
	a.mu.Lock()
	a.advSpent = a.advSpent.Add(u)
	a.advSpentBy = append(a.advSpentBy, byModel...)
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
	run, res, on, spent, spentBy := a.adv, a.advisorRes, a.advOn, a.advSpent, slices.Clone(a.advSpentBy)
	a.mu.Unlock()
	switch {
	case on && run != nil && run.fleet != nil:
		return run.fleet.status()
	case on && run != nil && run.proster != nil:
		return a.periodicRosterStatus(run.proster)
	case on && run != nil && run.per != nil:
		return a.periodicStatus(run)
	case on && run != nil && run.members != nil:
		return a.rosterStatus(run.members)
	case on && run != nil && a.rulesOnly():
		st := run.rt.Status()
		return fmt.Sprintf("Advisor is enabled (rules: zero-token detectors, no model). Reviews: %d. %s Spend: $0.", st.Reviews, a.notesStatus(st))
	case on && (run == nil || res == nil):
		return "Advisor setting is enabled, but no model is assigned to the 'advisor' role."
	case run == nil:
		return "Advisor is disabled."
	}
	st := run.rt.Status()
	u := spent.Add(st.Usage)
	var b strings.Builder
	fmt.Fprintf(&b, "Advisor is enabled (%s). Context: %s", cmp.Or(st.Model, res.Ref().String()), group(st.ContextTokens))
	if w := cmp.Or(st.Window, res.Info.ContextWindow); w > 0 {
		fmt.Fprintf(&b, " / %s tokens (%d%%)", group(int64(w)), (st.ContextTokens*100+int64(w)/2)/int64(w))
	} else {
		b.WriteString(" tokens")
	}
	fmt.Fprintf(&b, ". Spend: %s input, %s output", group(u.Input), group(u.Output))
	if u.CacheRead > 0 {
		fmt.Fprintf(&b, ", %s cache read", group(u.CacheRead))
	}
	if u.CacheWrite > 0 {
		fmt.Fprintf(&b, ", %s cache write", group(u.CacheWrite))
	}
	// Each call is priced at the model that served it.
	fmt.Fprintf(&b, ", $%.4f. Reviews: %d (%d failed attempts, %d backlogs dropped, %d resets). %s",
		a.priceUsage(append(spentBy, st.Models...), res.Info.Price), st.Reviews, st.Failures, st.Dropped, st.Resets, a.notesStatus(st))
	b.WriteString(consultsStatus(st.Consults, st.ConsultFailures, st.ConsultsRefused, st.ConsultUsage))
	if st.Promotions+st.Compactions+st.Reprimes > 0 {
		fmt.Fprintf(&b, " Context maintenance: %d promotions, %d compactions, %d re-primes.", st.Promotions, st.Compactions, st.Reprimes)
	}
	if st.ProseStreak >= advisor.ProseWarnAfter {
		fmt.Fprintf(&b, " Warning: its last %d reviews ended in prose without calling advise, so nothing reached the agent; this model may not use tools as asked.", st.ProseStreak)
	}
	if h := healthText(st); h != "" {
		fmt.Fprintf(&b, " Health: %s.", h)
	}
	for _, p := range st.Promoted {
		fmt.Fprintf(&b, " Promoted from %s to %s at about %s tokens.", p.From, p.To, group(p.Need))
	}
	if len(st.Models) > 1 {
		parts := make([]string, 0, len(st.Models))
		for _, mu := range st.Models {
			parts = append(parts, fmt.Sprintf("%s $%.4f", mu.Model, a.priceUsage([]advisor.ModelUsage{mu}, res.Info.Price)))
		}
		fmt.Fprintf(&b, " By model: %s.", strings.Join(parts, ", "))
	}
	return b.String()
}

// notesStatus says what became of the advisor's notes: delivered to the
// agent, or, with advisor.allowPromptInjection false, withheld from it.
func (a *app) notesStatus(st advisor.Status) string {
	if !a.settings.Advisor.AllowPromptInjection {
		return fmt.Sprintf("Notes: %d withheld from the agent (advisor.allowPromptInjection is false: shown here and in the transcript, never in the agent's context).", st.Withheld)
	}
	return fmt.Sprintf("Notes: %d delivered.", st.Delivered)
}

// group writes n with thousands separators: 1,234,567.
func group(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// mustCadence is advisor.ParseCadence of a cadence the settings already
// checked (config.ValidCadence): every step for anything else.
func mustCadence(s string) advisor.Cadence {
	c, _ := advisor.ParseCadence(s)
	return c
}
