package supervise

import (
	"cmp"
	"errors"
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/contextfiles"
	"github.com/vigil-dev/vigil/history"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/rulesadvisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
)

// Config is what every session's advisor is built from, whatever its
// host: the settings, the roster, the models, and how to tell the user.
// A host copies it to change what differs per session (a fleet worker's
// Logf and Warn name the session).
type Config struct {
	// Settings are the settings in force (the advisor section and
	// modelRoles). Required.
	Settings *config.Settings
	// Registry resolves and prices models. Required.
	Registry *models.Registry
	// ModelRef is --advisor-model: "" is modelRoles.advisor,
	// [config.ReviewerRules] the detectors alone.
	ModelRef string
	// Roster is WATCHDOG.yml's advisors and shared instructions; nil is
	// none.
	Roster *config.Roster
	// AgentDir and ProjectDir are where the settings come from: the
	// periodic review's instructions are read again from there for each
	// review. Dir and Home are where WATCHDOG.md files are found; Dir ""
	// reads none (a fleet worker has no workspace).
	AgentDir, ProjectDir, Dir, Home string
	// Roots are the folders the advisor's read-only tools may read; nil
	// leaves it the advise tool alone.
	Roots []string
	// Redactor hides secrets in everything an advisor's model is sent.
	Redactor *history.Redactor
	// Logf is the log the runtimes' notices and transcripts' troubles go
	// to; nil logs nothing.
	Logf func(format string, args ...any)
	// Warn tells the user that supervision is failing, where they look;
	// nil logs it through Logf.
	Warn func(msg string)
	// AgentModel is the agent's own model: promotions never move to it,
	// and vigil's agent's periodic reviews fork onto it. nil is none.
	AgentModel func() *models.Resolved
}

// ErrNoModel says the advisor is on but no model is assigned.
var ErrNoModel = errors.New("no model is assigned to the 'advisor' role (pass --advisor-model REF or set modelRoles.advisor)")

func (c *Config) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

func (c *Config) warn(msg string) {
	if c.Warn != nil {
		c.Warn(msg)
		return
	}
	c.logf("warning: %s", msg)
}

// RulesOnly reports whether the advisor is vigil's detectors alone, with
// no model: advisor.reviewer rules, or --advisor-model rules.
func (c *Config) RulesOnly() bool {
	return c.ModelRef == config.ReviewerRules || (c.ModelRef == "" && c.Settings.Advisor.Reviewer == config.ReviewerRules)
}

// Periodic reports whether the advisor runs in the periodic mode
// (advisor.mode: periodic).
func (c *Config) Periodic() bool { return c.Settings.Advisor.Mode == config.ModePeriodic }

// Fleet reports whether a fleet of workers serves the advisor
// (advisor.fleet.url).
func (c *Config) Fleet() bool { return c.Settings.Advisor.Fleet.URL != "" }

// Resolve finds and opens the advisor model: ModelRef, or
// modelRoles.advisor in s ([ErrNoModel] when neither names one).
func (c *Config) Resolve(s *config.Settings) (*models.Resolved, error) {
	ref := c.ModelRef
	if ref == "" {
		r, ok := s.Role(config.RoleAdvisor)
		if !ok {
			return nil, ErrNoModel
		}
		ref = r.String()
	}
	res, err := c.Registry.Resolve(ref)
	if err == nil {
		_, err = res.Open()
	}
	if err != nil {
		return nil, fmt.Errorf("advisor model %s: %w", ref, err)
	}
	return res, nil
}

// roster is the roster, empty when there is none.
func (c *Config) roster() *config.Roster {
	if c.Roster == nil {
		return &config.Roster{}
	}
	return c.Roster
}

// RosterOn is the roster's advisors that are enabled (in WATCHDOG.yml
// and not turned off with /advisor off NAME).
func (c *Config) RosterOn() []config.RosterAdvisor {
	var out []config.RosterAdvisor
	for _, adv := range c.roster().Advisors {
		if c.MemberOn(adv) {
			out = append(out, adv)
		}
	}
	return out
}

// MemberOn reports whether a roster's advisor runs: its enabled field,
// unless advisor.roster (/advisor on|off NAME) says otherwise.
func (c *Config) MemberOn(adv config.RosterAdvisor) bool {
	if on, ok := c.Settings.Advisor.Roster[adv.Name]; ok {
		return on
	}
	return adv.On()
}

