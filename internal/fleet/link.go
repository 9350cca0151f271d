package fleet

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
	"github.com/vigil-dev/vigil/history"
)

// LinkSetupTimeout bounds connecting to the fleet and subscribing to a
// session's notes: a fleet that does not answer by then leaves the
// session unreviewed, and the agent goes on.
const LinkSetupTimeout = 5 * time.Second

// LinkRetryMax bounds the wait between two attempts to reach a fleet
// that was not reachable at the session's start: 1 s, doubling up to
// this.
const LinkRetryMax = 30 * time.Second

// LinkOptions configure a [Link]: a session's advisor served by a fleet.
type LinkOptions struct {
	// URL is the NATS server(s) (advisor.fleet.url), Tenant the tenant,
	// Auth their credentials and TLS. Required: URL and Tenant.
	URL, Tenant string
	Auth        Auth
	// Session is the agent's session id; a fleet names it [SessionName].
	Session string
	// Host is the agent's host the notes come back to.
	Host advisor.Host
	// Start is where the fleet's advisor starts ([RemoteOptions.Start]);
	// a fleet reached only later starts from what the agent's model sees
	// then ([advisor.StartPrimed]).
	Start advisor.StartPoint
	// Withhold shows every note to the user only
	// (advisor.allowPromptInjection false).
	Withhold bool
	// PublishTimeout bounds each step's publication
	// ([ClientOptions.PublishTimeout]); Backlog is the steps the
	// tenant's stream keeps when the link has to make it.
	PublishTimeout time.Duration
	Backlog        int64
	// ConsultTimeout bounds a question (advisor.consult.timeoutSeconds).
	ConsultTimeout time.Duration
	// Redactor hides secrets in everything published.
	Redactor *history.Redactor
	// Logf logs what the link does; nil logs nothing.
	Logf func(format string, args ...any)
	// Down is told why the fleet is not reached at the start (the caller
	// warns; the agent runs unreviewed); Up, once a later attempt
	// reaches it, where it is ([At]); Trouble when a step cannot be
	// published (ok false, with the client's error) and when publishing
	// works again (ok true). Each may be nil.
	Down    func(err error)
	Up      func(at string)
	Trouble func(at string, ok bool, err error)
}

// Link is a session's advisor on a fleet: the [Remote] over the agent's
// host, and its NATS connection. A fleet not reached at the start is
// tried again in the background, each attempt after the one before it,
// until it is reached or the link is stopped; until then the session's
// steps go unreviewed and the agent never waits for them.
type Link struct {
	o LinkOptions

	mu     sync.Mutex
	remote *Remote // nil until the fleet is reached
	nc     *nats.Conn
	where  string
	// lastErr says why the fleet is not reached yet.
	lastErr error

	cancel context.CancelFunc // ends the retries
	done   chan struct{}      // closed when they have ended
}

// ErrNotReached is what a question gets while the fleet is not reached:
// the advisor is unavailable ([advisor.ErrStopped]).
var ErrNotReached = fmt.Errorf("the fleet is not reached yet: %w", advisor.ErrStopped)

// Connect connects the session's advisor to the fleet and starts it, or,
// with the fleet unreachable within [LinkSetupTimeout], tells o.Down and
// goes on trying in the background.
func Connect(o LinkOptions) *Link {
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
	l := &Link{o: o, where: At(o.URL, o.Tenant), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	l.cancel = cancel
	r, nc, err := l.dial(o.Start)
	if err == nil {
		l.remote, l.nc, l.where = r, nc, At(nc.ConnectedUrl(), o.Tenant)
		close(l.done)
		return l
	}
	l.lastErr = err
	if o.Down != nil {
		o.Down(err)
	}
	go l.retry(ctx)
	return l
}

// retry tries to reach the fleet until it answers or ctx ends.
func (l *Link) retry(ctx context.Context) {
	defer close(l.done)
	wait := time.Second
	for {
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, LinkRetryMax)
		r, nc, err := l.dial(advisor.StartPrimed)
		if err != nil {
			l.mu.Lock()
			l.lastErr = err
			l.mu.Unlock()
			continue
		}
		if ctx.Err() != nil {
			r.Stop()
			nc.Close()
			return
		}
		at := At(nc.ConnectedUrl(), l.o.Tenant)
		l.mu.Lock()
		l.remote, l.nc, l.lastErr, l.where = r, nc, nil, at
		l.mu.Unlock()
		if l.o.Up != nil {
			l.o.Up(at)
		}
		return
	}
}

