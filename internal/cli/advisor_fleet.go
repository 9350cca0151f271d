package cli

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/agent"
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

// fleetAt names the fleet of f in messages, "the fleet (…)": its URLs
// without the users, passwords or tokens they may hold, and its tenant.
func fleetAt(f config.Fleet) string {
	urls := strings.Split(f.URL, ",")
	for i, u := range urls {
		urls[i] = fleet.HideCredentials(strings.TrimSpace(u))
	}
	return strings.Join(urls, ",") + ", tenant " + f.Tenant
}

// fleetWhere names the fleet of f for status lines: "fleet " and
// [fleetAt].
func fleetWhere(f config.Fleet) string { return "fleet " + fleetAt(f) }

// fleetRun is a session's advisor on the fleet: the remote over the
// agent's host, and its connection. A fleet not reached at the start is
// tried again in the background (fleetRetry); until it is reached the
// session's steps go unreviewed and the agent never waits for them.
type fleetRun struct {
	// where names the fleet, for status lines.
	where string
	// consultTimeout bounds a question (advisor.consult.timeoutSeconds).
	consultTimeout time.Duration

	mu     sync.Mutex
	remote *fleet.Remote // nil until the fleet is reached
	nc     *nats.Conn
	// lastErr says why the fleet is not reached yet.
	lastErr error

	cancel context.CancelFunc // ends the retries
	done   chan struct{}      // closed when they have ended
}

// current is the remote, or nil while the fleet is not reached.
func (f *fleetRun) current() *fleet.Remote {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.remote
}

// Notify passes the host's event to the fleet; before it is reached the
// event is dropped (the remote, once it starts, primes from the agent's
// view).
func (f *fleetRun) Notify(ev advisor.Event) {
	if r := f.current(); r != nil {
		r.Notify(ev)
	}
}

// WaitBacklogBelow waits for the fleet's reviews; there is nothing to
// wait for before it is reached.
func (f *fleetRun) WaitBacklogBelow(ctx context.Context, n int) error {
	if r := f.current(); r != nil {
		return r.WaitBacklogBelow(ctx, n)
	}
	return nil
}

// remoteStatus is the remote's counters and where the fleet is; ok is
// false while the fleet is not reached.
func (f *fleetRun) remoteStatus() (st fleet.RemoteStatus, where string, ok bool) {
	f.mu.Lock()
	r, where := f.remote, f.where
	f.mu.Unlock()
	if r == nil {
		return fleet.RemoteStatus{}, where, false
	}
	return r.Status(), where, true
}

// stop ends the retries, publishes what is queued, then closes the
// connection.
func (f *fleetRun) stop() {
	f.cancel()
	<-f.done
	f.mu.Lock()
	r, nc := f.remote, f.nc
	f.mu.Unlock()
	if r != nil {
		r.Stop()
		nc.Close()
	}
}

// fleetRetry bounds the wait between two attempts to reach a fleet that
// was not reachable at the session's start: 1 s, doubling up to this.
const fleetRetry = 30 * time.Second

