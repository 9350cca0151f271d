package supervise

import (
	"context"
	"errors"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// Advisor is a session's advisor in whatever mode it runs: one runtime,
// a roster of them, the periodic mode alone or as a roster, or a fleet's.
// Its methods are safe for concurrent use.
type Advisor interface {
	// Start starts it; the host's events then reach it through Notify.
	Start()
	// Notify passes it one of the host's events; it never blocks.
	Notify(ev advisor.Event)
	// WaitBacklogBelow waits until fewer than n steps are unreviewed (in
	// the periodic mode: until the review forked last is done), or ctx
	// ends.
	WaitBacklogBelow(ctx context.Context, n int) error
	// SyncBacklog is the backlog at which a host's boundary waits for
	// it: advisor.syncBacklog, or 1 in the periodic mode (a boundary
	// waits for a review just forked).
	SyncBacklog() int
	// Consult asks it the agent's question (ask_advisor).
	Consult(ctx context.Context, question string) (string, error)
	// Report is its status for /advisor status and the status line;
	// prior is what the advisors it replaced spent.
	Report(prior Spent) Report
	// Dump is its transcript for /advisor dump, raw or compact.
	Dump(raw bool) string
	// Rebind makes res its model from now on, where one model serves it
	// (the single continuous advisor); it reports whether it did.
	Rebind(res *models.Resolved) bool
	// Spent is what it spent so far.
	Spent() Spent
	// Stop stops it, closes its transcripts and says what it spent.
	Stop() Spent
}

// Spent is what advisors spent: in all, and by the model that served it
// (for pricing each call at its model's rates).
type Spent struct {
	Usage   llm.Usage
	ByModel []advisor.ModelUsage
}

// Add is s and o together.
func (s Spent) Add(o Spent) Spent {
	return Spent{Usage: s.Usage.Add(o.Usage), ByModel: append(append([]advisor.ModelUsage(nil), s.ByModel...), o.ByModel...)}
}

// Report is an advisor's status: Text for /advisor status, Line for the
// terminal UI's status line.
type Report struct {
	Text string
	Line Line
	// Roster is Text when the advisor is a roster (WATCHDOG.yml), ""
	// otherwise: what /advisor lists.
	Roster string
}

// Line is the status line's advisor (the terminal UI's AdvisorStatus).
type Line struct {
	// On says the advisor runs; Model names its model ("rules" for the
	// zero-token detectors).
	On    bool
	Model string
	// Reviewing says a review is in flight or waiting; Backlog counts the
	// steps not reviewed yet.
	Reviewing bool
	Backlog   int
	// Reviews counts completed reviews; Cost their price in dollars.
	Reviews int
	Cost    float64
	// Context and Window are the advisor's own context size and window.
	Context, Window int64
	// Warning is what the user must know about supervision ("": nothing).
	Warning string
}

// ForkHost is a periodic host whose forks can go to another model, so
// that each advisor of a roster forks onto its own (advisorhost.Periodic
// in vigil's agent, sidecar.PeriodicHost in a sidecar).
type ForkHost interface {
	advisor.PeriodicHost
	ForkOn(model llm.Model, ref llm.Ref) advisor.PeriodicHost
}

// Host is what a host offers its session's advisor.
type Host struct {
	// Host is the advisor.Host the continuous runtimes talk through.
	// Required.
	Host advisor.Host
	// Fork, when set, makes the advisor periodic: the periodic host over
	// the same session. ForkRef names the model its own forks run on and
	// ForkPrice prices them; ForkRef nil says it has none, and a roster's
	// advisor without a model of its own then does not run.
	Fork      ForkHost
	ForkRef   func() llm.Ref
	ForkPrice func() llm.Price
	// Session is the vigil session whose artifacts folder the advisor's
	// transcripts go to. Required but for a fleet.
	Session *session.Session
	// SessionID names the session on a fleet.
	SessionID string
	// Start says where a continuous advisor starts reading.
	Start advisor.StartPoint
	// Logf is the host's log (the roster's and the periodic mode's
	// warnings, the fleet's troubles); nil is [Config.Logf].
	Logf func(format string, args ...any)
	// Warn tells the user of the periodic mode's supervision warnings;
	// nil logs them through Logf.
	Warn func(msg string)
	// FleetUp is told once a fleet not reached at the start answers
	// (where it is); nil logs it.
	FleetUp func(at string)
	// FleetDown is told why the fleet is not reached at the start; nil
	// warns through [Config.Warn].
	FleetDown func(err error)
}

func (h *Host) logf(c *Config) func(string, ...any) {
	if h.Logf != nil {
		return h.Logf
	}
	return c.logf
}

// ErrNothingToRun says the settings give the advisor nothing to review
// with: no model resolves and the detectors alone are not asked for.
var ErrNothingToRun = errors.New("no advisor to run")

// New builds the session's advisor over h in the mode the settings say
// (not started): a fleet's when advisor.fleet.url is set; else the
// periodic mode when h offers a Fork, its roster when WATCHDOG.yml's
// advisors can run and the single one otherwise; else the continuous
// roster, or the single runtime on res (nil: the detectors alone when
// they are asked for). It returns [ErrNothingToRun] when there is
// nothing to review with.
func New(c *Config, h Host, res *models.Resolved) (Advisor, error) {
	switch {
	case c.Fleet():
		return newFleet(c, h), nil
	case h.Fork != nil:
		if len(c.RosterOn()) > 0 {
			if r, err := newPeriodicRoster(c, h); r != nil || err != nil {
				return r, err
			}
		}
		return newPeriodic(c, h)
	}
	if len(c.RosterOn()) > 0 {
		if r, err := newRoster(c, h); r != nil || err != nil {
			return r, err
		}
	}
	s, err := newSingle(c, h, res)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, ErrNothingToRun
	}
	return s, nil
}