// System is the single advisor's system prompt: ours, then the
// WATCHDOG.md files, then WATCHDOG.yml's shared instructions (the single
// advisor is the roster of one).
func (c *Config) System() (string, error) {
	w, err := c.Watchdog()
	if err != nil {
		return "", err
	}
	return advisor.RosterPromptParts{Base: advisor.DefaultSystemPrompt, Watchdog: w, Shared: c.roster().Instructions}.Prompt(), nil
}

// Watchdog is the WATCHDOG.md files of the agent folder and the project,
// most general first, as the advisor's prompt shows them; "" with no Dir.
func (c *Config) Watchdog() (string, error) {
	if c.Dir == "" {
		return "", nil
	}
	files, err := contextfiles.Discover(contextfiles.Options{
		Names:        contextfiles.WatchdogNames(),
		AgentDir:     c.AgentDir,
		Dir:          c.Dir,
		Home:         c.Home,
		WalkFromHome: true,
		Logf:         func(format string, args ...any) { c.logf("advisor: "+format, args...) },
	})
	if err != nil {
		return "", err
	}
	return advisor.WatchdogPrompt(files), nil
}

// ReviewInstructions reads advisor.periodic.reviewInstructions afresh
// for each review, so an edit applies without a restart; if the settings
// no longer load, the value the advisor started with stays.
func (c *Config) ReviewInstructions() string {
	s, err := config.Load(config.Options{AgentDir: c.AgentDir, ProjectDir: c.ProjectDir})
	if err != nil {
		c.logf("warning: re-reading the review instructions: %v", err)
		return c.Settings.Advisor.Periodic.ReviewInstructions
	}
	return s.Advisor.Periodic.ReviewInstructions
}

// Promote offers an advisor on the model serving, when its context nears
// its window, the model advisor.promotion allows (by default a larger
// model of the same family, never the agent's own; see
// models.PromotionPolicy).
func (c *Config) Promote(serving string, need int64) (advisor.Promotion, bool) {
	cur, err := c.Registry.Resolve(serving)
	if err != nil {
		return advisor.Promotion{}, false
	}
	list := c.Settings.Advisor.Promotion
	p := models.PromotionPolicy{Candidates: list, Listed: list != nil}
	if c.AgentModel != nil {
		if agentRes := c.AgentModel(); agentRes != nil {
			p.Avoid = agentRes.Info.Ref()
		}
	}
	res, ok := c.Registry.PromotionTarget(cur, need, p)
	if !ok {
		return advisor.Promotion{}, false
	}
	m, err := res.Open()
	if err != nil {
		c.logf("warning: advisor promotion to %s: %v", res.Ref(), err)
		return advisor.Promotion{}, false
	}
	return advisor.Promotion{Model: m, Window: res.Info.ContextWindow, Name: res.Ref().String()}, true
}

// PriceUsage prices each model's share of the advisor's usage at that
// model's own rates; a model the registry no longer knows is priced at
// fallback's.
func (c *Config) PriceUsage(byModel []advisor.ModelUsage, fallback llm.Price) float64 {
	var total float64
	for _, mu := range byModel {
		price := fallback
		if res, err := c.Registry.Resolve(mu.Model); err == nil {
			price = res.Info.Price
		}
		total += price.Cost(mu.Usage)
	}
	return total
}

// detector is the detectors as a reviewer or gate, a fresh one per call.
func detector() advisor.Detector { return rulesadvisor.New(rules.DefaultSettings()) }

// periodicOptions are the periodic mode's options from the settings, over
// host, recording to rec and logging with logf. With advisor.gate: rules
// the rules pull a review forward at a finding or a signal.
func (c *Config) periodicOptions(host advisor.PeriodicHost, rec advisor.Recorder, logf func(string, ...any)) advisor.PeriodicOptions {
	s := c.Settings.Advisor
	var d advisor.Detector
	if s.Gate == config.GateRules {
		d = detector()
	}
	return advisor.PeriodicOptions{
		Detector:       d,
		Host:           host,
		EveryToolCalls: s.Periodic.EveryToolCalls,
		EveryMinutes:   s.Periodic.EveryMinutes,
		Instructions:   c.ReviewInstructions,
		ReviewTimeout:  s.Periodic.ReviewTimeout(),
		Recorder:       rec,
		Logf:           logf,
		OnWarning:      func(w string) { logf("warning: %s", w) },

		ConsultTimeout:   s.Consult.Timeout(),
		ConsultMaxPerRun: s.Consult.MaxPerRun,
		Withhold:         !s.AllowPromptInjection,
	}
}

// PeriodicOptions are the periodic mode's options for a fleet worker's
// session, logging with logf: the settings' triggers and guidance, no
// host or recorder (the worker gives them).
func (c *Config) PeriodicOptions(logf func(string, ...any)) advisor.PeriodicOptions {
	return c.periodicOptions(nil, nil, logf)
}

