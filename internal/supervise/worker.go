package supervise

import (
	"context"
	"fmt"
	"io"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/models"
)

// Reviewers is a fleet worker's reviewer of each session (vigil serve
// --reviewer model): the roster's advisors when WATCHDOG.yml (of the
// worker's agent folder) declares some that run, else the single runtime
// on res, each with vigil's own prompt (a worker has no workspace, so no
// WATCHDOG.md and no read-only tools: what an advisor knows is the steps
// it is sent). Each session's notices and warnings go to out, naming it.
func (c *Config) Reviewers(res *models.Resolved, out io.Writer) fleet.ReviewerFactory {
	s := *c.Settings
	s.Advisor.Reviewer = config.ReviewerModel
	s.Advisor.Mode = config.ModeContinuous
	s.Advisor.Fleet = config.Fleet{} // the worker is the fleet
	return func(info fleet.SessionInfo, h advisor.Host) (fleet.Reviewer, error) {
		sc := *c
		sc.Settings, sc.Dir, sc.Roots = &s, "", nil
		sc.Logf = func(format string, args ...any) {
			fmt.Fprintf(out, "vigil serve: session %s: %s\n", info.Session, fmt.Sprintf(format, args...))
		}
		sc.Warn = func(msg string) { fmt.Fprintf(out, "vigil serve: warning: session %s: %s\n", info.Session, msg) }
		adv, err := New(&sc, Host{Host: h, Start: info.Start}, res)
		if err != nil {
			return nil, err
		}
		return reviewer{adv}, nil
	}
}

// reviewer is an [Advisor] as a fleet worker's [fleet.Reviewer]: each
// step ends with [advisor.EventStepEnded], and its review is done when
// the backlog is empty. It answers the agents' questions
// ([fleet.Consulter]) as the advisor does.
type reviewer struct{ Advisor }

var _ fleet.Consulter = reviewer{}

func (r reviewer) Start(context.Context) { r.Advisor.Start() }
func (r reviewer) Stop()                 { r.Advisor.Stop() }

func (r reviewer) Review(ctx context.Context, step fleet.StepEnd) error {
	r.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: step.Cursor})
	if err := r.WaitBacklogBelow(ctx, 1); err != nil {
		return fmt.Errorf("waiting for the advisor's review: %w", err)
	}
	return nil
}

func (r reviewer) Usage() []advisor.ModelUsage { return r.Spent().ByModel }
