package supervise_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/vigil-dev/vigil/advisor"
	"github.com/vigil-dev/vigil/internal/config"
	"github.com/vigil-dev/vigil/internal/fakellm"
	"github.com/vigil-dev/vigil/internal/fleet"
	"github.com/vigil-dev/vigil/internal/models"
	"github.com/vigil-dev/vigil/internal/natstest"
	"github.com/vigil-dev/vigil/internal/sidecar"
	"github.com/vigil-dev/vigil/internal/supervise"
	"github.com/vigil-dev/vigil/llm"
	"github.com/vigil-dev/vigil/session"
)

// rosterScript is two advisors, each on its own model, each with its own
// note at every review.
const rosterScript = `
rules:
  - name: tests
    model: adv
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-tests: false always fails; read the test first.", severity: concern}}]
      - text: "Nothing more."
  - name: scope
    model: adv2
    repeat: true
    steps:
      - tool_calls: [{name: advise, arguments: {note: "NOTE-scope: the task never asked for false.", severity: concern}}]
      - text: "Nothing more."
`

// registry is a model registry whose provider fake is srv, with the
// models ids.
func registry(t *testing.T, srv *fakellm.Server, ids ...string) *models.Registry {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "providers:\n  fake:\n    baseUrl: %s\n    api: anthropic-messages\n    auth: none\n    models:\n", srv.URL())
	for _, id := range ids {
		fmt.Fprintf(&b, "      - {id: %s, contextWindow: 200000, maxTokens: 4096}\n", id)
	}
	return registryOf(t, b.String())
}

// registryOf is the model registry of the models.yml text yml.
func registryOf(t *testing.T, yml string) *models.Registry {
	t.Helper()
	path := filepath.Join(t.TempDir(), "models.yml")
	if err := os.WriteFile(path, []byte(yml), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := models.LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return models.New(models.Options{User: f, UserPath: path})
}

// failedStep is one step of the agent: a bash call that fails.
func failedStep(n int) []session.Entry {
	id := fmt.Sprintf("call-%d", n)
	args := []byte(`{"command":"false"}`)
	at := time.Unix(int64(n), 0).UTC()
	return []session.Entry{
		{ID: "a" + id, Time: at, Body: &session.Message{Message: llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockToolCall, ID: id, Name: "bash", Arguments: args}}}}},
		{ID: "r" + id, ParentID: "a" + id, Time: at, Body: &session.Message{Message: llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.ToolResult(id, true, llm.Text("exit status 1"))}}}},
	}
}

// TestFleetWorkerRunsARoster: a fleet worker (a real nats-server) whose
// agent folder declares two advisors in WATCHDOG.yml runs both for a
// session, each on its own model; the agent's side, a session's advisor
// on the fleet, gets each advisor's note, named after it.
func TestFleetWorkerRunsARoster(t *testing.T) {
	srv := fakellm.StartTest(t, fakellm.MustParse(t, rosterScript))
	reg := registry(t, srv, "adv", "adv2")
	ns := natstest.Start(t)
	roster := &config.Roster{
		MaxNotesPerUpdate: 2,
		Advisors: []config.RosterAdvisor{
			{Name: "tests", Model: "fake/adv", Source: "WATCHDOG.yml"},
			{Name: "scope", Model: "fake/adv2", Source: "WATCHDOG.yml"},
		},
	}
	worker := &supervise.Config{Settings: config.Default(), Registry: reg, Roster: roster}

	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	w, err := fleet.NewWorker(nc, fleet.WorkerOptions{Tenant: "acme", Reviewer: worker.Reviewers(nil, io.Discard), Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("worker: %v", err)
		}
		nc.Close()
	})

	agentSettings := config.Default()
	agentSettings.Advisor.Fleet = config.Fleet{URL: ns.ClientURL(), Tenant: "acme"}
	host := sidecar.NewHost()
	adv, err := supervise.New(&supervise.Config{Settings: agentSettings, Registry: reg, Logf: t.Logf}, supervise.Host{Host: host, SessionID: "s1", Start: advisor.StartAtBeginning}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer adv.Stop()
	adv.Start()

	var got string
	for n := 1; n <= 3 && !(strings.Contains(got, "NOTE-tests") && strings.Contains(got, "NOTE-scope")); n++ {
		cursor := host.Append(failedStep(n)...)
		adv.Notify(advisor.Event{Kind: advisor.EventStepEnded, Cursor: cursor})
		wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := adv.WaitBacklogBelow(wctx, 1)
		wcancel()
		if err != nil {
			t.Fatalf("step %d: waiting for the fleet's review: %v", n, err)
		}
		got += host.Boundary()
	}
	for _, want := range []string{"NOTE-tests: false always fails", "NOTE-scope: the task never asked for false"} {
		if !strings.Contains(got, want) {
			t.Errorf("the agent's notes lack %q:\n%s", want, got)
		}
	}
	if !strings.Contains(got, `advisor="tests"`) || !strings.Contains(got, `advisor="scope"`) {
		t.Errorf("the notes do not name their advisors:\n%s", got)
	}
	if rep := adv.Report(supervise.Spent{}); !strings.Contains(rep.Text, "fleet nats://127.0.0.1:") {
		t.Errorf("status %q does not name the fleet", rep.Text)
	}
}