// reviewPrompt is a periodic advisor's review guidance: the settings',
// then the roster's shared instructions, then the advisor's own (name,
// own; "" for the single advisor). The periodic review reads no
// WATCHDOG.md.
func (c *Config) reviewPrompt(name, own string) func() string {
	shared := c.roster().Instructions
	return func() string {
		return advisor.RosterPromptParts{Base: cmp.Or(strings.TrimSpace(c.ReviewInstructions()), advisor.DefaultReviewInstructions), Shared: shared, Name: name, Own: own}.Prompt()
	}
}

// ImmuneTurns maps advisor.immuneTurns (0: every note may interrupt) to
// advisor.Options.ImmuneTurns (0: the default; negative: off).
func ImmuneTurns(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}

// Rebound re-reads the settings and, if modelRoles.advisor now names
// another model than cur that resolves, makes it adv's model and returns
// it; nil when the model stays (the command line chose it, the settings
// did not change it, or adv has no one model to change).
func (c *Config) Rebound(adv Advisor, cur *models.Resolved) *models.Resolved {
	if c.ModelRef != "" {
		return nil // the command line chose the model
	}
	s, err := config.Load(config.Options{AgentDir: c.AgentDir, ProjectDir: c.ProjectDir})
	if err != nil {
		c.logf("warning: re-reading settings: %v", err)
		return nil
	}
	ref, ok := s.Role(config.RoleAdvisor)
	if !ok || cur == nil || ref.String() == cur.Ref().String() {
		return nil
	}
	res, err := c.Resolve(s)
	if err != nil {
		c.logf("warning: keeping advisor model %s: %v", cur.Ref(), err)
		return nil
	}
	if !adv.Rebind(res) {
		return nil
	}
	c.logf("advisor model is now %s", res.Ref())
	return res
}

// RosterListing is /advisor's list of the roster while none of it runs:
// each advisor, whether it is on, and its model.
func (c *Config) RosterListing() string {
	var b strings.Builder
	b.WriteString("Advisors (WATCHDOG.yml roster; the advisor is off, /advisor on starts them):")
	for _, adv := range c.roster().Advisors {
		state := "on"
		if !c.MemberOn(adv) {
			state = "off"
		}
		fmt.Fprintf(&b, "\n- %s: %s, model %s (%s).", adv.Name, state, cmp.Or(adv.Model, "modelRoles.advisor"), adv.Source)
	}
	return b.String()
}

// CheckMember says, for /advisor on|off NAME, why name is no advisor of
// the roster (nil when it is one).
func (c *Config) CheckMember(name string) error {
	var names []string
	for _, adv := range c.roster().Advisors {
		if adv.Name == name {
			return nil
		}
		names = append(names, adv.Name)
	}
	if len(names) == 0 {
		return fmt.Errorf("/advisor %s: WATCHDOG.yml declares no advisors (docs/advisor.md, \"Several advisors\")", name)
	}
	return fmt.Errorf("/advisor: no advisor %q in the roster (%s)", name, strings.Join(names, ", "))
}

// SidecarReviewer resolves the advisor of a host that has no model of
// its own (a sidecar): the advisor model (nil: none), whether the
// periodic mode runs (its forks go to that model), and the reviewer's
// name for the sidecar's status. With a fleet no model is resolved: the
// workers review. A model that does not resolve leaves the detectors
// alone (ModelRef becomes [config.ReviewerRules]), logged with why.
func (c *Config) SidecarReviewer(logf func(string, ...any)) (res *models.Resolved, periodic bool, reviewer string) {
	periodic = c.Periodic() && !c.Fleet()
	reviewer = config.ReviewerRules
	switch {
	case c.Fleet():
		return nil, false, FleetWhere(c.Settings.Advisor.Fleet.URL, c.Settings.Advisor.Fleet.Tenant)
	case !periodic && c.RulesOnly():
		return nil, false, reviewer
	}
	res, err := c.Resolve(c.Settings)
	switch {
	case err != nil && periodic:
		logf("%v: the periodic mode needs a model to ask; reviewing continuously with vigil's detectors alone", err)
		c.ModelRef = config.ReviewerRules
		return nil, false, reviewer
	case err != nil:
		logf("%v: reviewing with vigil's detectors alone (advisor.reviewer: rules)", err)
		c.ModelRef = config.ReviewerRules
		return nil, false, reviewer
	}
	reviewer = res.Ref().String()
	if periodic {
		reviewer = "periodic, forks on " + reviewer
	}
	return res, periodic, reviewer
}
