package fleet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/vigil-dev/vigil/internal/natstest"
)

// accountsConf is docs/fleet.md's server configuration: an account per
// tenant, a worker user and an agent user in each.
const accountsConf = `
listen: 127.0.0.1:-1
jetstream { store_dir: %q }
accounts {
  ACME: {
    jetstream: enabled
    users: [
      { user: acme-worker, password: w,
        permissions: { publish: ["$JS.API.>", "$JS.ACK.>", "$JS.FC.>", "$KV.vigil_acme_leases.>", "vigil.acme.notes.*", "vigil.acme.usage.*"],
                       subscribe: ["_INBOX.>", "$KV.vigil_acme_leases.>", "vigil.acme.consult.*"], allow_responses: true } }
      { user: acme-agent, password: a,
        permissions: { publish: ["vigil.acme.steps.*", "vigil.acme.consult.*", "$JS.API.CONSUMER.>", "$JS.API.STREAM.INFO.VIGIL_acme_NOTES", "$JS.FC.>"],
                       subscribe: ["_INBOX.>"] } }
    ]
  }
  GLOBEX: {
    jetstream: enabled
    users: [
      { user: globex-agent, password: a,
        permissions: { publish: ["vigil.globex.steps.*", "vigil.globex.consult.*", "$JS.API.CONSUMER.>", "$JS.API.STREAM.INFO.VIGIL_globex_NOTES", "$JS.FC.>"],
                       subscribe: ["_INBOX.>"] } }
    ]
  }
}
`

// TestAccountsIsolateTenants runs the documented account setup: acme's
// worker and agent work with the permissions listed, and globex's agent,
// in another account, reaches none of acme's subjects or streams.
func TestAccountsIsolateTenants(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(conf, fmt.Appendf(nil, accountsConf, filepath.Join(dir, "js")), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	opts.NoLog, opts.NoSigs = true, true
	s := natstest.StartWith(t, opts)
	dial := func(user, pass string) *nats.Conn {
		nc, err := nats.Connect(s.ClientURL(), nats.UserInfo(user, pass), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(nc.Close)
		return nc
	}
	worker := dial("acme-worker", "w")
	w, err := NewWorker(worker, WorkerOptions{Tenant: "acme", Factory: perStepFactory, Limits: Limits{LeaseTTL: time.Second, Memory: true}, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	// The worker sets the streams up; the agent may not, so wait for them
	// from the worker's own connection.
	wjs, _ := jetstream.New(worker)
	if _, err := Ensure(context.Background(), wjs, "acme", Limits{LeaseTTL: time.Second, Memory: true}); err != nil {
		t.Fatalf("the worker's permissions do not let it set up its streams: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
	})

	agent := dial("acme-agent", "a")
	ajs, _ := jetstream.New(agent)
	// The agent may neither make nor read the tenant's streams.
	pctx0, pcancel0 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer pcancel0()
	if err := Provision(pctx0, ajs, "acme", Limits{}); err == nil {
		t.Error("the agent could read or make the tenant's streams")
	}
	c, err := NewClient(context.Background(), agent, ClientOptions{Tenant: "acme", Session: "s1"})
	if err != nil {
		t.Fatalf("the agent's permissions do not let it read its notes: %v", err)
	}
	defer c.Close()
	for i := 1; i <= 2; i++ {
		publish(t, c, "s1", i)
		wantNote(t, waitNote(t, c), "s1", i)
	}
	// The agent's question reaches the worker that owns the session, and
	// its answer comes back (the rules reviewer has no model to answer).
	q, _ := json.Marshal(consultRequest{Question: "Prod?"})
	var resp consultResponse
	if m, err := agent.Request(ConsultSubject("acme", "s1"), q, 10*time.Second); err != nil {
		t.Errorf("the agent's permissions do not let it ask its advisor: %v", err)
	} else if json.Unmarshal(m.Data, &resp) != nil || resp.Reason != "unavailable" {
		t.Errorf("the worker answered %s, want the rules reviewer's unavailable", m.Data)
	}

	// globex's agent, naming acme's subjects: another account, nothing there.
	other := dial("globex-agent", "a")
	if _, err := NewClient(context.Background(), other, ClientOptions{Tenant: "acme", Session: "s1", PublishTimeout: time.Second}); err == nil {
		t.Error("globex's agent subscribed to acme's notes")
	}
	if _, err := other.Request(ConsultSubject("acme", "s1"), q, time.Second); !errors.Is(err, nats.ErrNoResponders) && !errors.Is(err, nats.ErrTimeout) {
		t.Errorf("globex's agent asked acme's advisor: %v", err)
	}
	gjs, _ := jetstream.New(other)
	pctx, pcancel := context.WithTimeout(context.Background(), time.Second)
	defer pcancel()
	if _, err := gjs.Publish(pctx, StepSubject("acme", "s1"), []byte(`{}`)); err == nil {
		t.Error("globex's agent published a step into acme's stream")
	} else if !errors.Is(err, jetstream.ErrNoStreamResponse) && !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "no responders") {
		t.Logf("globex's publish: %v", err)
	}
	if n := w.Stats().Steps; n != 2 {
		t.Errorf("acme's worker received %d steps, want its 2", n)
	}
}
