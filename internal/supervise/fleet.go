package supervise

import (
	"fmt"
	"strings"

	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/models"
)

// fleetAdvisor is a session's advisor served by a fleet of workers: the
// [fleet.Link] over the host.
type fleetAdvisor struct {
	*fleet.Link
	sync int
}

// newFleet connects the session's advisor to the fleet over h and starts
// it (the link starts at once: there is nothing to Start). With the
// fleet unreachable it warns and the agent runs unreviewed (fail-open)
// while the fleet is tried again; once it is reached h.FleetUp is told.
func newFleet(c *Config, h Host) Advisor {
	f := c.Settings.Advisor.Fleet
	logf := h.logf(c)
	down := h.FleetDown
	if down == nil {
		down = func(err error) { c.warn(FleetDownWarning(err)) }
	}
	up := h.FleetUp
	if up == nil {
		up = func(at string) { logf("advisor: the fleet (%s) answers now; the session's steps are reviewed", at) }
	}
	l := fleet.Connect(fleet.LinkOptions{
		URL: f.URL, Tenant: f.Tenant,
		Auth:           fleet.Auth{Creds: f.Creds, TLSCA: f.TLSCA, TLSCert: f.TLSCert, TLSKey: f.TLSKey},
		Session:        h.SessionID,
		Host:           h.Host,
		Start:          h.Start,
		Withhold:       !c.Settings.Advisor.AllowPromptInjection,
		PublishTimeout: f.PublishTimeout(),
		Backlog:        f.Backlog,
		ConsultTimeout: c.Settings.Advisor.Consult.Timeout(),
		Redactor:       c.Redactor,
		Logf:           logf,
		Down:           down,
		Up:             up,
		Trouble: func(at string, ok bool, err error) {
			if ok {
				logf("advisor: the fleet (%s) takes the session's steps again; they are reviewed", at)
				return
			}
			c.warn(FleetTroubleWarning(at, err))
		},
	})
	// advisor.syncBacklog waits for the fleet's reviews as for a local
	// runtime's.
	return fleetAdvisor{Link: l, sync: c.Settings.Advisor.SyncBacklog.Threshold()}
}

// FleetTroubleWarning is the warning of a fleet (at, as [fleet.At] names
// it) that does not take a step: err is the client's.
func FleetTroubleWarning(at string, err error) string {
	why := strings.TrimPrefix(fleet.HideCredentials(err.Error()), "fleet: ")
	return fmt.Sprintf("advisor: the fleet (%s) does not take the session's steps (%s); they are not reviewed until it does", at, why)
}

// FleetDownWarning is the warning of a fleet not reached when a session
// starts.
func FleetDownWarning(err error) string {
	return fmt.Sprintf("advisor: %v; the session is not reviewed until the fleet answers (vigil tries again)", err)
}

// FleetWhere names the fleet of the settings for status lines: "fleet "
// and [fleet.At].
func FleetWhere(url, tenant string) string { return "fleet " + fleet.At(url, tenant) }

func (f fleetAdvisor) Start()                       {}
func (f fleetAdvisor) Spent() Spent                 { return Spent{} }
func (f fleetAdvisor) SyncBacklog() int             { return f.sync }
func (f fleetAdvisor) Rebind(*models.Resolved) bool { return false }

// Stop ends the link; the workers pay, and count it (vigil stats
// --fleet).
func (f fleetAdvisor) Stop() Spent {
	f.Link.Stop()
	return Spent{}
}

func (f fleetAdvisor) Dump(bool) string {
	_, where, _, _ := f.Status()
	return "The advisor of this session runs on the fleet " + where + ": its transcript is the workers'."
}

func (f fleetAdvisor) Report(Spent) Report {
	st, where, ok, lastErr := f.Status()
	where = "fleet " + where
	if !ok {
		return Report{
			Text: fmt.Sprintf("Advisor is enabled (%s), but the fleet is not reached yet (%v): vigil tries again, and the session's steps are not reviewed until it answers.", where, lastErr),
			Line: Line{On: true, Model: where, Warning: "the fleet is not reached yet: the session is not reviewed (/advisor status)"},
		}
	}
	return Report{
		Text: fmt.Sprintf("Advisor is enabled (%s). Steps published: %d, reviewed: %d, waiting: %d, not published (the fleet unreachable): %d. Notes delivered: %d asides, %d steers, %d cards, %d withheld. Spend: counted by the workers (vigil stats --fleet).",
			where, st.Published, st.Reviewed, st.Backlog, st.Dropped, st.Notes[fleet.KindAside], st.Notes[fleet.KindSteer], st.Notes[fleet.KindCard], st.Notes[fleet.KindWithhold]),
		Line: Line{On: true, Model: where, Reviewing: st.Backlog > 0, Backlog: st.Backlog, Reviews: int(st.Reviewed)},
	}
}
