package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/config"
	"github.com/vigil-dev/vigil/internal/advisorhost"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/session"
)

// fleetOn reports whether the session's advisor is served by a fleet of
// workers (advisor.fleet.url) rather than run in this process.
func (a *app) fleetOn() bool { return a.settings.Advisor.Fleet.URL != "" }

// fleetSetupTimeout bounds connecting to the fleet and subscribing to a
// session's notes: a fleet that does not answer by then leaves the
// session unreviewed, and the agent goes on.
const fleetSetupTimeout = 5 * time.Second

// fleetSession names a session on the fleet: its id when that is a
// subject token, otherwise a digest of it.
func fleetSession(id string) string {
	if fleet.ValidName(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "s" + hex.EncodeToString(sum[:16])
}

// fleetWhere names the fleet of f for status lines: its URLs without
// the passwords or tokens they may hold.
func fleetWhere(f config.Fleet) string {
	urls := strings.Split(f.URL, ",")
	for i, u := range urls {
		u = strings.TrimSpace(u)
		if p, err := url.Parse(u); err == nil && p.User != nil {
			p.User = nil
			u = p.String()
		}
		urls[i] = u
	}
	return "fleet " + strings.Join(urls, ",") + ", tenant " + f.Tenant
}

// fleetRun is a session's advisor on the fleet: the remote over the
// agent's host, and its connection.
type fleetRun struct {
	remote *fleet.Remote
	nc     *nats.Conn
	// where names the fleet, for status lines.
	where string
}

// stop publishes what is queued, then closes the connection.
func (f *fleetRun) stop() {
	f.remote.Stop()
	f.nc.Close()
}

// startFleet connects session id's advisor to the fleet over host and
// starts it: its steps go to the tenant's stream, its notes come back to
// host. start says where the fleet's advisor starts (advisor.StartAtBeginning:
// the first entry; otherwise what the agent's model sees now). It fails
// when the fleet cannot be reached within fleetSetupTimeout; the caller
// warns and runs the agent unadvised.
func (a *app) startFleet(host advisor.Host, id string, start advisor.StartPoint, logf func(string, ...any)) (*fleetRun, error) {
	f := a.settings.Advisor.Fleet
	sess := fleetSession(id)
	ctx, cancel := context.WithTimeout(context.Background(), fleetSetupTimeout)
	defer cancel()
	flags := natsFlags{Creds: f.Creds, TLSCA: f.TLSCA, TLSCert: f.TLSCert, TLSKey: f.TLSKey}
	nc, err := flags.connect(f.URL, "vigil agent ("+f.Tenant+"/"+sess+")", nats.MaxReconnects(-1), nats.ReconnectWait(time.Second), nats.Timeout(fleetSetupTimeout))
	if err != nil {
		return nil, fmt.Errorf("advisor fleet: %w", err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("advisor fleet %s: %w", f.URL, err)
	}
	// Steps are numbered from the clock: no number an earlier process of
	// the session used comes again (the stream would drop it as a
	// repeat), and nothing needs reading first.
	copts := fleet.ClientOptions{Tenant: f.Tenant, Session: sess, NextSeq: fleet.ClockSeq(), PublishTimeout: f.PublishTimeout()}
	c, err := fleet.NewClient(ctx, nc, copts)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// No worker has run yet: make the streams, so that the steps
		// wait for one. (An account that may only publish steps and
		// read its notes cannot, and needs not once they exist.)
		if perr := fleet.Provision(ctx, js, f.Tenant, fleet.Limits{MaxSteps: f.Backlog}); perr != nil {
			logf("advisor fleet: %v", perr)
		}
		c, err = fleet.NewClient(ctx, nc, copts)
	}
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("advisor fleet %s: %w", f.URL, err)
	}
	where := fleetWhere(config.Fleet{URL: nc.ConnectedUrlRedacted(), Tenant: f.Tenant})
	remote := fleet.NewRemote(c, host, fleet.RemoteOptions{
		Withhold: !a.settings.Advisor.AllowPromptInjection,
		Start:    start,
		Logf:     logf,
		OnTrouble: func(ok bool, err error) {
			if ok {
				logf("advisor fleet: publishing again; the session's steps are reviewed")
				return
			}
			a.supervisionWarning(fmt.Sprintf("advisor: the fleet (%s) does not take the session's steps (%v); they are not reviewed until it does", where, err))
		},
	})
	remote.Start(context.Background())
	return &fleetRun{remote: remote, nc: nc, where: where}, nil
}

// errFleetConsult is the ask_advisor tool's answer when a fleet serves
// the advisor: questions go to an advisor in this process.
var errFleetConsult = errors.New("the advisor runs on a fleet of workers, which does not take questions yet")

// startFleetRun is startAdvisor for a fleet: host's events go to the
// fleet and its notes come back to host. With the fleet unreachable it
// warns and returns nil: the agent runs unadvised (fail-open).
func (a *app) startFleetRun(host *advisorhost.Host, sess *session.Session, fwd *forwardHook, start advisor.StartPoint) *advisorRun {
	logf := func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) }
	f, err := a.startFleet(host, sess.ID(), start, logf)
	if err != nil {
		host.Close()
		a.supervisionWarning(fmt.Sprintf("advisor: %v; the session is not reviewed", err))
		return nil
	}
	// advisor.syncBacklog waits for the fleet's reviews as for a local
	// runtime's.
	host.SetSync(a.settings.Advisor.SyncBacklog.Threshold(), a.settings.Advisor.SyncTimeout(), f.remote.WaitBacklogBelow)
	fwd.set(host.Hook())
	host.Forward(f.remote.Notify)
	return &advisorRun{host: host, fleet: f, unsub: func() {}}
}

// status is /advisor status for a fleet-served advisor.
func (f *fleetRun) status() string {
	st := f.remote.Status()
	s := fmt.Sprintf("Advisor is enabled (%s). Steps published: %d, reviewed: %d, waiting: %d, not published (the fleet unreachable): %d. Notes delivered: %d asides, %d steers, %d cards, %d withheld. Spend: counted by the workers (vigil stats --fleet).",
		f.where, st.Published, st.Reviewed, st.Backlog, st.Dropped, st.Notes[fleet.KindAside], st.Notes[fleet.KindSteer], st.Notes[fleet.KindCard], st.Notes[fleet.KindWithhold])
	return s
}
