package advisorhost_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/llm"
)

// subagentSystem is the system prompt of a scenario's subagents, by which
// their requests are told from the primary's.
const subagentSystem = "SUBAGENT-SYSTEM-PROMPT"

// PeriodicSettings are a scenario's settings of the periodic mode.
type PeriodicSettings struct {
	Mode                 string `yaml:"mode"`
	EveryToolCalls       int    `yaml:"everyToolCalls"`
	EveryMinutes         int    `yaml:"everyMinutes"`
	ReviewInstructions   string `yaml:"reviewInstructions"`
	ReviewTimeoutSeconds int    `yaml:"reviewTimeoutSeconds"`
	AllowPromptInjection *bool  `yaml:"allowPromptInjection"`
}

// buildPeriodic attaches a periodic advisor to the scenario's agent, as
// the CLI does: the agent waits at a boundary for the review it forked.
func (s *scenario) buildPeriodic() {
	t := s.t
	st := s.settings.PeriodicSettings
	allow := st.AllowPromptInjection == nil || *st.AllowPromptInjection
	ph := advisorhost.NewPeriodic(s.host, allow, nil)
	if len(s.settings.Roster) > 0 {
		s.buildPeriodicRoster(ph)
		return
	}
	var err error
	s.per, err = advisor.NewPeriodic(advisor.PeriodicOptions{
		Host:           ph,
		EveryToolCalls: st.EveryToolCalls,
		EveryMinutes:   st.EveryMinutes,
		Instructions:   func() string { return st.ReviewInstructions },
		ReviewTimeout:  time.Duration(st.ReviewTimeoutSeconds) * time.Second,
		Logf:           s.logf,
		OnWarning:      func(w string) { s.logf("%s", w) },
	})
	if err != nil {
		t.Fatal(err)
	}
	timeout := time.Duration(s.settings.SyncTimeoutSeconds) * time.Second
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	s.host.SetSync(1, timeout, func(ctx context.Context, _ int) error { return s.per.WaitReview(ctx) })
	ph.Forward(s.per.Notify)
	s.per.Start(context.Background())
	t.Cleanup(func() {
		s.per.Stop()
		s.host.Close()
	})
}

// buildPeriodicRoster runs a periodic advisor per roster entry over ph,
// as vigil's agent does with a WATCHDOG.yml roster in the periodic mode:
// each forks onto its model ("" or m: the agent's own), with its own
// review prompt, and one RosterGuard spans them.
func (s *scenario) buildPeriodicRoster(ph *advisorhost.Periodic) {
	t := s.t
	st := s.settings.PeriodicSettings
	r := &advisor.PeriodicRoster{Guard: advisor.NewRosterGuard(s.settings.MaxNotesPerUpdate)}
	for _, m := range s.settings.Roster {
		host := advisor.PeriodicHost(ph)
		if m.Model != "" && m.Model != "m" {
			host = ph.ForkOn(s.model(m.Model), llm.Ref{Provider: "fake", Model: m.Model})
		}
		name, own := m.Name, m.Instructions
		per, err := advisor.NewPeriodic(advisor.PeriodicOptions{
			Host:           host,
			Name:           name,
			Roster:         r.Guard,
			EveryToolCalls: st.EveryToolCalls,
			EveryMinutes:   st.EveryMinutes,
			Instructions: func() string {
				return advisor.RosterPromptParts{Base: cmpOr(strings.TrimSpace(st.ReviewInstructions), advisor.DefaultReviewInstructions), Shared: s.settings.RosterInstructions, Name: name, Own: own}.Prompt()
			},
			ReviewTimeout: time.Duration(st.ReviewTimeoutSeconds) * time.Second,
			Logf:          s.logf,
			OnWarning:     func(w string) { s.logf("%s", w) },
		})
		if err != nil {
			t.Fatal(err)
		}
		r.Members = append(r.Members, per)
	}
	s.proster = r
	s.per = r.Members[0]
	timeout := time.Duration(s.settings.SyncTimeoutSeconds) * time.Second
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	s.host.SetSync(1, timeout, func(ctx context.Context, _ int) error { return r.WaitReview(ctx) })
	ph.Forward(r.Notify)
	r.Start(context.Background())
	t.Cleanup(func() {
		r.Stop()
		s.host.Close()
	})
}

// logf keeps the advisor's log lines for the log checks.
func (s *scenario) logf(format string, args ...any) {
	line := fmt.Sprintf(format, args...)
	s.mu.Lock()
	s.logs = append(s.logs, line)
	s.mu.Unlock()
	s.t.Log(line)
}

// checkLog runs "log contains|lacks TEXT".
func (s *scenario) checkLog(verb, text string, fail func(string, ...any)) {
	s.mu.Lock()
	logs := strings.Join(s.logs, "\n")
	s.mu.Unlock()
	switch has := strings.Contains(logs, text); {
	case verb == "contains" && !has:
		fail("no log line holds it; log:\n%s", logs)
	case verb == "lacks" && has:
		fail("a log line holds it; log:\n%s", logs)
	case verb != "contains" && verb != "lacks":
		fail("bad check")
	}
}
