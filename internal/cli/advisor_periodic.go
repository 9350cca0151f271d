package cli

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
	"github.com/vigil-dev/vigil/config"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/rulesadvisor"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/rules"
	"github.com/vigil-dev/vigil/session"
)

// periodic reports whether the advisor runs in the periodic mode
// (advisor.mode: periodic): reviews on the agent's own model, so no
// advisor model is needed.
func (a *app) periodic() bool {
	return a.settings.Advisor.Mode == config.ModePeriodic
}

// startPeriodic makes and starts the periodic advisor of ag, whose hook
// target is fwd: it counts the user's runs' tool calls and run time,
// forks the session onto the agent's own model when a review is due, and
// steers a correction into the run. At each step boundary the agent waits
// for the review it just forked, at most advisor.syncTimeoutSeconds, so a
// correction lands right after the result it is about.
func (a *app) startPeriodic(ag *agent.Agent, sess *session.Session, fwd *forwardHook) (*advisorRun, error) {
	logf := func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) }
	rec, err := advisorhost.OpenTranscript(sess, a.primaryRef, logf)
	if err != nil {
		return nil, err
	}
	host := advisorhost.New(ag, sess)
	s := a.settings.Advisor
	ph := advisorhost.NewPeriodic(host, s.AllowPromptInjection, a.redactor())
	opts := a.singlePeriodicOptions(ph, rec, logf)
	opts.OnWarning = a.supervisionWarning // in the session too, where the user looks
	per, err := advisor.NewPeriodic(opts)
	if err != nil {
		host.Close()
		rec.Close()
		return nil, err
	}
	host.SetSync(1, s.SyncTimeout(), func(ctx context.Context, _ int) error { return per.WaitReview(ctx) })
	fwd.set(host.Hook())
	ph.Forward(per.Notify)
	per.Start(context.Background())
	return &advisorRun{host: host, per: per, rec: rec, unsub: func() {}}, nil
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

// periodicOptions are the periodic mode's options from the settings, over
// host, recording to rec and logging with logf. With advisor.gate: rules
// the rules pull a review forward at a finding or a signal; each call
// makes a detector of its own.
func (a *app) periodicOptions(host advisor.PeriodicHost, rec advisor.Recorder, logf func(string, ...any)) advisor.PeriodicOptions {
	s := a.settings.Advisor
	var detector advisor.Detector
	if s.Gate == config.GateRules {
		detector = rulesadvisor.New(rules.DefaultSettings())
	}
	return advisor.PeriodicOptions{
		Detector:       detector,
		Host:           host,
		EveryToolCalls: s.Periodic.EveryToolCalls,
		EveryMinutes:   s.Periodic.EveryMinutes,
		Instructions:   a.reviewInstructions,
		ReviewTimeout:  s.Periodic.ReviewTimeout(),
		Recorder:       rec,
		Logf:           logf,
		OnWarning:      func(w string) { logf("warning: %s", w) },

		ConsultTimeout:   s.Consult.Timeout(),
		ConsultMaxPerRun: s.Consult.MaxPerRun,
		Withhold:         !s.AllowPromptInjection,
	}
}

// singlePeriodicOptions are [app.periodicOptions] for the single
// periodic advisor of vigil's agent or a sidecar, the roster of one: its
// review guidance is followed by WATCHDOG.yml's shared instructions, as
// a roster's periodic advisor's is.
func (a *app) singlePeriodicOptions(host advisor.PeriodicHost, rec advisor.Recorder, logf func(string, ...any)) advisor.PeriodicOptions {
	opts := a.periodicOptions(host, rec, logf)
	if shared := a.loadRoster().Instructions; shared != "" {
		opts.Instructions = func() string {
			return advisor.RosterPrompt(cmp.Or(strings.TrimSpace(a.reviewInstructions()), advisor.DefaultReviewInstructions), "", shared, "", "")
		}
	}
	return opts
}