// startFleet connects session id's advisor to the fleet over host and
// starts it: its steps go to the tenant's stream, its notes come back to
// host. start says where the fleet's advisor starts (advisor.StartAtBeginning:
// the first entry; otherwise what the agent's model sees now). A fleet
// that cannot be reached within fleetSetupTimeout is reported to down
// (the caller warns; the agent runs unreviewed) and tried again in the
// background, each attempt after the one before it, until it is reached
// (then up is called with the fleet's [fleetAt], and the fleet's advisor
// starts from what the agent's model sees then) or the run is stopped.
func (a *app) startFleet(host advisor.Host, id string, start advisor.StartPoint, logf func(string, ...any), down func(error), up func(where string)) *fleetRun {
	f := &fleetRun{where: fleetWhere(a.settings.Advisor.Fleet), done: make(chan struct{}),
		consultTimeout: a.settings.Advisor.Consult.Timeout()}
	ctx, cancel := context.WithCancel(context.Background())
	f.cancel = cancel
	r, nc, err := a.dialFleet(host, id, start, logf)
	if err == nil {
		f.remote, f.nc, f.where = r, nc, fleetWhere(config.Fleet{URL: nc.ConnectedUrl(), Tenant: a.settings.Advisor.Fleet.Tenant})
		close(f.done)
		return f
	}
	f.lastErr = err
	down(err)
	go func() {
		defer close(f.done)
		wait := time.Second
		for {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
			wait = min(2*wait, fleetRetry)
			r, nc, err := a.dialFleet(host, id, advisor.StartPrimed, logf)
			if err != nil {
				f.mu.Lock()
				f.lastErr = err
				f.mu.Unlock()
				continue
			}
			if ctx.Err() != nil {
				r.Stop()
				nc.Close()
				return
			}
			f.mu.Lock()
			f.remote, f.nc, f.lastErr = r, nc, nil
			f.where = fleetWhere(config.Fleet{URL: nc.ConnectedUrl(), Tenant: a.settings.Advisor.Fleet.Tenant})
			at := fleetAt(config.Fleet{URL: nc.ConnectedUrl(), Tenant: a.settings.Advisor.Fleet.Tenant})
			f.mu.Unlock()
			up(at)
			return
		}
	}()
	return f
}

// dialFleet connects to the fleet and starts the session's remote over
// host, within fleetSetupTimeout.
func (a *app) dialFleet(host advisor.Host, id string, start advisor.StartPoint, logf func(string, ...any)) (*fleet.Remote, *nats.Conn, error) {
	f := a.settings.Advisor.Fleet
	sess := fleetSession(id)
	ctx, cancel := context.WithTimeout(context.Background(), fleetSetupTimeout)
	defer cancel()
	flags := natsFlags{Creds: f.Creds, TLSCA: f.TLSCA, TLSCert: f.TLSCert, TLSKey: f.TLSKey}
	nc, err := flags.connect(f.URL, "vigil agent ("+f.Tenant+"/"+sess+")", nats.MaxReconnects(-1), nats.ReconnectWait(time.Second), nats.Timeout(fleetSetupTimeout))
	if err != nil {
		return nil, nil, fleetNotReached(f, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fleet.HideCredentialsIn(fmt.Errorf("the fleet (%s): %w", fleetAt(f), err))
	}
	// Steps are numbered from the clock: no number an earlier process of
	// the session used comes again (the stream would drop it as a
	// repeat), and nothing needs reading first.
	// Everything published is redacted as the advisor's requests are:
	// the steps stream keeps it on the server's disk.
	copts := fleet.ClientOptions{Tenant: f.Tenant, Session: sess, NextSeq: fleet.ClockSeq(), PublishTimeout: f.PublishTimeout(), AckNotes: true, Redactor: a.redactor()}
	c, err := fleet.NewClient(ctx, nc, copts)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// No worker has run yet: make the streams, so that the steps
		// wait for one. (An account that may only publish steps and
		// read its notes cannot, and needs not once they exist.)
		if perr := fleet.Provision(ctx, js, f.Tenant, fleet.Limits{MaxSteps: f.Backlog}); perr != nil {
			logf("advisor: setting up the fleet's streams: %v", fleet.HideCredentialsIn(perr))
		}
		c, err = fleet.NewClient(ctx, nc, copts)
	}
	if err != nil {
		nc.Close()
		return nil, nil, fleet.HideCredentialsIn(fmt.Errorf("the fleet (%s): %w", fleetAt(f), err))
	}
	at := fleetAt(config.Fleet{URL: nc.ConnectedUrl(), Tenant: f.Tenant})
	remote := fleet.NewRemote(c, host, fleet.RemoteOptions{
		Withhold: !a.settings.Advisor.AllowPromptInjection,
		Start:    start,
		Logf:     logf,
		OnTrouble: func(ok bool, err error) {
			if ok {
				logf("advisor: the fleet (%s) takes the session's steps again; they are reviewed", at)
				return
			}
			a.supervisionWarning(fleetTroubleWarning(at, err))
		},
	})
	remote.Start(context.Background())
	return remote, nc, nil
}

