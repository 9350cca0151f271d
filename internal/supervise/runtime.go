package supervise

import (
	"context"
	"fmt"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
)

// member is what newRuntime needs to make a roster's advisor: its
// declaration, the guard the roster shares, the shared instructions.
type member struct {
	decl   config.RosterAdvisor
	guard  *advisor.RosterGuard
	shared string
	// rosterMax is the roster's maxNotesPerUpdate in all.
	rosterMax int
}

// newRuntime makes (does not start) a continuous advisor runtime over h,
// its transcript recorded in h.Session's artifacts folder, with the
// model res (nil: the detectors alone when they are asked for). It
// returns a nil runtime when there is nothing to review with. m, when
// set, makes it an advisor of the roster: its name, its own instructions
// after the shared ones, its tools, its transcript file, and the guard
// it shares with the others.
func newRuntime(c *Config, h Host, res *models.Resolved, m *member) (*advisor.Runtime, *advisorhost.Transcript, error) {
	rulesOnly := c.RulesOnly()
	if res == nil && !rulesOnly {
		return nil, nil, nil
	}
	var model llm.Model
	var d advisor.Detector
	if rulesOnly {
		d = detector()
	} else {
		mo, err := res.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("advisor model: %w", err)
		}
		model = mo
		if c.Settings.Advisor.Gate == config.GateRules {
			d = detector()
		}
	}
	var system, name string
	var err error
	if m != nil {
		name = m.decl.Name
		var w string
		if w, err = c.Watchdog(); err == nil {
			system = advisor.RosterPromptParts{Base: advisor.DefaultSystemPrompt, Watchdog: w, Shared: m.shared, Name: name, Own: m.decl.Instructions}.Prompt()
		}
	} else {
		system, err = c.System()
	}
	if err != nil {
		return nil, nil, err
	}
	window := contextWindow(res, model)
	warnPromptFit(c, name, system, window)
	var rec *advisorhost.Transcript
	var recorder advisor.Recorder
	var rt *advisor.Runtime
	if model != nil && h.Session != nil {
		rec, err = advisorhost.OpenNamedTranscript(h.Session, name, func() llm.Ref {
			// Each reply is recorded with the model that served it, which
			// a promotion or a changed modelRoles.advisor moves on.
			if rt == nil {
				return llm.Ref{}
			}
			ref, _ := llm.ParseRef(rt.Status().Model)
			return ref
		}, c.logf)
		if err != nil {
			return nil, nil, err
		}
		recorder = rec
	}
	host := h.Host
	withhold := !c.Settings.Advisor.AllowPromptInjection
	if withhold {
		host = withholdLog{Host: host, logf: c.logf}
	}
	var modelName string
	if model != nil {
		modelName = res.Ref().String()
	}
	var guard *advisor.RosterGuard
	var toolNames []string
	perUpdate := c.Settings.Advisor.MaxNotesPerUpdate
	cadence := c.Settings.Advisor.Cadence
	if m != nil {
		guard, toolNames = m.guard, m.decl.Tools
		// A member's own cap, else the roster's in all (which the roster
		// guard keeps); its own cadence, else advisor.cadence.
		perUpdate = m.decl.MaxNotesPerUpdate
		if perUpdate <= 0 {
			perUpdate = m.rosterMax
		}
		if m.decl.Cadence != "" {
			cadence = m.decl.Cadence
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
		Detector:    d,
		Gate:        d != nil && model != nil,
		Host:        host,
		Withhold:    withhold,
		Roots:       c.Roots,
		ImmuneTurns: ImmuneTurns(c.Settings.Advisor.ImmuneTurns),
		Start:       h.Start,

		MaxNotesPerUpdate: perUpdate,
		Cadence:           mustCadence(cadence),
		FollowThinking:    c.Settings.Advisor.Effort == "auto",
		// Context maintenance: the advisor model's window, and the larger
		// model advisor.promotion allows to move to when it fills.
		ContextWindow: window,
		Promote: func(need int64) (advisor.Promotion, bool) {
			// From the model serving now: promotions and a changed
			// modelRoles.advisor move it on.
			return c.Promote(rt.Status().Model, need)
		},
		OnNotice: func(s string) { c.logf("%s", s) },
		Redactor: c.Redactor,
		// The runtime's warnings name the advisor themselves.
		OnWarning: c.warn,
		// The agent's questions (the ask_advisor tool).
		ConsultTimeout:   c.Settings.Advisor.Consult.Timeout(),
		ConsultMaxPerRun: c.Settings.Advisor.Consult.MaxPerRun,
	})
	if err != nil {
		if rec != nil {
			rec.Close()
		}
		return nil, nil, err
	}
	return rt, rec, nil
}

// contextWindow is the advisor model's window, 0 when there is no model.
func contextWindow(res *models.Resolved, model llm.Model) int {
	if res == nil || model == nil {
		return 0
	}
	return res.Info.ContextWindow
}

// warnPromptFit warns, where the user looks, when an advisor's system
// prompt leaves no room in its model's window for the session it
// reviews ([advisor.PromptRoom]): such an advisor only compacts and
// re-primes, and never reviews. name is the roster advisor's name, ""
// for the single advisor.
func warnPromptFit(c *Config, name, system string, window int) {
	tokens := int64(len(system)) / 4
	ok, limit := advisor.PromptRoom(tokens, window)
	if ok {
		return
	}
	who := "advisor"
	if name != "" {
		who = "advisor " + name
	}
	c.warn(fmt.Sprintf("%s: its system prompt (vigil's advisor prompt, the WATCHDOG.md files and the WATCHDOG.yml instructions) is about %d tokens, too large for its model's context window of %d tokens (at most about %d leave room for the session), so it cannot review the session", who, tokens, window, limit))
}

// withholdLog is the host of an advisor whose notes are withheld from the
// agent (advisor.allowPromptInjection: false): each note is logged (a
// sidecar's log), then shown by the host as it shows them.
type withholdLog struct {
	advisor.Host
	logf func(format string, args ...any)
}

// Thinking passes the wrapped host's [advisor.ThinkingSource] on: ""
// when it has none.
func (w withholdLog) Thinking() llm.ThinkingLevel {
	if src, ok := w.Host.(advisor.ThinkingSource); ok {
		return src.Thinking()
	}
	return ""
}

// Withhold implements [advisor.Withholder].
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

// mustCadence is advisor.ParseCadence of a cadence the settings already
// checked (config.ValidCadence): every step for anything else.
func mustCadence(s string) advisor.Cadence {
	c, _ := advisor.ParseCadence(s)
	return c
}