// reviewInstructions reads advisor.periodic.reviewInstructions afresh
// for each review, so an edit applies without a restart; if the settings
// no longer load, the value vigil started with stays.
func (a *app) reviewInstructions() string {
	s, err := config.Load(config.Options{AgentDir: a.agentDir, ProjectDir: a.project})
	if err != nil {
		fmt.Fprintf(a.e.stderr, "vigil: warning: re-reading the review instructions: %v\n", err)
		return a.settings.Advisor.Periodic.ReviewInstructions
	}
	return s.Advisor.Periodic.ReviewInstructions
}

// periodicStatus is /advisor status in the periodic mode: the mode and
// its triggers, the counters since the last review, the reviews by
// outcome, the last one, and the spend.
func (a *app) periodicStatus(run *advisorRun) string {
	st := run.per.Status()
	a.mu.Lock()
	res, spent := a.model, a.advSpent
	a.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Advisor is enabled (periodic mode, on the agent's model")
	if res != nil {
		fmt.Fprintf(&b, " %s", res.Ref())
	}
	b.WriteString(triggersText(st))
	b.WriteString(periodicCounts(st, true))
	if !a.settings.Advisor.AllowPromptInjection {
		b.WriteString(" Corrections are withheld from the agent (advisor.allowPromptInjection is false): blocked ones are shown here, in the transcript and in the log, never in the agent's context.")
	}
	u := spent.Add(st.Usage)
	fmt.Fprintf(&b, " Spend: %s input, %s output, %s cache read", group(u.Input), group(u.Output), group(u.CacheRead))
	if u.CacheWrite > 0 {
		fmt.Fprintf(&b, ", %s cache write", group(u.CacheWrite))
	}
	if res != nil {
		fmt.Fprintf(&b, ", $%.4f", res.Info.Price.Cost(u))
	}
	b.WriteString(".")
	return b.String()
}

// triggersText is "; a review every N tool calls or M minutes of run
// time)." for a periodic advisor's status.
func triggersText(st advisor.PeriodicStatus) string {
	var triggers []string
	if st.EveryToolCalls > 0 {
		triggers = append(triggers, fmt.Sprintf("%d tool calls", st.EveryToolCalls))
	}
	if st.EveryMinutes > 0 {
		triggers = append(triggers, fmt.Sprintf("%d minutes of run time", st.EveryMinutes))
	}
	if len(triggers) == 0 {
		return "; both triggers are 0, so no review runs)."
	}
	return fmt.Sprintf("; a review every %s).", strings.Join(triggers, " or "))
}

// periodicCounts is a periodic advisor's counters for its status: since
// the last review, the reviews by outcome (held ones with a roster), the
// last one and the consults.
func periodicCounts(st advisor.PeriodicStatus, since bool) string {
	var b strings.Builder
	if since {
		fmt.Fprintf(&b, " Since the last review: %d tool calls, %s of run time", st.ToolCalls, st.RunTime.Round(time.Second))
		switch {
		case st.InFlight:
			b.WriteString("; a review is running")
		case st.Due:
			b.WriteString("; a review is due")
		}
		b.WriteString(".")
	}
	fmt.Fprintf(&b, " Reviews: %d (%d steered, %d no change, %d malformed, %d blocked, %d dropped, %d failed", st.Reviews, st.Steered, st.NoChange, st.Malformed, st.Blocked, st.Dropped, st.Failed)
	if st.Held > 0 {
		fmt.Fprintf(&b, ", %d held back by the roster's guard", st.Held)
	}
	fmt.Fprintf(&b, "; %d cancelled, %d stood down).", st.Cancelled, st.StoodDown)
	last := string(st.Last)
	if last == "" {
		last = "none yet"
	}
	fmt.Fprintf(&b, " Last: %s.", strings.ReplaceAll(last, "_", " "))
	b.WriteString(consultsStatus(st.Consults, st.ConsultFailures, st.ConsultsRefused, st.ConsultUsage))
	return b.String()
}