// errFleetNotReached is the ask_advisor tool's answer while the fleet
// is not reached: unavailable.
var errFleetNotReached = fmt.Errorf("the fleet is not reached yet: %w", advisor.ErrStopped)

// Consult asks the fleet's advisor of the session (for ask_advisor and
// the sidecar's vigil mcp), within advisor.consult.timeoutSeconds; the
// workers' own settings cap the questions of a run.
func (f *fleetRun) Consult(ctx context.Context, question string) (string, error) {
	r := f.current()
	if r == nil {
		return "", errFleetNotReached
	}
	ctx, cancel := context.WithTimeout(ctx, f.consultTimeout)
	defer cancel()
	return r.Consult(ctx, question)
}

// fleetNotReached is dialFleet's error when f cannot be connected to.
func fleetNotReached(f config.Fleet, err error) error {
	return fleet.HideCredentialsIn(fmt.Errorf("the fleet (%s) is not reached: %w", fleetAt(f), err))
}

// fleetTroubleWarning is the warning of a fleet (at, as [fleetAt] names
// it) that does not take a step: err is the client's.
func fleetTroubleWarning(at string, err error) string {
	why := strings.TrimPrefix(fleet.HideCredentials(err.Error()), "fleet: ")
	return fmt.Sprintf("advisor: the fleet (%s) does not take the session's steps (%s); they are not reviewed until it does", at, why)
}

// fleetDownWarning is the warning of a fleet not reached when a session
// starts; err is [app.dialFleet]'s.
func fleetDownWarning(err error) string {
	return fmt.Sprintf("advisor: %v; the session is not reviewed until the fleet answers (vigil tries again)", err)
}

// startFleetRun is startAdvisor for a fleet: host's events go to the
// fleet and its notes come back to host. With the fleet unreachable it
// warns and the agent runs unreviewed (fail-open) while the fleet is
// tried again; once it is reached the session says so and is reviewed
// from then on. The warning goes to ag's session: ag is not yet the
// app's agent when its advisor starts.
func (a *app) startFleetRun(ag *agent.Agent, host *advisorhost.Host, sess *session.Session, fwd *forwardHook, start advisor.StartPoint) *advisorRun {
	logf := func(format string, args ...any) { fmt.Fprintf(a.e.stderr, "vigil: "+format+"\n", args...) }
	f := a.startFleet(host, sess.ID(), start, logf,
		func(err error) {
			a.supervisionWarningOn(ag, fleetDownWarning(err))
		},
		func(at string) {
			a.supervisionNotice("fleet", "The advisor's fleet ("+at+") answers now: the session's steps are reviewed from here on.")
		})
	// advisor.syncBacklog waits for the fleet's reviews as for a local
	// runtime's.
	host.SetSync(a.settings.Advisor.SyncBacklog.Threshold(), a.settings.Advisor.SyncTimeout(), f.WaitBacklogBelow)
	fwd.set(host.Hook())
	host.Forward(f.Notify)
	return &advisorRun{host: host, fleet: f, unsub: func() {}}
}

// status is /advisor status for a fleet-served advisor.
func (f *fleetRun) status() string {
	f.mu.Lock()
	r, where, lastErr := f.remote, f.where, f.lastErr
	f.mu.Unlock()
	if r == nil {
		return fmt.Sprintf("Advisor is enabled (%s), but the fleet is not reached yet (%v): vigil tries again, and the session's steps are not reviewed until it answers.", where, lastErr)
	}
	st := r.Status()
	s := fmt.Sprintf("Advisor is enabled (%s). Steps published: %d, reviewed: %d, waiting: %d, not published (the fleet unreachable): %d. Notes delivered: %d asides, %d steers, %d cards, %d withheld. Spend: counted by the workers (vigil stats --fleet).",
		where, st.Published, st.Reviewed, st.Backlog, st.Dropped, st.Notes[fleet.KindAside], st.Notes[fleet.KindSteer], st.Notes[fleet.KindCard], st.Notes[fleet.KindWithhold])
	return s
}