// dial connects to the fleet and starts the session's remote, within
// [LinkSetupTimeout].
func (l *Link) dial(start advisor.StartPoint) (*Remote, *nats.Conn, error) {
	o := l.o
	sess := SessionName(o.Session)
	ctx, cancel := context.WithTimeout(context.Background(), LinkSetupTimeout)
	defer cancel()
	nc, err := o.Auth.Dial(o.URL, "vigil agent ("+o.Tenant+"/"+sess+")", nats.MaxReconnects(-1), nats.ReconnectWait(time.Second), nats.Timeout(LinkSetupTimeout))
	if err != nil {
		return nil, nil, HideCredentialsIn(fmt.Errorf("the fleet (%s) is not reached: %w", At(o.URL, o.Tenant), err))
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, HideCredentialsIn(fmt.Errorf("the fleet (%s): %w", At(o.URL, o.Tenant), err))
	}
	// Steps are numbered from the clock: no number an earlier process of
	// the session used comes again (the stream would drop it as a
	// repeat), and nothing needs reading first.
	// Everything published is redacted as the advisor's requests are:
	// the steps stream keeps it on the server's disk.
	copts := ClientOptions{Tenant: o.Tenant, Session: sess, NextSeq: ClockSeq(), PublishTimeout: o.PublishTimeout, AckNotes: true, Redactor: o.Redactor}
	c, err := NewClient(ctx, nc, copts)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		// No worker has run yet: make the streams, so that the steps
		// wait for one. (An account that may only publish steps and
		// read its notes cannot, and needs not once they exist.)
		if perr := Provision(ctx, js, o.Tenant, Limits{MaxSteps: o.Backlog}); perr != nil {
			o.Logf("advisor: setting up the fleet's streams: %v", HideCredentialsIn(perr))
		}
		c, err = NewClient(ctx, nc, copts)
	}
	if err != nil {
		nc.Close()
		return nil, nil, HideCredentialsIn(fmt.Errorf("the fleet (%s): %w", At(o.URL, o.Tenant), err))
	}
	at := At(nc.ConnectedUrl(), o.Tenant)
	remote := NewRemote(c, o.Host, RemoteOptions{
		Withhold: o.Withhold,
		Start:    start,
		Logf:     o.Logf,
		OnTrouble: func(ok bool, err error) {
			if o.Trouble != nil {
				o.Trouble(at, ok, err)
			}
		},
	})
	remote.Start(context.Background())
	return remote, nc, nil
}

// current is the remote, or nil while the fleet is not reached.
func (l *Link) current() *Remote {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.remote
}

// Notify passes the host's event to the fleet; before it is reached the
// event is dropped (the remote, once it starts, primes from the agent's
// view).
func (l *Link) Notify(ev advisor.Event) {
	if r := l.current(); r != nil {
		r.Notify(ev)
	}
}

// WaitBacklogBelow waits for the fleet's reviews; there is nothing to
// wait for before it is reached.
func (l *Link) WaitBacklogBelow(ctx context.Context, n int) error {
	if r := l.current(); r != nil {
		return r.WaitBacklogBelow(ctx, n)
	}
	return nil
}

// Consult asks the fleet's advisor of the session, within
// [LinkOptions.ConsultTimeout]; the workers' own settings cap the
// questions of a run. Before the fleet is reached it is
// [ErrNotReached].
func (l *Link) Consult(ctx context.Context, question string) (string, error) {
	r := l.current()
	if r == nil {
		return "", ErrNotReached
	}
	if l.o.ConsultTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.o.ConsultTimeout)
		defer cancel()
	}
	return r.Consult(ctx, question)
}

// Status is the remote's counters and where the fleet is ([At]); ok is
// false while the fleet is not reached, and err then says why.
func (l *Link) Status() (st RemoteStatus, where string, ok bool, err error) {
	l.mu.Lock()
	r, where, lastErr := l.remote, l.where, l.lastErr
	l.mu.Unlock()
	if r == nil {
		return RemoteStatus{}, where, false, lastErr
	}
	return r.Status(), where, true, nil
}

// Stop ends the retries, publishes what is queued, then closes the
// connection.
func (l *Link) Stop() {
	l.cancel()
	<-l.done
	l.mu.Lock()
	r, nc := l.remote, l.nc
	l.mu.Unlock()
	if r != nil {
		r.Stop()
		nc.Close()
	}
}

// SessionName names a session on the fleet: its id when that is a
// subject token, otherwise a digest of it.
func SessionName(id string) string {
	if ValidName(id) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "s" + hex.EncodeToString(sum[:16])
}

// At names a fleet in messages: its URLs without the users, passwords or
// tokens they may hold, and its tenant ("nats://a:4222, tenant acme").
func At(url, tenant string) string {
	urls := strings.Split(url, ",")
	for i, u := range urls {
		urls[i] = HideCredentials(strings.TrimSpace(u))
	}
	return strings.Join(urls, ",") + ", tenant " + tenant
}
